//go:build race

package certgen

const raceEnabled = true
