package gate

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/certbench/certbench/results"
	"golang.org/x/perf/benchfmt"
)

// The configuration keys that identify the certificates of a result
// (certbench run --certs writes them, certgen.Shape.KeyValues).
const (
	CertsCountKey       = "certs-count"
	CertsFingerprintKey = "certs-fingerprint"
)

// DifferentCerts is the warning of Policy.AllowDifferentCerts.
const DifferentCerts ProblemKind = "different-certs"

// ErrDifferentCerts is what Evaluate's error wraps when base and head
// were measured on different certificates.
var ErrDifferentCerts = errors.New("measured on different certificates")

// generatedPools describes results without certs-* lines.
const generatedPools = "generated pools"

// CertsOf returns the certificates the results were measured on
// ("count N, fingerprint F", or "generated pools"), sorted, once each.
func CertsOf(rs *results.Set) []string { return distinct(rs, certsDesc) }

// CertsByFile returns the input files of rs in order, and for each the
// certificates of its results (CertsOf) joined with " and ".
func CertsByFile(rs *results.Set) (files []string, certs map[string]string) {
	sets := map[string][]string{}
	for _, r := range rs.Series {
		f, d := r.GetConfig(results.FileKey), certsDesc(r)
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

func certsDesc(r *results.Series) string {
	count, fingerprint := r.GetConfig(CertsCountKey), r.GetConfig(CertsFingerprintKey)
	if count == "" && fingerprint == "" {
		return generatedPools
	}
	return "count " + cmp.Or(count, "?") + ", fingerprint " + cmp.Or(fingerprint, "?")
}

// checkCerts refuses base and head measured on different certificates,
// or under p.AllowDifferentCerts warns.
func (v *Verdict) checkCerts(base, head *results.Set, p Policy) error {
	b, h := CertsOf(base), CertsOf(head)
	if slices.Equal(b, h) && len(b) <= 1 {
		return nil
	}
	what := fmt.Sprintf("base %s (%s), head %s (%s)", v.Base, strings.Join(b, " and "), v.Head, strings.Join(h, " and "))
	if !p.AllowDifferentCerts {
		return fmt.Errorf("gate: %w: %s; their figures do not compare (the policy's allow_different_certs: true gates them anyway)", ErrDifferentCerts, what)
	}
	v.Problems = append(v.Problems, Problem{Kind: DifferentCerts,
		Message: "results measured on different certificates, gated anyway (allow_different_certs): " + what})
	return nil
}

// DifferentScenario is the warning of Policy.AllowDifferentScenarios.
const DifferentScenario ProblemKind = "different-scenario"

// ErrDifferentScenario is what Evaluate's error wraps when a scenario's
// definition hash (results.ScenarioHashKey) differs in base and head.
var ErrDifferentScenario = errors.New("scenario defined differently")

// ScenarioHashes returns the definition hashes of each scenario, sorted.
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

// checkScenarios refuses a scenario both sides define differently, or
// under p.AllowDifferentScenarios warns.
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
		return fmt.Errorf("gate: %w: %s; their figures do not compare (the policy's allow_different_scenarios: true gates them anyway)", ErrDifferentScenario, what)
	}
	v.Problems = append(v.Problems, Problem{Kind: DifferentScenario,
		Message: "scenarios defined differently in base and head, gated anyway (allow_different_scenarios): " + what})
	return nil
}
