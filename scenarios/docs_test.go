package scenarios

import (
	"fmt"
	"strings"
	"testing"

	"github.com/certbench/certbench/internal/golden"
	"github.com/certbench/certbench/results"
)

// The catalogue table of docs/scenarios.md is built from the embedded
// catalogue files by this test; `go test -run TestDocsCatalogue -update
// ./scenarios/` rewrites it.

const (
	docsPath  = "../docs/scenarios.md"
	docsBegin = "<!-- catalogue table: generated from scenarios/catalogue by TestDocsCatalogue in scenarios/docs_test.go -->\n"
	docsEnd   = "<!-- end of catalogue table -->\n"
)

// catalogueTable renders one row per catalogue scenario: name, default
// set, pool, churn, ops and definition hash.
func catalogueTable() string {
	var b strings.Builder
	b.WriteString("| scenario | default | pool | stores | churn | ops | hash |\n|---|:-:|---|---|---|--:|---|\n")
	for _, sc := range Catalogue {
		stores := "default"
		if len(sc.Stores) > 0 {
			stores = strings.Join(sc.Stores, ", ")
		}
		def := ""
		if sc.Default {
			def = "yes"
		}
		key := string(sc.Pool.Key)
		if key == "" {
			key = "p256"
		}
		churn := string(sc.Kind)
		switch sc.Kind {
		case Rotate:
			churn += fmt.Sprintf(" %d", sc.Window)
		case Renew:
			churn += fmt.Sprintf(" %d", max(1, sc.Renew))
		case Held:
			churn += fmt.Sprintf(" (renew %d, %d connections held)", max(1, sc.Renew), sc.Held)
		case Lookup, HandshakeUnderChurn:
			m := sc.Mix.orDefault()
			churn += fmt.Sprintf(" (%d/%d/%d)", m.Exact, m.Wildcard, m.Miss)
		case Handshake:
			h := sc.Handshake
			churn += fmt.Sprintf(" (%g%% TLS 1.2, %g%% resumed", 100*h.TLS12Share, 100*h.ResumeShare)
			if h.Churn {
				churn += fmt.Sprintf(", renew-1 every %s", h.RefreshEvery)
			}
			churn += ")"
		}
		if sc.Duration > 0 {
			churn += fmt.Sprintf(", %s a sample", sc.Duration)
		}
		fmt.Fprintf(&b, "| %s | %s | %s %s (seed %d) | %s | %s | %s | `%s` |\n",
			sc.Name, def, results.FormatInt(sc.Pool.Count), key, sc.Pool.Seed,
			results.EscapeMarkdown(stores), results.EscapeMarkdown(churn),
			results.FormatInt(sc.Ops), sc.Hash())
	}
	return b.String()
}

func TestDocsCatalogue(t *testing.T) {
	golden.CheckSection(t, docsPath, docsBegin, docsEnd, []byte(catalogueTable()))
}
