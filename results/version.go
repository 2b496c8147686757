package results

import (
	"cmp"
	"runtime/debug"
)

// modulePath is certbench's module, main or a store's dependency.
const modulePath = "github.com/certbench/certbench"

// revision is the VCS revision set at link time (-ldflags -X ...results.revision=),
// used when certbench is the main module and the build info lacks one.
var revision string

// buildInfo is what Version, Revision and VersionLine read.
type buildInfo struct {
	version  string // certbench's module version; "" for (devel)
	revision string // the full VCS revision; "" when unknown
	modified bool   // the build info says the tree had local changes
}

// readBuildInfo reads the running binary's build info.
func readBuildInfo() buildInfo {
	bi, _ := debug.ReadBuildInfo() // nil when the binary has none
	return parseBuildInfo(bi, revision)
}

// parseBuildInfo extracts certbench's version, revision and modified flag
// from bi (nil when the binary has none). When certbench is the main
// module they are the main module's version and its vcs settings, or
// ldRevision, the revision set at link time, when bi records no
// vcs.revision. In a store author's binary (certbench a dependency) the
// version is that of the dependency, its replacement's when replaced, and
// the vcs settings, which describe the author's checkout, are not used.
func parseBuildInfo(bi *debug.BuildInfo, ldRevision string) buildInfo {
	var b buildInfo
	if bi != nil && bi.Main.Path != "" && bi.Main.Path != modulePath {
		for _, d := range bi.Deps {
			if d.Path != modulePath {
				continue
			}
			if d.Replace != nil {
				d = d.Replace
			}
			if d.Version != "(devel)" {
				b.version = d.Version
			}
		}
		return b
	}
	if bi != nil {
		if v := bi.Main.Version; v != "" && v != "(devel)" {
			b.version = v
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				b.revision = s.Value
			case "vcs.modified":
				b.modified = s.Value == "true"
			}
		}
	}
	if b.revision == "" {
		b.revision = ldRevision
	}
	return b
}

// Version returns certbench's version: its module's version (see
// parseBuildInfo), or its VCS revision (12 digits, "-dirty" with local
// changes) when the build records none, or "devel".
func Version() string { return readBuildInfo().versionString() }

// versionString is Version for b.
func (b buildInfo) versionString() string {
	if b.version != "" {
		return b.version
	}
	if b.revision != "" {
		rev := b.revision
		if len(rev) > 12 {
			rev = rev[:12]
		}
		if b.modified {
			rev += "-dirty"
		}
		return rev
	}
	return "devel"
}

// Revision returns the full VCS revision certbench was built from: the
// build info's vcs.revision, else the one set at link time (see the
// revision variable), else "". Result files record it as the
// configuration line "certbench-revision" when it is not empty.
func Revision() string { return readBuildInfo().revision }

// VersionLine returns what certbench --version prints after the command
// name: the module version ("devel" when the build records none), then
// the revision and whether the tree was modified, when known, e.g.
// "v0.0.0-20261201100000-abc123def456 (revision abc123def4567890,
// modified)" or "devel".
func VersionLine() string { return readBuildInfo().line() }

// line is VersionLine for b.
func (b buildInfo) line() string {
	v := cmp.Or(b.version, "devel")
	if b.revision == "" {
		return v
	}
	v += " (revision " + b.revision
	if b.modified {
		v += ", modified"
	}
	return v + ")"
}
