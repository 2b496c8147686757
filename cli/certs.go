package cli

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/certbench/certbench/certgen"
	"github.com/certbench/certbench/internal/ci/gate"
	"github.com/certbench/certbench/results"
	"github.com/certbench/certbench/scenarios"
	"github.com/spf13/cobra"
)

// CertsFlags are the flags that run scenarios on the user's own
// certificates (--certs) instead of generated pools.
type certsFlags struct {
	Path string // --certs (see certgen.Load); "" means generated pools

	src *certgen.Source
}

func (c *certsFlags) bind(cmd *cobra.Command) {
	cmd.Flags().StringVar(&c.Path, "certs", "", "run on your own certificates: a `source`, a directory of PEM files, a Traefik dynamic configuration (.yaml, .toml) or a Kubernetes Secret list (.json); results record only its shape")
}

// load reads the source once, printing to progress (unless nil) what was
// loaded and skipped (file names, never a certificate's).
func (c *certsFlags) load(progress io.Writer) (*certgen.Source, error) {
	if c.src != nil {
		return c.src, nil
	}
	start := time.Now()
	src, err := certgen.Load(c.Path, certgen.SourceOptions{IgnoreNamespaces: true})
	if err != nil {
		return nil, usagef("--certs %s: %v", c.Path, err)
	}
	if len(src.Certs) == 0 {
		msg := fmt.Sprintf("--certs %s: no usable certificate", c.Path)
		if len(src.Skipped) > 0 {
			msg += fmt.Sprintf("; %s:\n  %s", src.SkippedCount(), strings.Join(src.SkippedLines(), "\n  "))
		}
		return nil, usagef("%s", msg)
	}
	took := time.Since(start)
	if progress != nil {
		fmt.Fprintf(progress, "certbench: --certs %s: %s loaded in %s (%s source, stores: %d)",
			c.Path, plural(len(src.Certs), "certificate"), took.Round(time.Millisecond), src.Kind, src.Shape().Stores)
		if len(src.Skipped) == 0 {
			fmt.Fprintln(progress)
		} else {
			fmt.Fprintf(progress, "; %s:\n", src.SkippedCount())
			for _, l := range src.SkippedLines() {
				fmt.Fprintf(progress, "certbench:   %s\n", l)
			}
			if slices.ContainsFunc(src.Skipped, func(s certgen.Skip) bool { return !s.Ignored }) {
				fmt.Fprintf(progress, "certbench: the results are of the %s loaded: an unusable entry is left out, as a proxy leaves out a certificate it cannot load. "+
					"To stop on one instead: a scenario file with pool: {certs: %s, strict: true} (docs/certificates.md)\n", plural(len(src.Certs), "certificate"), c.Path)
			}
		}
	}
	c.src = src
	return src, nil
}

// scenarios returns the named scenarios (none: the default set) on the
// loaded certificates, printing ForSource's notes to progress.
func (c *certsFlags) scenarios(names []string, progress io.Writer) ([]scenarios.Scenario, error) {
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
func (f *benchFlags) selectScenarios(names []string, stderr io.Writer) ([]scenarios.Scenario, error) {
	if f.certsFlags.Path != "" {
		if len(f.scenarioFileFlags.Files) > 0 {
			return f.scenarioFileFlags.withFiles(nil, &f.certsFlags)
		}
		var progress io.Writer
		if !f.Quiet {
			progress = stderr
		}
		return f.certsFlags.scenarios(names, progress)
	}
	if len(names) == 0 && len(f.scenarioFileFlags.Files) == 0 {
		names = scenarios.Names(true)
	}
	var sc []scenarios.Scenario
	if len(names) > 0 {
		var err error
		if sc, err = scenarios.ByName(names...); err != nil {
			return nil, usagef("--scenarios: %v%s", err, sweepHint(names))
		}
	}
	return f.scenarioFileFlags.withFiles(sc, &f.certsFlags)
}

// warnDifferentCerts warns when the files of rs were measured on
// different certificates: their figures do not compare.
func warnDifferentCerts(w io.Writer, rs *results.Set) {
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
func warnDifferentScenarios(w io.Writer, rs *results.Set) {
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
