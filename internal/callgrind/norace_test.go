//go:build !race

package callgrind_test

const raceEnabled = false
