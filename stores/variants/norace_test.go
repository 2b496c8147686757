//go:build !race

package variants_test

const raceEnabled = false
