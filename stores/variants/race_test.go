//go:build race

package variants_test

const raceEnabled = true
