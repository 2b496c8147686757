//go:build race

package optimized

const raceEnabled = true
