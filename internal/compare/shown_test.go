package compare

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/certbench/certbench/internal/table"
	"github.com/certbench/certbench/results"
)

// TestShowsWhatInforms: the text and Markdown tables leave out what
// carries no information, each kind said once (a note, or one footnote
// that the cells refer to): a
// goroutines table of zeros; maxrss-B, the process's peak RSS, compared
// between stores of one file (one process); an interval that cannot be
// written as a percentage of a median of 0 (benchstat's "± ?"); and
// benchmath's "all samples are equal". Between two files, maxrss-B is
// compared.
func TestShowsWhatInforms(t *testing.T) {
	var b strings.Builder
	for i := range 6 {
		gc := 0 // the optimized store's GC CPU: 0 but in one sample
		if i == 5 {
			gc = 4000
		}
		fmt.Fprintf(&b, "BenchmarkChurn/scenario=startup-10000/store=naive 1 %d ns/op 0 goroutines 271000000 maxrss-B %d gc-cpu-ns/op\n", 2000000+i, 90000+i)
		fmt.Fprintf(&b, "BenchmarkChurn/scenario=startup-10000/store=optimized 1 %d ns/op 0 goroutines 271000000 maxrss-B %d gc-cpu-ns/op\n", 250000+i, gc)
	}
	b.WriteString("Unit goroutines assume=exact\n")
	one := writeFile(t, "one.txt", b.String())
	r := mustBuild(t, Options{}, one)
	var text, md bytes.Buffer
	if err := writeText(r, &text); err != nil {
		t.Fatal(err)
	}
	if err := writeMarkdown(r, &md); err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"text": text.String(), "markdown": md.String()} {
		for _, gone := range []string{"goroutines │", "### goroutines", "maxrss-B │", "### maxrss-B", "± ?", "± ∞", "all samples are equal"} {
			if strings.Contains(out, gone) {
				t.Errorf("%s shows %q:\n%s", name, gone, out)
			}
		}
		for _, once := range []string{
			"not shown: goroutines (0 in every sample); maxrss-B (the process's peak RSS, and the columns of each row come from one file, whose stores certbench run measures in one process)",
			CorrectionNote,
			"no ± interval: the confidence interval reaches 0, or the median is 0 and the interval is not: no percentage of the median expresses it",
		} {
			if n := strings.Count(out, once); n != 1 {
				t.Errorf("%s says %q %d times, want once:\n%s", name, once, n, out)
			}
		}
	}
	// The tables stay in the report (CSV and JSON show them).
	if r.Table("goroutines") == nil || r.Table("maxrss-B") == nil || r.Table("maxrss-B").Hidden == "" {
		t.Error("hidden tables left the report")
	}

	// Base and head in two files ran in two processes: maxrss-B compares.
	base := writeFile(t, "base.txt", strings.ReplaceAll(b.String(), "store=optimized", "store=naive-again"))
	r = mustBuild(t, FileOptions(), base, one)
	if h := r.Table("maxrss-B").Hidden; h != "" {
		t.Errorf("maxrss-B between files hidden: %s", h)
	}
}

// TestAbsentPeak: a store whose refreshes' peak heap was not read has a
// "-" in the peak-B table that says why, not a blank.
func TestAbsentPeak(t *testing.T) {
	var b strings.Builder
	for i := range 6 {
		fmt.Fprintf(&b, "BenchmarkChurn/scenario=rotate-10-of-100/store=naive 10 %d ns/op %d peak-B\n", 2000000+i, 140000+i)
		fmt.Fprintf(&b, "BenchmarkChurn/scenario=rotate-10-of-100/store=optimized 10 %d ns/op\n", 250000+i)
	}
	r := mustBuild(t, Options{}, writeFile(t, "peak.txt", b.String()))
	var text bytes.Buffer
	if err := writeText(r, &text); err != nil {
		t.Fatal(err)
	}
	if out := text.String(); !strings.Contains(out, "- ¹") || !strings.Contains(out, "¹ "+results.Absent(results.UnitPeak)) {
		t.Errorf("the optimized store's absent peak-B is not a noted \"-\":\n%s", out)
	}
}

// TestAbsentPeakLeftOut: a store left out of a scenario (compare's quick
// plan) has no result there at all; its empty peak-B cell does not claim
// that the peak was not read.
func TestAbsentPeakLeftOut(t *testing.T) {
	var b strings.Builder
	for i := range 6 {
		fmt.Fprintf(&b, "BenchmarkChurn/scenario=rotate-10-of-100/store=naive 10 %d ns/op 700000 B/op %d peak-B\n", 2000000+i, 400000+i)
		fmt.Fprintf(&b, "BenchmarkChurn/scenario=rotate-10-of-100/store=optimized 10 %d ns/op 40000 B/op\n", 250000+i)
		fmt.Fprintf(&b, "BenchmarkChurn/scenario=noop-10000/store=optimized 10 %d ns/op 0 B/op 0 peak-B\n", 7000000+i)
	}
	r := mustBuild(t, Options{}, writeFile(t, "peak.txt", b.String()))
	var text bytes.Buffer
	if err := writeText(r, &text); err != nil {
		t.Fatal(err)
	}
	out := text.String()
	peak, n := out[strings.Index(out, "peak-B"):], 0
	for _, l := range strings.Split(peak, "\n") {
		if strings.Contains(l, "¹") && !strings.HasPrefix(l, "¹") {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d rows with a noted cell in the peak-B table, want 1 (optimized's rotate-10-of-100; naive did not run noop-10000):\n%s", n, peak)
	}
}

// TestNewAllocations: an allocation where the base has none is "new
// allocations" in every renderer, not benchstat's "?".
func TestNewAllocations(t *testing.T) {
	var b strings.Builder
	for i := range 6 {
		fmt.Fprintf(&b, "BenchmarkChurn/scenario=lookup-1000/store=old 1000 %d ns/op 0 B/op 0 allocs/op\n", 200+i)
		fmt.Fprintf(&b, "BenchmarkChurn/scenario=lookup-1000/store=new 1000 %d ns/op 2.4 B/op 0.1 allocs/op\n", 200+i)
	}
	b.WriteString("Unit B/op assume=exact\nUnit allocs/op assume=exact\n")
	r := mustBuild(t, Options{}, writeFile(t, "new.txt", b.String()))
	for _, format := range []string{"text", "markdown", "csv", "html", "json"} {
		var out bytes.Buffer
		if err := table.Write(&out, format, r.Page(), r); err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(out.String(), "new allocations"); n < 2 || strings.Contains(out.String(), " ?") {
			t.Errorf("%s: %d \"new allocations\" (want one per unit, B/op and allocs/op), or a \"?\":\n%s", format, n, out.String())
		}
	}
}
