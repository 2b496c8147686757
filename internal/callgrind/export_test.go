package callgrind

import (
	"strings"

	"github.com/certbench/certbench/internal/cost"
	"github.com/google/pprof/profile"
)

// Collect runs f in a window and reads the window's dump back, with its
// instructions and the label its dump carries.
func (s *Session) Collect(label string, f func()) (p *profile.Profile, file, dumped string, ir int64, err error) {
	w := s.NewWindow(label)
	w.Run(f)
	c, err := s.Read(label, w.File)
	if err != nil {
		return nil, "", "", 0, err
	}
	p = c.Profile
	for _, c := range p.Comments {
		if _, trigger, ok := strings.Cut(c, ": dump "); ok && strings.HasPrefix(c, "callgrind part ") {
			dumped = trigger
		}
	}
	ir, _ = cost.Total(p, cost.Instructions)
	return p, w.File, dumped, ir, nil
}
