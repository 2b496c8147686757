package profile_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/certbench/certbench/internal/profile"
	pprofile "github.com/google/pprof/profile"
)

// fuzzProfile returns a small heap profile as pprof writes it (gzipped
// protobuf).
func fuzzProfile(tb testing.TB) []byte {
	tb.Helper()
	fn := &pprofile.Function{ID: 1, Name: "github.com/certbench/certbench/stores/optimized.(*Store).Update", SystemName: "x", Filename: "store.go"}
	loc := &pprofile.Location{ID: 1, Address: 0x1000, Line: []pprofile.Line{{Function: fn, Line: 10}}}
	p := &pprofile.Profile{
		SampleType: []*pprofile.ValueType{
			{Type: "alloc_objects", Unit: "count"}, {Type: "alloc_space", Unit: "bytes"},
			{Type: "inuse_objects", Unit: "count"}, {Type: "inuse_space", Unit: "bytes"},
		},
		Sample:   []*pprofile.Sample{{Location: []*pprofile.Location{loc}, Value: []int64{3, 300, 1, 100}}},
		Location: []*pprofile.Location{loc},
		Function: []*pprofile.Function{fn},
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
		p, err := profile.LoadMax(path, 1<<20)
		if err != nil {
			return
		}
		if p == nil {
			t.Fatal("LoadMax returned neither a profile nor an error")
		}
		_, _ = profile.Summarize(p, 5)
		for _, st := range p.SampleType {
			if st == nil {
				continue
			}
			_, _ = profile.TopSites(p, st.Type, 5, profile.ByFlat, false)
			_, _ = profile.TopSites(p, st.Type, 5, profile.ByCum, true)
		}
		_, _ = profile.Diff(p, p)
	})
}
