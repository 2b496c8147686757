package main

import (
	"flag"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/certbench/certbench/bench"
	"github.com/certbench/certbench/certstore"
	"github.com/certbench/certbench/results"
	"github.com/certbench/certbench/scenarios"
)

var (
	calibrateSamples   = flag.Int("calibrate.samples", 3, "samples per store and scenario in TestCalibrateNaive (the median is compared)")
	calibrateScenarios = flag.String("calibrate.scenarios", "rotate-10-of-100,renew-1-of-1000,lookup-1000", "scenarios TestCalibrateNaive compares, comma-separated")
)

// maxFactor is how far the naive model's allocs/op and B/op may be from
// Traefik's, either way.
const maxFactor = 1.5

// TestCalibrateNaive checks that the naive store, certbench's model of
// Traefik's TLS manager, costs what the real manager costs: its allocs/op
// and B/op must be within a factor of 1.5 of store "traefik" on each
// scenario. sec/op is printed but not checked (it is dominated by RSA-2048
// key generation, whose time varies widely). It takes about a minute;
// -short skips it.
//
//	go test -run TestCalibrateNaive -v .
func TestCalibrateNaive(t *testing.T) {
	if testing.Short() {
		t.Skip("calibration measures real refreshes (about a minute); run without -short")
	}
	naive, err := certstore.LookupFactory("naive")
	if err != nil {
		t.Fatal(err)
	}
	traefik, err := certstore.LookupFactory("traefik")
	if err != nil {
		t.Fatal(err)
	}
	scs, err := scenarios.ByName(strings.Split(*calibrateScenarios, ",")...)
	if err != nil {
		t.Fatal(err)
	}
	var report strings.Builder
	fmt.Fprintf(&report, "\nmedians of %d samples; ratio = naive / traefik (want %.1f^-1 .. %.1f for allocs/op and B/op)\n", *calibrateSamples, maxFactor, maxFactor)
	fmt.Fprintf(&report, "%-18s %-8s %14s %14s %14s\n", "scenario", "store", results.UnitSec, results.UnitBytes, results.UnitAllocs)
	for _, sc := range scs {
		w, err := sc.Build(0)
		if err != nil {
			t.Fatal(err)
		}
		var ns, tr []bench.Sample
		for range *calibrateSamples {
			for _, st := range []certstore.Info{naive, traefik} {
				s, err := bench.Measure(st.New, st.Name, w)
				if err != nil {
					t.Fatal(err)
				}
				if st.Name == naive.Name {
					ns = append(ns, s)
				} else {
					tr = append(tr, s)
				}
			}
		}
		n, r := median(ns), median(tr)
		fmt.Fprintf(&report, "%-18s %-8s %14s %14.0f %14.0f\n", sc.Name, "naive", results.Format(n.sec, results.UnitSec), n.bytes, n.allocs)
		fmt.Fprintf(&report, "%-18s %-8s %14s %14.0f %14.0f\n", "", "traefik", results.Format(r.sec, results.UnitSec), r.bytes, r.allocs)
		fmt.Fprintf(&report, "%-18s %-8s %14.2f %14.2f %14.2f\n", "", "ratio", n.sec/r.sec, n.bytes/r.bytes, n.allocs/r.allocs)
		for _, m := range []struct {
			unit       string
			naive, ref float64
		}{{results.UnitAllocs, n.allocs, r.allocs}, {results.UnitBytes, n.bytes, r.bytes}} {
			if f := m.naive / m.ref; f > maxFactor || f < 1/maxFactor {
				t.Errorf("%s: naive %s is %.2fx Traefik's (%.0f vs %.0f); want within %.0fx", sc.Name, m.unit, f, m.naive, m.ref, maxFactor)
			}
		}
	}
	t.Log(report.String())
}

type medians struct{ sec, bytes, allocs float64 }

func median(ss []bench.Sample) medians {
	pick := func(f func(bench.Sample) float64) float64 {
		v := make([]float64, len(ss))
		for i, s := range ss {
			v[i] = f(s)
		}
		slices.Sort(v)
		if len(v)%2 == 1 {
			return v[len(v)/2]
		}
		return (v[len(v)/2-1] + v[len(v)/2]) / 2
	}
	return medians{
		sec:    pick(func(s bench.Sample) float64 { return s.NsPerOp / 1e9 }),
		bytes:  pick(func(s bench.Sample) float64 { return float64(s.BytesPerOp) }),
		allocs: pick(func(s bench.Sample) float64 { return float64(s.AllocsPerOp) }),
	}
}
