package results

import (
	"runtime/debug"
	"testing"
)

func TestParseBuildInfo(t *testing.T) {
	stamped := &debug.BuildInfo{
		Main: debug.Module{Version: "v1.2.3"},
		Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "abcdef0123456789"},
			{Key: "vcs.modified", Value: "true"},
		},
	}
	unstamped := &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}
	for _, tc := range []struct {
		name         string
		bi           *debug.BuildInfo
		ld           string
		line, vers   string
		wantRevision string
	}{
		{"stamped", stamped, "", "v1.2.3 (revision abcdef0123456789, modified)", "v1.2.3", "abcdef0123456789"},
		{"stamped wins over ldflags", stamped, "feed", "v1.2.3 (revision abcdef0123456789, modified)", "v1.2.3", "abcdef0123456789"},
		{"ldflags only", unstamped, "feedface0123456789", "devel (revision feedface0123456789)", "feedface0123", "feedface0123456789"},
		{"nothing", unstamped, "", "devel", "devel", ""},
		{"no build info", nil, "", "devel", "devel", ""},
	} {
		b := parseBuildInfo(tc.bi, tc.ld)
		if got := b.line(); got != tc.line {
			t.Errorf("%s: line %q, want %q", tc.name, got, tc.line)
		}
		if got := b.versionString(); got != tc.vers {
			t.Errorf("%s: version %q, want %q", tc.name, got, tc.vers)
		}
		if b.revision != tc.wantRevision {
			t.Errorf("%s: revision %q, want %q", tc.name, b.revision, tc.wantRevision)
		}
	}
}
