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

// The lines --certs lists skipped entries on, and the entries named on a
// line of one reason.
const (
	maxSkipLines = 10
	maxSkipFiles = 3
)

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
			msg += fmt.Sprintf("; %s:\n  %s", skippedCount(src.Skipped), strings.Join(skipLines(src.Skipped), "\n  "))
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
			fmt.Fprintf(progress, "; %s:\n", skippedCount(src.Skipped))
			for _, l := range skipLines(src.Skipped) {
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

// skippedCount says how many entries were skipped, and how many of them
// are unusable certificates or keys rather than other things.
func skippedCount(skips []certgen.Skip) string {
	n := 0
	for _, s := range skips {
		if !s.Ignored {
			n++
		}
	}
	entries := fmt.Sprintf("%d entries", len(skips))
	if len(skips) == 1 {
		entries = "1 entry"
	}
	return fmt.Sprintf("%s skipped (%d unusable; %d ignored: other files, duplicates, CA certificates)", entries, n, len(skips)-n)
}

// skipLines lists skipped entries and why, the unusable ("skipped") before
// the ignored, one line per reason naming up to maxSkipFiles entries, at
// most maxSkipLines lines.
func skipLines(skips []certgen.Skip) []string {
	type group struct {
		ignored bool
		reason  string
		at      []string
	}
	var groups []*group
	byKey := make(map[string]*group)
	for _, pass := range []bool{false, true} {
		for _, s := range skips {
			if s.Ignored != pass {
				continue
			}
			key := fmt.Sprint(s.Ignored, s.Reason)
			g := byKey[key]
			if g == nil {
				g = &group{ignored: s.Ignored, reason: s.Reason}
				byKey[key] = g
				groups = append(groups, g)
			}
			at := s.File
			if s.Line > 0 {
				at += fmt.Sprintf(":%d", s.Line)
			}
			if s.Where != "" {
				at += " " + s.Where
			}
			g.at = append(g.at, at)
		}
	}
	var lines []string
	for i, g := range groups {
		if i == maxSkipLines-1 && len(groups) > maxSkipLines {
			rest := 0
			for _, g := range groups[i:] {
				rest += len(g.at)
			}
			lines = append(lines, fmt.Sprintf("... and %d more entries, for %d other reasons", rest, len(groups)-i))
			break
		}
		verb := "skipped"
		if g.ignored {
			verb = "ignored"
		}
		if len(g.at) == 1 {
			lines = append(lines, fmt.Sprintf("%s %s: %s", verb, g.at[0], g.reason))
			continue
		}
		named := strings.Join(g.at[:min(len(g.at), maxSkipFiles)], ", ")
		if more := len(g.at) - maxSkipFiles; more > 0 {
			named += fmt.Sprintf(" and %d more", more)
		}
		lines = append(lines, fmt.Sprintf("%s %d entries (%s): %s", verb, len(g.at), named, g.reason))
	}
	return lines
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
