package regressions

import "fmt"

// Parse returns the Kind named s.
func Parse(s string) (Kind, error) {
	for _, k := range Kinds {
		if string(k) == s {
			return k, nil
		}
	}
	return "", fmt.Errorf("regressions: unknown variant %q (want none, allocs, bytes, slow, work, janitor or cachewalk)", s)
}
