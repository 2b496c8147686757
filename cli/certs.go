package cli

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/certbench/certbench/certgen"
	"github.com/certbench/certbench/internal/compare"
	"github.com/certbench/certbench/internal/gate"
	"github.com/certbench/certbench/scenarios"
	"github.com/spf13/cobra"
)

// CertsFlags are the flags that run scenarios on the user's own
// certificates (--certs) instead of generated pools.
type CertsFlags struct {
	// Path is the certificate source (--certs): a directory of PEM files,
	// a Traefik dynamic configuration (YAML or TOML) or a Kubernetes
	// Secret list (kubectl get secrets -o json); "" means generated pools.
	Path string
	// Strict fails on the first entry of the source that cannot be used
	// (--certs-strict) instead of skipping it with a note.
	Strict bool
	// Namespaces puts each Secret of a Secret list in a store named after
	// its namespace (--certs-namespaces); without it every Secret is in
	// the default store.
	Namespaces bool

	src *certgen.Source
}

// maxSkipsShown is the number of skipped entries --certs lists on stderr.
const maxSkipsShown = 10

func (c *CertsFlags) bind(cmd *cobra.Command) {
	fs := cmd.Flags()
	fs.StringVar(&c.Path, "certs", "", "run on your own certificates: a `source`, a directory of PEM files, a Traefik dynamic configuration (.yaml, .toml) or a Kubernetes Secret list (.json); results record only its shape (certs-* lines)")
	fs.BoolVar(&c.Strict, "certs-strict", false, "with --certs: fail on the first entry that cannot be used instead of skipping it")
	fs.BoolVar(&c.Namespaces, "certs-namespaces", false, "with --certs and a Secret list: a store per namespace (default: every Secret in the default store)")
}

// given reports whether --certs was given; it rejects the --certs-*
// flags without it, unless files (scenario files, whose pool.certs they
// apply to) are given.
func (c *CertsFlags) given(files bool) (bool, error) {
	if c.Path == "" && !files {
		switch {
		case c.Strict:
			return false, usagef("--certs-strict: needs --certs SOURCE (or a --scenario-file with pool.certs)")
		case c.Namespaces:
			return false, usagef("--certs-namespaces: needs --certs SOURCE (or a --scenario-file with pool.certs)")
		}
		return false, nil
	}
	return c.Path != "", nil
}

// load reads the source once, printing what was loaded (how many, how
// long, what was skipped: file names relative to the source, never a
// certificate name) to progress unless it is nil.
func (c *CertsFlags) load(progress io.Writer) (*certgen.Source, error) {
	if c.src != nil {
		return c.src, nil
	}
	start := time.Now()
	src, err := certgen.Load(c.Path, certgen.SourceOptions{Strict: c.Strict, IgnoreNamespaces: !c.Namespaces})
	if err != nil {
		return nil, usagef("--certs %s: %v", c.Path, err)
	}
	if len(src.Certs) == 0 {
		return nil, usagef("--certs %s: no usable certificate (%d entries skipped)", c.Path, len(src.Skipped))
	}
	took := time.Since(start)
	if progress != nil {
		var problems []certgen.Skip
		for _, s := range src.Skipped {
			if !s.Ignored {
				problems = append(problems, s)
			}
		}
		fmt.Fprintf(progress, "certbench: --certs %s: %d certificates loaded in %s (%s source, stores: %d); %d entries skipped, %d of them not just other files\n",
			c.Path, len(src.Certs), took.Round(time.Millisecond), src.Kind, src.Shape().Stores, len(src.Skipped), len(problems))
		for i, s := range problems {
			if i == maxSkipsShown {
				fmt.Fprintf(progress, "certbench:   ... and %d more (--certs-strict fails on the first)\n", len(problems)-i)
				break
			}
			fmt.Fprintf(progress, "certbench:   skipped %s\n", s)
		}
	}
	c.src = src
	return src, nil
}

// scenarios returns the named scenarios (none: the default set) on the
// loaded certificates, printing ForSource's notes to progress.
func (c *CertsFlags) scenarios(names []string, progress io.Writer) ([]scenarios.Scenario, error) {
	src, err := c.load(progress)
	if err != nil {
		return nil, err
	}
	scs, notes, err := scenarios.ForSource(src, names...)
	if err != nil {
		return nil, usagef("--scenarios with --certs %s: %v", c.Path, err)
	}
	if progress != nil {
		for _, n := range notes {
			fmt.Fprintf(progress, "certbench: --certs: %s\n", n)
		}
	}
	if len(scs) == 0 {
		return nil, usagef("--certs %s: no scenario can run on these certificates", c.Path)
	}
	return scs, nil
}

// selectScenarios returns the named scenarios (none, and no scenario
// file: the default set), on the certificates of --certs when it is
// given, followed by those of the scenario files; the notes of loading go
// to stderr unless Quiet.
func (f *BenchFlags) selectScenarios(names []string, stderr io.Writer) ([]scenarios.Scenario, error) {
	given, err := f.CertsFlags.given(len(f.ScenarioFileFlags.Files) > 0)
	if err != nil {
		return nil, err
	}
	if given {
		if len(f.ScenarioFileFlags.Files) > 0 {
			return f.ScenarioFileFlags.withFiles(nil, &f.CertsFlags)
		}
		var progress io.Writer
		if !f.Quiet {
			progress = stderr
		}
		return f.CertsFlags.scenarios(names, progress)
	}
	if len(names) == 0 && len(f.ScenarioFileFlags.Files) == 0 {
		names = scenarios.Names(true)
	}
	var sc []scenarios.Scenario
	if len(names) > 0 {
		if sc, err = scenarios.ByName(names...); err != nil {
			return nil, usagef("--scenarios: %v", err)
		}
	}
	return f.ScenarioFileFlags.withFiles(sc, &f.CertsFlags)
}

// warnDifferentCerts warns when the files of rs were measured on
// different certificates: their figures do not compare.
func warnDifferentCerts(w io.Writer, rs *compare.Results) {
	files, certs := gate.CertsByFile(rs)
	if len(files) < 2 {
		return
	}
	var parts []string
	differ := false
	for _, f := range files {
		parts = append(parts, fmt.Sprintf("%s: %s", f, certs[f]))
		differ = differ || certs[f] != certs[files[0]]
	}
	if differ {
		fmt.Fprintf(w, "certbench: warning: the files were measured on different certificates, their figures do not compare: %s\n", strings.Join(parts, "; "))
	}
}

// warnDifferentScenarios warns when a scenario of the files of rs was
// defined differently in some of them (its scenario-hash lines differ):
// its figures do not compare.
func warnDifferentScenarios(w io.Writer, rs *compare.Results) {
	hashes := gate.ScenarioHashes(rs)
	var differ []string
	for _, name := range slices.Sorted(maps.Keys(hashes)) {
		if h := hashes[name]; len(h) > 1 {
			differ = append(differ, fmt.Sprintf("%s (%s)", name, strings.Join(h, ", ")))
		}
	}
	if len(differ) > 0 {
		fmt.Fprintf(w, "certbench: warning: scenarios defined differently across the files, their figures do not compare: %s\n", strings.Join(differ, "; "))
	}
}
