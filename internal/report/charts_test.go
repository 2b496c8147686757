package report

import (
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/certbench/certbench/internal/growth"
	"gonum.org/v1/plot"
)

// withDeadline runs f and fails the test if it does not return within a
// generous bound: the tick code used to spin forever on NaN. f's panic is
// reported as a failure too.
func withDeadline(t *testing.T, f func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- panicError{r}
			}
		}()
		done <- f()
	}()
	select {
	case err := <-done:
		if pe, ok := err.(panicError); ok {
			t.Fatalf("panicked: %v", pe.v)
		}
		return err
	case <-time.After(time.Minute):
		t.Fatal("did not return within a minute (spinning?)")
		return nil
	}
}

type panicError struct{ v any }

func (p panicError) Error() string { return "panic" }

// TestBarChartNonFinite: a non-finite median reaching a scenario chart
// (from a library caller that skipped results.Load's checks) makes
// rendering fail with an error, instead of spinning in the tick code (NaN)
// or panicking in gonum/plot's log scale (+Inf).
func TestBarChartNonFinite(t *testing.T) {
	for _, unit := range []string{"sec/op", "B/op", "allocs/op", "retained-B"} {
		for _, bad := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
			t.Run(unit+"/"+strconv.FormatFloat(bad, 'g', -1, 64), func(t *testing.T) {
				vals := []barValue{
					{center: bad, lo: math.Inf(-1), hi: math.Inf(1), color: palette[0]},
					{center: 100, lo: 90, hi: 110, color: palette[1]},
				}
				ch := &Chart{ID: "scenario-x", Title: "x", plots: gridOf([]*plot.Plot{barPlot(unit, []string{"naive", "optimized"}, vals)}, 4), tileW: 230, tileH: 185}
				for name, render := range map[string]func() error{
					"SVG": func() error { _, err := ch.SVG(); return err },
					"PNG": func() error { _, err := ch.PNG(72); return err },
				} {
					err := withDeadline(t, render)
					if err == nil || !strings.Contains(err.Error(), "scenario-x") || !strings.Contains(err.Error(), "not finite") {
						t.Errorf("%s: err = %v, want an error naming the chart and the non-finite range", name, err)
					}
				}
			})
		}
	}
	// Finite values still draw.
	vals := []barValue{{center: 5, lo: 4, hi: 6, color: palette[0]}, {center: 500, lo: 400, hi: 600, color: palette[1]}}
	ch := &Chart{ID: "ok", plots: gridOf([]*plot.Plot{barPlot("sec/op", []string{"a", "b"}, vals)}, 4), tileW: 230, tileH: 185}
	if _, err := ch.SVG(); err != nil {
		t.Errorf("finite values: %v", err)
	}
}

// TestGrowthPlotNonFinite: an infinite median or a NaN fit in a sweep
// curve is an error from growthPlot, not a chart that hangs or panics.
func TestGrowthPlotNonFinite(t *testing.T) {
	good := func() *growth.Curve {
		c := &growth.Curve{Family: "renew-1", Store: "naive", Unit: "sec/op",
			Points: []growth.Point{{Size: 100, Center: 1e-3, Lo: math.Inf(-1), Hi: math.Inf(1), N: 1}, {Size: 1000, Center: 1e-2, Lo: math.Inf(-1), Hi: math.Inf(1), N: 1}}}
		c.Fit.Coefficient, c.Fit.Exponent = 1e-5, 1
		c.FitErr = nil
		return c
	}
	if _, err := growthPlot("sec/op", []*growth.Curve{good()}, &colors{}); err != nil {
		t.Fatalf("finite curve: %v", err)
	}
	for name, spoil := range map[string]func(c *growth.Curve){
		"+Inf center": func(c *growth.Curve) { c.Points[1].Center = math.Inf(1) },
		"NaN center":  func(c *growth.Curve) { c.Points[0].Center = math.NaN() },
		"NaN fit":     func(c *growth.Curve) { c.Fit.Exponent = math.NaN() },
	} {
		t.Run(name, func(t *testing.T) {
			c := good()
			spoil(c)
			err := withDeadline(t, func() error {
				p, err := growthPlot("sec/op", []*growth.Curve{c}, &colors{})
				if err != nil {
					return err
				}
				if p == nil {
					return nil
				}
				_, err = (&Chart{ID: "growth-x", plots: gridOf([]*plot.Plot{p}, 2), tileW: 400, tileH: 280}).SVG()
				return err
			})
			if err == nil || (strings.Contains(name, "center") && !strings.Contains(err.Error(), "not a finite number")) {
				t.Errorf("err = %v, want an error about the non-finite value", err)
			}
		})
	}
}
