package bench

import (
	"context"
	"crypto/tls"
	"fmt"
	"math"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/certbench/certbench/certstore"
	"github.com/certbench/certbench/scenarios"
)

func TestSweepCount(t *testing.T) {
	for _, tc := range []struct{ count, size, want int }{
		{6, 100, 6}, {6, 10000, 6}, {6, 20000, 3}, {6, 100000, 3},
		{10, 20000, 5}, {20, 100000, 3}, {40, 100000, 4},
		{2, 100000, 2}, {1, 1000000, 1}, {0, 100, DefaultCount},
	} {
		if got := sweepCount(tc.count, tc.size); got != tc.want {
			t.Errorf("sweepCount(%d, %d) = %d, want %d", tc.count, tc.size, got, tc.want)
		}
	}
}

// tiny is a fast correct-enough store for running sweeps in tests.
type tiny struct {
	cur atomic.Pointer[map[string]*tls.Certificate]
}

func (s *tiny) Update(cfg *certstore.Config) error {
	m := map[string]*tls.Certificate{}
	for i := range cfg.Certificates {
		c := &tls.Certificate{Certificate: [][]byte{cfg.Certificates[i].CertPEM}}
		m[fmt.Sprint(i)] = c
	}
	s.cur.Store(&m)
	return nil
}
func (s *tiny) Current() certstore.Generation { return s }
func (s *tiny) Certificate(string, *tls.ClientHelloInfo) (*tls.Certificate, error) {
	return nil, certstore.ErrNoCertificate
}

func TestSweep(t *testing.T) {
	fam, _ := scenarios.FamilyByName("renew-1")
	stores := []certstore.Info{
		{Name: "a", New: func() certstore.Store { return &tiny{} }},
		{Name: "b", New: func() certstore.Store { return &tiny{} }},
	}
	var names []string
	res, err := Sweep(context.Background(), SweepOptions{
		Families: []scenarios.Family{fam},
		Sizes:    []int{20, 5, 40},
		Stores:   stores,
		Count:    2,
		MaxSize:  map[string]int{"b": 20},
	}, func(s Sample) error {
		names = append(names, s.Name)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"Sweep/family=renew-1/size=5/scenario=renew-1-of-5/store=a",
		"Sweep/family=renew-1/size=5/scenario=renew-1-of-5/store=b",
		"Sweep/family=renew-1/size=5/scenario=renew-1-of-5/store=a",
		"Sweep/family=renew-1/size=5/scenario=renew-1-of-5/store=b",
	}
	for i, w := range want {
		if i >= len(names) || names[i] != w {
			t.Fatalf("samples %q, want to start (interleaved, smallest size first) with %q", names, want)
		}
	}
	if len(names) != 2*2+2*2+2 || res.Samples != len(names) {
		t.Errorf("%d samples (result says %d), want 10 (b skipped at 40)", len(names), res.Samples)
	}
	if len(res.Notes) != 1 || !strings.Contains(res.Notes[0], "b skipped at 40") || !strings.Contains(res.Notes[0], "--max-size") {
		t.Errorf("notes %q, want one about b skipped at 40", res.Notes)
	}
}

func TestSweepBudget(t *testing.T) {
	fam, _ := scenarios.FamilyByName("noop")
	stores := []certstore.Info{{Name: "a", New: func() certstore.Store { return &tiny{} }}}
	n := 0
	res, err := Sweep(context.Background(), SweepOptions{
		Families: []scenarios.Family{fam}, Sizes: []int{5, 50}, Stores: stores, Count: 3, Budget: time.Nanosecond,
	}, func(Sample) error { n++; return nil })
	if err != nil {
		t.Fatal(err)
	}
	// Size 5: no estimate yet, so it starts, and stops after one sample
	// over budget; size 50: estimated over budget, skipped.
	if n != 1 {
		t.Errorf("%d samples, want 1", n)
	}
	if len(res.Notes) != 2 || !strings.Contains(res.Notes[0], "stopped after 1 of 3 samples") || !strings.Contains(res.Notes[1], "skipped at 50") {
		t.Errorf("notes %q", res.Notes)
	}
}

func TestEstimate(t *testing.T) {
	h := &history{sizes: []int{100, 1000}, secPerOp: []float64{0.01, 1}, wallPerOp: []float64{0.02, 2}}
	// Quadratic from 100 to 1000: ten times the size costs 100 times.
	est, ok := h.estimate(10000, 1)
	if !ok || math.Abs(est-2*100*2)/400 > 1e-9 {
		t.Errorf("estimate %v, %v; want 400 s (2 s per refresh × 100 × 2 refreshes)", est, ok)
	}
	// Flatter than linear growth is extrapolated as linear.
	h = &history{sizes: []int{100, 1000}, secPerOp: []float64{1, 1.1}, wallPerOp: []float64{1, 1.1}}
	if est, _ := h.estimate(10000, 0); math.Abs(est-11) > 1e-9 {
		t.Errorf("estimate %v, want 11 s (linear)", est)
	}
	if _, ok := (&history{}).estimate(10, 1); ok {
		t.Error("estimate without history")
	}
}
