package gate

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/certbench/certbench/compare"
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
func CertsOf(rs *compare.Results) []string {
	var out []string
	if rs == nil {
		return nil
	}
	for _, r := range rs.Results {
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
func CertsByFile(rs *compare.Results) (files []string, certs map[string]string) {
	sets := map[string][]string{}
	for _, r := range rs.Results {
		f := r.GetConfig(compare.FileKey)
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
func (v *Verdict) checkCerts(base, head *compare.Results, p Policy) error {
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
