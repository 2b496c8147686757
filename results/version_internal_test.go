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
	stamped.Main.Path = modulePath
	unstamped := &debug.BuildInfo{Main: debug.Module{Path: modulePath, Version: "(devel)"}}
	author := func(dep *debug.Module) *debug.BuildInfo {
		return &debug.BuildInfo{
			Main: debug.Module{Path: "example.com/mystore", Version: "v1.4.0"},
			Deps: []*debug.Module{{Path: "github.com/spf13/cobra", Version: "v1.10.2"}, dep},
			Settings: []debug.BuildSetting{
				{Key: "vcs.revision", Value: "0a0a0a0a0a0a0a0a0a0a"},
				{Key: "vcs.modified", Value: "true"},
			},
		}
	}
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
		// A store author's binary: the author's module is Main, its
		// vcs settings and a link-time revision describe the author's
		// checkout, not certbench.
		{"dependency", author(&debug.Module{Path: modulePath, Version: "v0.3.1"}), "feed", "v0.3.1", "v0.3.1", ""},
		{"dependency replaced", author(&debug.Module{Path: modulePath, Version: "v0.3.1",
			Replace: &debug.Module{Path: "example.com/fork", Version: "v0.3.2-fix"}}), "", "v0.3.2-fix", "v0.3.2-fix", ""},
		{"dependency in a directory", author(&debug.Module{Path: modulePath, Version: "v0.0.0-00010101000000-000000000000",
			Replace: &debug.Module{Path: "../.."}}), "", "devel", "devel", ""},
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
