//go:build !race

package optimized

const raceEnabled = false
