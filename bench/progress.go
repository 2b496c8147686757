package bench

import (
	"cmp"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/certbench/certbench/scenarios"
)

// progress writes Run's progress (Options.Progress): on a terminal a
// line per sample, each rewriting the last; in lines mode (a log or a
// file) a line per finished scenario.
type progress struct {
	w     io.Writer
	lines bool
	live  bool // a live line is on the terminal, not ended
	total int  // samples planned
	count int  // of which per store and scenario (--count)
	done  int  // samples measured, failed or passed over
	start time.Time
	scen  time.Time // the current scenario's start

	scens []scenarioLeft // per scenario, for left
	cur   int            // the current scenario's index in scens

	measured     int      // samples measured (not failed, not passed over)
	scenMeasured int      // samples measured when the current scenario started
	failed       []string // the stores that failed in the current scenario
}

// newProgress returns the progress of a run of count samples of each of
// stores stores in each of the scenarios whose samples cost costs
// (sampleCost).
func newProgress(w io.Writer, lines bool, count, stores int, costs []float64) *progress {
	perScenario := count * stores
	p := &progress{w: w, lines: lines, total: perScenario * len(costs), count: count, start: time.Now(), cur: -1}
	if stores == 1 {
		p.count = 0 // the samples are the count
	}
	for _, c := range costs {
		p.scens = append(p.scens, scenarioLeft{cost: c, samples: perScenario})
	}
	return p
}

// scenarioLeft is what estimateLeft knows of one scenario of a run.
type scenarioLeft struct {
	cost    float64       // the cost of one sample (sampleCost), relative to the other scenarios'
	samples int           // samples planned
	done    int           // samples done
	took    time.Duration // the time its done samples took
}

// estimateLeft estimates the time the samples not done yet take: a
// scenario's at the mean of its own samples done, or with none done at
// its cost times the time per cost of all samples done (false: none).
func estimateLeft(scens []scenarioLeft) (left time.Duration, ok bool) {
	var took time.Duration
	var cost float64
	for _, s := range scens {
		took += s.took
		cost += float64(s.done) * s.cost
	}
	if cost == 0 {
		return 0, false
	}
	perCost := float64(took) / cost
	for _, s := range scens {
		per := s.cost * perCost
		if s.done > 0 {
			per = float64(s.took) / float64(s.done)
		}
		left += time.Duration(float64(s.samples-s.done) * per)
	}
	return left, true
}

// A sample's cost against another's, for estimateLeft, grows with its
// pool (the store is built from it, refreshes reconfigure it, the heap
// measured holds it), not its ops, which the catalogue lowers for larger
// pools: sampleFixed plus one per certificate, plus the pool again per
// lookupsPerPool lookups or handshakes.
const (
	sampleFixed    = 1000
	lookupsPerPool = 20000
)

// sampleCost is the relative cost of one sample of sc with ops ops.
func sampleCost(sc scenarios.Scenario, ops int) float64 {
	pool := sc.Pool.Count
	if sc.Certs != nil {
		pool = len(sc.Certs.Certs)
	}
	cost := float64(sampleFixed + pool)
	switch sc.Kind {
	case scenarios.Lookup, scenarios.Handshake, scenarios.HandshakeUnderChurn:
		cost += float64(ops) * float64(pool) / lookupsPerPool
	}
	return cost
}

// sampleCosts is the sampleCost of each scenario of opts, with the ops a
// sample runs (simulated: SimulateOps, unless Ops overrides them).
func sampleCosts(opts Options, simulated bool) (costs []float64) {
	for _, sc := range opts.Scenarios {
		ops := cmp.Or(max(opts.Ops, 0), sc.Ops)
		if simulated && opts.Ops <= 0 {
			ops = SimulateOps(sc)
		}
		costs = append(costs, sampleCost(sc, ops))
	}
	return costs
}

// left is the estimate of the time left, "about 4m10s", or "" before the
// first sample.
func (p *progress) left() string {
	d, ok := estimateLeft(p.scens)
	if !ok {
		return ""
	}
	return "about " + d.Round(time.Second).String()
}

// sample announces the sample about to be measured (terminal only).
func (p *progress) sample(scenario, store string, k, count int) {
	if p.w == nil || p.lines {
		return
	}
	eta := ""
	if l := p.left(); l != "" {
		eta = ", " + l + " left"
	}
	fmt.Fprintf(p.w, "\r\033[K[%d/%d] %s on %s, sample %d/%d%s", p.done+1, p.total, scenario, store, k, count, eta)
	p.live = true
}

// sampleDone counts a sample done; measured, one that was measured.
func (p *progress) sampleDone(measured bool) {
	p.done++
	if p.cur >= 0 {
		p.scens[p.cur].done++
		p.scens[p.cur].took = time.Since(p.scen)
	}
	if measured {
		p.measured++
	}
}

// storeFailed notes a store that failed in the current scenario.
func (p *progress) storeFailed(store string) { p.failed = append(p.failed, store) }

// interrupt ends the terminal's live line, for another line to follow.
func (p *progress) interrupt() {
	if p.w != nil && p.live {
		fmt.Fprint(p.w, "\r\033[K")
		p.live = false
	}
}

// startScenario notes the start of the next scenario.
func (p *progress) startScenario() {
	p.scen, p.scenMeasured, p.failed = time.Now(), p.measured, nil
	p.cur++
}

// scenarioDone writes, in lines mode, the line of the i-th scenario
// (from 0), just finished.
func (p *progress) scenarioDone(i int, name string) {
	if p.w == nil || !p.lines {
		return
	}
	took := time.Since(p.scen).Round(time.Second)
	left := len(p.scens) - i - 1
	tail := fmt.Sprintf("%s in all, %s", plural(p.measured, "sample"), time.Since(p.start).Round(time.Second))
	if left > 0 {
		tail = fmt.Sprintf("%s left, %s", plural(left, "scenario"), p.left())
	}
	failed := ""
	if len(p.failed) > 0 {
		failed = " (failed: " + strings.Join(p.failed, ", ") + ")"
	}
	fmt.Fprintf(p.w, "[%d/%d] %s: %s%s in %s%s; %s\n", i+1, len(p.scens), name, plural(p.measured-p.scenMeasured, "sample"), p.perStore(), took, failed, tail)
}

// perStore is " (N per store)" where a run has several stores.
func (p *progress) perStore() string {
	if p.count == 0 {
		return ""
	}
	return fmt.Sprintf(" (%d per store)", p.count)
}

// plural is "1 sample", "2 samples".
func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// end writes the terminal's closing line.
func (p *progress) end() {
	if p.w == nil || p.lines {
		return
	}
	fmt.Fprintf(p.w, "\r\033[K%d samples%s in %s\n", p.total, strings.Replace(p.perStore(), "store)", "store and scenario)", 1), time.Since(p.start).Round(time.Second))
	p.live = false
}
