package scenarios

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/certbench/certbench/results"
)

// Definition returns a canonical text of everything that makes the
// scenario's workload (loaded certificates by count and fingerprint, never
// a path), without the name and description: equal definitions build
// equal workloads.
func (s Scenario) Definition() string {
	var b strings.Builder
	fmt.Fprintf(&b, "kind=%s\n", s.Kind)
	if s.Certs != nil {
		sh := s.Certs.Shape()
		fmt.Fprintf(&b, "pool=certs count=%d fingerprint=%s\n", sh.Count, sh.Fingerprint)
	} else {
		fmt.Fprintf(&b, "pool=%s\n", s.Pool)
	}
	switch s.Kind {
	case Rotate:
		fmt.Fprintf(&b, "window=%d\n", s.Window)
	case Renew:
		fmt.Fprintf(&b, "renew=%d\n", max(1, s.Renew))
	case Held:
		fmt.Fprintf(&b, "renew=%d\nheld=%d\n", max(1, s.Renew), s.Held)
	case Sequence:
		b.WriteString("steps=")
		for i := 0; i < len(s.Steps); {
			j := i
			for j < len(s.Steps) && s.Steps[j] == s.Steps[i] {
				j++
			}
			fmt.Fprintf(&b, "%dx%d,", j-i, s.Steps[i])
			i = j
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "stores=%s\n", strings.Join(s.Stores, ","))
	fmt.Fprintf(&b, "ops=%d\n", s.Ops)
	switch s.Kind {
	case Lookup, Handshake, HandshakeUnderChurn:
		m := s.Mix.orDefault()
		fmt.Fprintf(&b, "lookup=%d,%d,%d\n", m.Exact, m.Wildcard, m.Miss)
		fmt.Fprintf(&b, "duration=%s\n", s.Duration)
	}
	if s.Kind == Handshake {
		h := s.Handshake
		fmt.Fprintf(&b, "handshake=tls12:%g,resume:%g,clients:%d,churn:%t,every:%s\n",
			h.TLS12Share, h.ResumeShare, h.Clients, h.Churn, h.RefreshEvery)
	}
	return b.String()
}

// Hash returns the first 12 hex digits of the SHA-256 of the scenario's
// Definition: what results record of a scenario's definition, so that
// the gate compares only like with like.
func (s Scenario) Hash() string {
	sum := sha256.Sum256([]byte(s.Definition()))
	return hex.EncodeToString(sum[:6])
}

// HashConfig returns the file configuration lines that record the
// definition hash of each scenario, as key/value pairs for
// results.NewWriter: "scenario-hash.NAME", Hash.
func HashConfig(scs []Scenario) []string {
	var kv []string
	for _, s := range scs {
		kv = append(kv, results.ScenarioHashKey(s.Name), s.Hash())
	}
	return kv
}
