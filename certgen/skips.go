package certgen

import (
	"fmt"
	"strings"
)

// The lines SkippedLines lists at most, and the entries it names on a
// line of one reason.
const (
	maxSkipLines = 10
	maxSkipFiles = 3
)

// SkippedCount says how many entries s skipped, and how many of them are
// unusable certificates or keys rather than other things.
func (s *Source) SkippedCount() string {
	skips := s.Skipped
	n := 0
	for _, sk := range skips {
		if !sk.Ignored {
			n++
		}
	}
	entries := fmt.Sprintf("%d entries", len(skips))
	if len(skips) == 1 {
		entries = "1 entry"
	}
	return fmt.Sprintf("%s skipped (%d unusable; %d ignored: other files, duplicates, CA certificates)", entries, n, len(skips)-n)
}

// SkippedLines lists the entries s skipped and why, the unusable
// ("skipped") before the ignored, one line per reason naming up to
// maxSkipFiles entries, at most maxSkipLines lines. No line holds a
// certificate's contents: only file names, lines and places.
func (s *Source) SkippedLines() []string {
	skips := s.Skipped
	type group struct {
		ignored bool
		reason  string
		at      []string
	}
	var groups []*group
	byKey := make(map[string]*group)
	for _, pass := range []bool{false, true} {
		for _, sk := range skips {
			if sk.Ignored != pass {
				continue
			}
			key := fmt.Sprint(sk.Ignored, sk.Reason)
			g := byKey[key]
			if g == nil {
				g = &group{ignored: sk.Ignored, reason: sk.Reason}
				byKey[key] = g
				groups = append(groups, g)
			}
			at := sk.File
			if sk.Line > 0 {
				at += fmt.Sprintf(":%d", sk.Line)
			}
			if sk.Where != "" {
				at += " " + sk.Where
			}
			g.at = append(g.at, at)
		}
	}
	var lines []string
	for i, g := range groups {
		if i == maxSkipLines-1 && len(groups) > maxSkipLines {
			rest := 0
			for _, g := range groups[i:] {
				rest += len(g.at)
			}
			lines = append(lines, fmt.Sprintf("... and %d more entries, for %d other reasons", rest, len(groups)-i))
			break
		}
		verb := "skipped"
		if g.ignored {
			verb = "ignored"
		}
		if len(g.at) == 1 {
			lines = append(lines, fmt.Sprintf("%s %s: %s", verb, g.at[0], g.reason))
			continue
		}
		named := strings.Join(g.at[:min(len(g.at), maxSkipFiles)], ", ")
		if more := len(g.at) - maxSkipFiles; more > 0 {
			named += fmt.Sprintf(" and %d more", more)
		}
		lines = append(lines, fmt.Sprintf("%s %d entries (%s): %s", verb, len(g.at), named, g.reason))
	}
	return lines
}
