package cost_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/certbench/certbench/internal/cost"
	"github.com/google/pprof/profile"
)

// fuzzProfile returns a small heap profile as pprof writes it (gzipped
// protobuf).
func fuzzProfile(tb testing.TB) []byte {
	tb.Helper()
	fn := &profile.Function{ID: 1, Name: "github.com/certbench/certbench/stores/optimized.(*Store).Update", SystemName: "x", Filename: "store.go"}
	loc := &profile.Location{ID: 1, Address: 0x1000, Line: []profile.Line{{Function: fn, Line: 10}}}
	p := &profile.Profile{
		SampleType: []*profile.ValueType{
			{Type: "alloc_objects", Unit: "count"}, {Type: "alloc_space", Unit: "bytes"},
			{Type: "inuse_objects", Unit: "count"}, {Type: "inuse_space", Unit: "bytes"},
		},
		Sample:   []*profile.Sample{{Location: []*profile.Location{loc}, Value: []int64{3, 300, 1, 100}}},
		Location: []*profile.Location{loc},
		Function: []*profile.Function{fn},
		Comments: []string{"certbench-ops=3"},
	}
	var b bytes.Buffer
	if err := p.Write(&b); err != nil {
		tb.Fatal(err)
	}
	return b.Bytes()
}

// FuzzLoad reads arbitrary bytes as a profile file: no panic; a profile
// it accepts can be summarized, ranked and diffed without a panic.
func FuzzLoad(f *testing.F) {
	valid := fuzzProfile(f)
	f.Add(valid)
	f.Add(valid[:len(valid)/2])
	f.Add([]byte{})
	f.Add([]byte("\x1f\x8b"))
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "fuzz.pb.gz")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		// A small cap, so that a gzip bomb stays cheap.
		p, err := cost.LoadMax(path, 1<<20)
		if err != nil {
			return
		}
		if p == nil {
			t.Fatal("LoadMax returned neither a profile nor an error")
		}
		_, _ = cost.Summarize(p, 5)
		for _, st := range p.SampleType {
			if st == nil {
				continue
			}
			_, _ = cost.TopSites(p, st.Type, 5, cost.ByFlat, false)
			_, _ = cost.TopSites(p, st.Type, 5, cost.ByCum, true)
		}
		_, _ = cost.Diff(p, p)
	})
}
