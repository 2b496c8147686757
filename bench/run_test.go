package bench_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/certbench/certbench/bench"
	"github.com/certbench/certbench/certstore"
	"github.com/certbench/certbench/scenarios"
)

// Run names samples through Options.Name, and an emit that returns
// ErrSkipStore stops that store's samples while the others go on.
func TestRunNameHookAndSkipStore(t *testing.T) {
	opts := bench.Options{
		Stores:    []certstore.Info{{Name: "a", New: newSimple}, {Name: "b", New: newSimple}},
		Scenarios: []scenarios.Scenario{scenario(t, "rotate-10-of-100")},
		Count:     3,
		Ops:       2,
		Name:      func(scenario, store string) string { return "X/" + scenario + "/" + store },
	}
	var got []string
	err := bench.Run(context.Background(), opts, func(s bench.Sample) error {
		got = append(got, s.Name)
		if s.Wall <= 0 {
			t.Errorf("sample %s: Wall %v, want the sample's wall time", s.Name, s.Wall)
		}
		if s.Store == "a" {
			return bench.ErrSkipStore
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := "X/rotate-10-of-100/a X/rotate-10-of-100/b X/rotate-10-of-100/b X/rotate-10-of-100/b"
	if strings.Join(got, " ") != want {
		t.Errorf("samples %q, want %q", strings.Join(got, " "), want)
	}
}

// updateCounter counts the Updates of every store it makes.
type updateCounter struct {
	simpleStore
	n *atomic.Int64
}

func (s *updateCounter) Update(cfg *certstore.Config) error {
	s.n.Add(1)
	return s.simpleStore.Update(cfg)
}
