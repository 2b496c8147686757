package bench

import (
	"fmt"
	"io"
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
	scenN int       // samples done when the current scenario started
}

func newProgress(w io.Writer, lines bool, total, scenarios int) *progress {
	return &progress{w: w, lines: lines, total: total, nScen: scenarios, start: time.Now()}
}

// left estimates the time the samples not done yet take, from the mean
// so far ("" before the first sample).
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
		eta = ", about " + l + " left"
	}
	fmt.Fprintf(p.w, "\r\033[K[%d/%d] %s on %s, sample %d/%d%s", p.done+1, p.total, scenario, store, k, count, eta)
	p.live = true
}

// sampleDone counts a sample done.
func (p *progress) sampleDone() { p.done++ }

// interrupt ends the terminal's live line, for another line to follow.
func (p *progress) interrupt() {
	if p.w != nil && p.live {
		fmt.Fprint(p.w, "\r\033[K")
		p.live = false
	}
}

// startScenario notes the start of a scenario.
func (p *progress) startScenario() {
	p.scen, p.scenN = time.Now(), p.done
}

// scenarioDone writes, in lines mode, the line of the i-th scenario
// (from 0), just finished.
func (p *progress) scenarioDone(i int, name string) {
	if p.w == nil || !p.lines {
		return
	}
	took := time.Since(p.scen).Round(time.Second)
	left := p.nScen - i - 1
	tail := fmt.Sprintf("%s in all, %s", plural(p.done, "sample"), time.Since(p.start).Round(time.Second))
	if left > 0 {
		tail = fmt.Sprintf("%s left, about %s", plural(left, "scenario"), p.left())
	}
	fmt.Fprintf(p.w, "[%d/%d] %s: %s in %s; %s\n", i+1, p.nScen, name, plural(p.done-p.scenN, "sample"), took, tail)
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
