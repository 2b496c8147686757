// Package gate decides whether a change regressed: it compares a head run
// of certbench with a base run, metric by metric, and returns a Verdict
// that a CI job turns into an exit code (certbench gate, scripts/ci-compare.sh).
//
// # Decision
//
// [Evaluate] takes two result sets (read with results.Load) and a
// [Policy]. For every benchmark (scenario × store) present on both sides
// and every unit with a threshold, it makes one [Finding]:
//
//   - Counts (B/op, allocs/op, goroutines) whose samples are identical
//     within each side, with at least [results.MinExactSamples] per side, are
//     compared exactly: fixed op counts make them deterministic, so any
//     difference is real and no test is needed. The change is a regression
//     if it exceeds the threshold.
//   - Everything else is tested, as Policy.Test chooses: samples that
//     pair one-to-one by their "round" configuration line (certbench run
//     --round) by a two-sided Wilcoxon signed-rank test of the per-round
//     log ratios head/base, the change being the Hodges-Lehmann estimate
//     of the ratio ([SignedRank]; see signedrank.go for exactness, ties
//     and zeros); others by their medians, with a two-sided Mann-Whitney
//     U test from golang.org/x/perf/benchmath (through package compare's
//     cells; [UTest]). The p-values of one unit's tests are
//     corrected for multiple comparisons ([Holm] by default), so that the
//     chance of a false alarm per metric stays below Alpha however many
//     scenarios run. A regression is a corrected p-value below Alpha and a
//     median change beyond the threshold; an improvement is the mirror
//     image.
//   - The simulated CPU's units (instructions/op, est-cycles/op: certbench
//     run --instrument simulate) are near-exact: a window repeats its count
//     to within a few hundredths of a percent, whatever else the machine
//     runs. Identical on each side, they are compared exactly; otherwise
//     [NearExact]: the medians against the threshold (one outlier window of
//     four or more cannot move a median), and a Mann-Whitney U test at
//     Alpha, not corrected, that only asks the two sides to separate. A
//     false alarm would need the medians to differ by more than a threshold
//     set an order of magnitude above the noise, so the correction, which
//     at 5 samples a side would leave 8 benchmarks unreachable, is not
//     needed; where a store's own work varies as much as the threshold,
//     the test still asks for separated samples. Ties are no problem: the
//     test is not what decides.
//
// A change must be both significant and beyond its threshold: thresholds
// say how much change matters, the test says whether the change is real.
//
// # Thresholds
//
// A [Threshold] is "+N%" (relative to |base|), an absolute amount with its
// unit ("+2ms", "+500us" for sec/op; "+1KiB", "+512B" for B/op and
// retained-B; "+1allocs"; "+1goroutines"), "+0" or "off". A bare number
// is an error ([ParseThreshold]): "sec/op: 10" would be ten seconds, not
// ten percent; instructions and cycles have amounts of their own
// ("+1000instructions", "+500cycles"). [DefaultPolicy] uses allocs/op
// +0%, B/op +2%, sec/op +10%, retained-B +2% (retained-B/cert follows
// retained-B unless set), goroutines +0, instructions/op +0.25% and
// est-cycles/op +1%.
//
// Results measured by different instruments (the clock, or the simulated
// CPU: the "instrument" configuration line) are refused
// ([ErrMixedInstruments]): gate each instrument's files separately.
//
// [ParseConfig] decodes the "gate" section of a certbench.yaml file into
// a [Policy] (its yaml tags are the keys), including per scenario/store
// [Override]s, and checks everything: every error names file:line:column
// and the field (unknown or repeated fields, wrong types, a bare or
// negative threshold, an amount of the wrong measure, alpha outside
// (0, 1), a min_samples below [MinSamplesFor] alpha, an override that
// matches every benchmark or sets nothing). Zero is never "the default":
// a field left out is. [ResolvePolicy] applies the settings given as
// flags (named after the keys: min_samples is --min-samples; [Thresholds]
// is the value of --max) over the file; "certbench gate" reads
// ./certbench.yaml when no --config is given and names the policy and
// flags it applied in its report ([Policy.Source]).
//
// # Incomplete or doubtful data
//
// The gate never passes for lack of data:
//
//   - Fewer than MinSamples (default 4, at least [MinSamplesFor] alpha in
//     a policy file or flag) samples on a side, for a metric
//     that is not exact, is TooFewSamples and fails the gate. So does a
//     sample size at which the U test could not reach significance after
//     the correction (with 4 samples a side, one test can reach p = 0.029,
//     but two Holm-corrected tests cannot); the note says how many samples
//     are needed. One sample a side is never exact.
//   - A benchmark (or metric) of base missing in head fails
//     (MissingInHead, Missing) unless AllowMissing, which makes it a
//     warning. A benchmark only in head is reported (NewInHead), not
//     gated: there is nothing to compare it with.
//   - Results from different machines or Go versions (goos, goarch, cpu,
//     go or gomaxprocs differing between or within the sides) are a
//     warning (MixedMachines), a failure if Strict.
//   - Inputs that cannot be compared at all (no benchmark in common) are
//     an error wrapping [ErrInput]; unreadable or malformed files are
//     results.Load's errors, which name file:line.
//
// # Allocation sites
//
// [Verdict.AddSites] names, for each allocs/op or B/op regression, the
// sites whose allocations grew, from a [SiteFinder]. Package blame
// implements it on the heap profiles that "certbench profile" writes for
// base and head (the store lines that allocate more per op); gate itself
// depends on no profile or runner package.
//
// # Output
//
// A Verdict is plain data; [Verdict.WriteText] (logs),
// [Verdict.WriteMarkdown] (pull-request comment, $GITHUB_STEP_SUMMARY) and
// [Verdict.WriteJSON] (schema [JSONSchema], documented on WriteJSON)
// render it. Each lists what regressed, what could not be decided and
// what improved, then failed checks and warnings; unchanged comparisons
// are counted (the Markdown folds them into a table).
//
// # Why allocation counts are not always exact
//
// bench reads B/op and allocs/op from the process-wide runtime.MemStats
// counters, which also count what the Go runtime allocates for itself
// during the measured ops. Measured on the optimized store (A/A runs,
// one process per sample as scripts/ci-compare.sh runs them): in the
// first scenario of a process the runtime starts a new OS thread (M)
// during the timed ops in about half the samples (runtime.newm, allocm,
// malg, mProfStackInit: about 5.5 KB in 6 objects), which moves allocs/op
// by one and B/op by ~0.6% for a 10-op sample; later scenarios see it
// rarely, plus occasional 10-220 byte runtime allocations. So a count
// unit is compared exactly only when every sample agrees, and with the U
// test otherwise: the runtime's extra objects land randomly on either side
// and cannot make the medians of one side consistently higher.
package gate
