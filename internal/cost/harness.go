package cost

import (
	"strings"

	"github.com/google/pprof/profile"
)

// modulePath is certbench's module path, which ShortName drops; a test
// checks it against the path this package is built with.
const (
	modulePath   = "github.com/certbench/certbench"
	modulePrefix = modulePath + "/"
)

// harnessPackages are certbench's packages whose frames run the store
// under measurement: the runner (bench), the simulated CPU's windows
// (internal/callgrind) and the commands (cli). No stack of the store
// continues past them, and they are never the store's.
var harnessPackages = map[string]bool{
	modulePrefix + "bench":              true,
	modulePrefix + "internal/callgrind": true,
	modulePrefix + "cli":                true,
}

// IsHarness reports whether the named function is certbench's harness's.
func IsHarness(function string) bool { return harnessPackages[packageOf(function)] }

// CutHarness cuts every stack of p at its innermost harness frame, so that
// stacks start at the store; a sample of the harness's own keeps that one
// location, and store code inlined into a harness frame keeps its lines
// in a location of its own.
func CutHarness(p *profile.Profile) {
	var maxID uint64
	for _, loc := range p.Location {
		maxID = max(maxID, loc.ID)
	}
	for _, s := range p.Sample {
	stack:
		for i, loc := range s.Location { // leaf first
			for j, line := range loc.Line { // innermost inlined call first
				if line.Function == nil || !IsHarness(line.Function.Name) {
					continue
				}
				switch {
				case j > 0:
					maxID++
					cut := *loc
					cut.ID = maxID
					cut.Line = loc.Line[:j:j]
					p.Location = append(p.Location, &cut)
					s.Location = append(s.Location[:i:i], &cut)
				case i > 0:
					s.Location = s.Location[:i]
				default:
					s.Location = s.Location[:1]
				}
				break stack
			}
		}
	}
}

// ShortName drops certbench's own module path from a Go symbol name
// ("stores/naive.build"); other names keep their full package path.
func ShortName(name string) string {
	if rest, ok := strings.CutPrefix(name, modulePrefix); ok && rest != "" {
		return rest
	}
	return name
}
