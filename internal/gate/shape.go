package gate

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/certbench/certbench/results"
	"golang.org/x/perf/benchfmt"
)

// The certificates results were measured on.
//
// A run on the user's certificates (certbench run --certs) records the
// source's shape as file configuration lines (certgen.Shape.KeyValues):
// certs-count, certs-keys, ..., certs-fingerprint. Two result files
// measured on different certificates do not compare, whatever their
// scenario names say; Evaluate refuses them unless
// Policy.AllowDifferentCerts, and certbench compare warns.

// The configuration keys that identify the certificates of a result.
const (
	// CertsCountKey is the number of certificates of the source.
	CertsCountKey = "certs-count"
	// CertsFingerprintKey is the fingerprint of the source's leaves.
	CertsFingerprintKey = "certs-fingerprint"
)

// DifferentCerts is the kind of the Problem (a warning) of base and head
// measured on different certificates under Policy.AllowDifferentCerts.
const DifferentCerts ProblemKind = "different-certs"

// ErrDifferentCerts is what the error of Evaluate wraps when base and head
// were measured on different certificates.
var ErrDifferentCerts = errors.New("measured on different certificates")

// generatedPools describes results without certs-* lines.
const generatedPools = "generated pools"

// CertsOf returns the certificates the results were measured on, each as
// "count N, fingerprint F", or "generated pools" for results without
// certs-* configuration lines, without duplicates, sorted.
func CertsOf(rs *results.Set) []string {
	var out []string
	if rs == nil {
		return nil
	}
	for _, r := range rs.Series {
		d := certsDesc(r.GetConfig(CertsCountKey), r.GetConfig(CertsFingerprintKey))
		if !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	slices.Sort(out)
	return out
}

// CertsByFile returns, for each input file of rs with results (in input
// order), the certificates its results were measured on (see CertsOf),
// joined with " and ".
func CertsByFile(rs *results.Set) (files []string, certs map[string]string) {
	sets := map[string][]string{}
	for _, r := range rs.Series {
		f := r.GetConfig(results.FileKey)
		d := certsDesc(r.GetConfig(CertsCountKey), r.GetConfig(CertsFingerprintKey))
		if _, ok := sets[f]; !ok {
			files = append(files, f)
		}
		if !slices.Contains(sets[f], d) {
			sets[f] = append(sets[f], d)
		}
	}
	certs = make(map[string]string, len(sets))
	for f, s := range sets {
		slices.Sort(s)
		certs[f] = strings.Join(s, " and ")
	}
	return files, certs
}

func certsDesc(count, fingerprint string) string {
	if count == "" && fingerprint == "" {
		return generatedPools
	}
	if count == "" {
		count = "?"
	}
	if fingerprint == "" {
		fingerprint = "?"
	}
	return "count " + count + ", fingerprint " + fingerprint
}

// checkCerts refuses base and head measured on different certificates
// (an error wrapping ErrDifferentCerts, naming both sides' counts and
// fingerprints), or under p.AllowDifferentCerts reports it as a warning.
func (v *Verdict) checkCerts(base, head *results.Set, p Policy) error {
	b, h := CertsOf(base), CertsOf(head)
	if slices.Equal(b, h) && len(b) <= 1 {
		return nil
	}
	what := fmt.Sprintf("base %s (%s), head %s (%s)", v.Base, strings.Join(b, " and "), v.Head, strings.Join(h, " and "))
	if !p.AllowDifferentCerts {
		return fmt.Errorf("gate: %w: %s; their figures do not compare (--allow-different-certs to gate them anyway)", ErrDifferentCerts, what)
	}
	v.Problems = append(v.Problems, Problem{Kind: DifferentCerts,
		Message: "results measured on different certificates, gated anyway (--allow-different-certs): " + what})
	return nil
}

// The definitions of the scenarios results were measured on.
//
// certbench run records each scenario's definition hash as a file
// configuration line, "scenario-hash.NAME: HASH" (see
// results.ScenarioHashKey): a scenario of one name defined differently
// (a scenario file edited, the catalogue changed by the pull request)
// does not compare. Results without the line (older files, plain go test
// -bench output) are compared as before.

// DifferentScenario is the kind of the Problem (a warning) of a scenario
// defined differently in base and head under
// Policy.AllowDifferentScenarios.
const DifferentScenario ProblemKind = "different-scenario"

// ErrDifferentScenario is what the error of Evaluate wraps when a
// scenario is defined differently in base and head.
var ErrDifferentScenario = errors.New("scenario defined differently")

// ScenarioHashes returns, for each scenario whose results record a
// definition hash, the hashes recorded, without duplicates, sorted.
func ScenarioHashes(rs *results.Set) map[string][]string {
	out := map[string][]string{}
	if rs == nil {
		return out
	}
	var last *benchfmt.Config
	for _, r := range rs.Series {
		if len(r.Config) == 0 || &r.Config[0] == last {
			continue // series of one configuration share it (results.Load)
		}
		last = &r.Config[0]
		for _, c := range r.Config {
			name, ok := strings.CutPrefix(c.Key, results.ScenarioHashPrefix)
			if !ok {
				continue
			}
			if h := string(c.Value); !slices.Contains(out[name], h) {
				out[name] = append(out[name], h)
				slices.Sort(out[name])
			}
		}
	}
	return out
}

// checkScenarios refuses base and head where a scenario both measured is
// defined differently (an error wrapping ErrDifferentScenario, naming the
// scenario and both hashes), or under p.AllowDifferentScenarios reports
// it as a warning.
func (v *Verdict) checkScenarios(base, head *results.Set, p Policy) error {
	b, h := ScenarioHashes(base), ScenarioHashes(head)
	var differ []string
	for _, name := range slices.Sorted(maps.Keys(b)) {
		hh, ok := h[name]
		if !ok || slices.Equal(b[name], hh) {
			continue
		}
		differ = append(differ, fmt.Sprintf("%s (base %s, head %s)", name, strings.Join(b[name], " and "), strings.Join(hh, " and ")))
	}
	if len(differ) == 0 {
		return nil
	}
	what := strings.Join(differ, "; ")
	if !p.AllowDifferentScenarios {
		return fmt.Errorf("gate: %w: %s; their figures do not compare (--allow-different-scenarios to gate them anyway)", ErrDifferentScenario, what)
	}
	v.Problems = append(v.Problems, Problem{Kind: DifferentScenario,
		Message: "scenarios defined differently in base and head, gated anyway (--allow-different-scenarios): " + what})
	return nil
}
