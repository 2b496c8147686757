//go:build !race

package regressions_test

const raceEnabled = false
