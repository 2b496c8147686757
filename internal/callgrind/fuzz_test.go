package callgrind_test

import (
	"os"
	"strings"
	"testing"

	"github.com/certbench/certbench/internal/callgrind"
)

// FuzzParse feeds Parse arbitrary files: it must return parts or an
// error, never panic, and every part it returns must be consistent (one
// cost per event everywhere).
func FuzzParse(f *testing.F) {
	small, err := os.ReadFile("testdata/small.callgrind")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(small))
	f.Add(string(small[:len(small)/2]))
	f.Add("events: Ir\nfn=(1) a\n1 2\ncfn=(1)\ncalls=1 1\n* 3\n")
	f.Add("positions: instr line\nevents: Ir Dr\nfn=f\n0x4000 12 1 2\n+3 * 4\njump=2 0x4010\n0x4004 13\n")
	f.Add("part: 1\nevents: Ir\nfn=f\n1 1\ntotals: 1\npart: 2\nfn=g\n1 2\n")
	f.Fuzz(func(t *testing.T, in string) {
		ps, err := callgrind.Parse(strings.NewReader(in))
		if err != nil {
			return
		}
		for _, p := range ps {
			n := len(p.Events)
			if n == 0 {
				t.Fatal("a part without events")
			}
			if len(p.Totals) != n {
				t.Fatalf("%d totals for %d events", len(p.Totals), n)
			}
			for _, fn := range p.Functions {
				if len(fn.Self) != n {
					t.Fatalf("%s: %d self costs for %d events", fn.Name, len(fn.Self), n)
				}
				for _, c := range fn.Calls {
					if len(c.Inclusive) != n || c.Callee == nil {
						t.Fatalf("%s: bad call %+v", fn.Name, c)
					}
				}
				_ = fn.Inclusive()
			}
		}
	})
}
