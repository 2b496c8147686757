package bench

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// progress writes Run's progress (Options.Progress): on a terminal a
// line per sample, each rewriting the last; in lines mode (a log or a
// file) a line per finished scenario.
type progress struct {
	w     io.Writer
	lines bool
	live  bool // a live line is on the terminal, not ended
	total int  // samples planned
	done  int  // samples measured, failed or passed over
	nScen int  // scenarios planned
	start time.Time
	scen  time.Time // the current scenario's start

	measured     int      // samples measured (not failed, not passed over)
	scenMeasured int      // samples measured when the current scenario started
	failed       []string // the stores that failed in the current scenario
}

func newProgress(w io.Writer, lines bool, total, scenarios int) *progress {
	return &progress{w: w, lines: lines, total: total, nScen: scenarios, start: time.Now()}
}

// left estimates the time the samples not done yet take, from the mean
// so far ("" before the first sample). Scenarios differ in cost (the
// default set's scenarios with 10,000 certificates come after cheaper
// ones), so the texts say it is the pace so far, not a forecast.
func (p *progress) left() string {
	if p.done == 0 {
		return ""
	}
	d := time.Since(p.start) / time.Duration(p.done) * time.Duration(p.total-p.done)
	return d.Round(time.Second).String()
}

// sample announces the sample about to be measured (terminal only).
func (p *progress) sample(scenario, store string, k, count int) {
	if p.w == nil || p.lines {
		return
	}
	eta := ""
	if l := p.left(); l != "" {
		eta = ", " + l + " left at this pace"
	}
	fmt.Fprintf(p.w, "\r\033[K[%d/%d] %s on %s, sample %d/%d%s", p.done+1, p.total, scenario, store, k, count, eta)
	p.live = true
}

// sampleDone counts a sample done; measured, one that was measured.
func (p *progress) sampleDone(measured bool) {
	p.done++
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

// startScenario notes the start of a scenario.
func (p *progress) startScenario() {
	p.scen, p.scenMeasured, p.failed = time.Now(), p.measured, nil
}

// scenarioDone writes, in lines mode, the line of the i-th scenario
// (from 0), just finished.
func (p *progress) scenarioDone(i int, name string) {
	if p.w == nil || !p.lines {
		return
	}
	took := time.Since(p.scen).Round(time.Second)
	left := p.nScen - i - 1
	tail := fmt.Sprintf("%s in all, %s", plural(p.measured, "sample"), time.Since(p.start).Round(time.Second))
	if left > 0 {
		tail = fmt.Sprintf("%s left, %s at the pace so far", plural(left, "scenario"), p.left())
	}
	failed := ""
	if len(p.failed) > 0 {
		failed = " (failed: " + strings.Join(p.failed, ", ") + ")"
	}
	fmt.Fprintf(p.w, "[%d/%d] %s: %s in %s%s; %s\n", i+1, p.nScen, name, plural(p.measured-p.scenMeasured, "sample"), took, failed, tail)
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
	fmt.Fprintf(p.w, "\r\033[K%d samples in %s\n", p.total, time.Since(p.start).Round(time.Second))
	p.live = false
}
