#!/usr/bin/env bash
# gate-aa.sh: measure the gate's false-alarm rate with A/A comparisons.
#
#   scripts/gate-aa.sh [RUNS]
#
# Runs ONE certbench binary as both "base" and "head", exactly as
# ci-compare.sh runs two: CERTBENCH_COUNT rounds of `certbench run --count 1
# --round N` per side in ABBA order, merged per side (`certbench merge`),
# then `certbench gate`. Nothing differs between the sides, so every
# regression (or improvement) the gate reports is a false alarm. This is
# repeated RUNS times (default 20) and the false alarms are counted per
# metric, gating the same files six ways: --test auto (the default:
# paired where the signed-rank test can decide, else the U test), paired by
# round (--test paired, the Wilcoxon signed-rank test) and unpaired (--test
# unpaired, the U test), each with the configured correction and with
# --correction none. Requires jq.
#
# With CERTBENCH_INSTRUMENT=simulate (or both), each run also measures both
# sides on the simulated CPU (`certbench run --instrument simulate --count
# CERTBENCH_SIM_COUNT`, one process per side, the two at once, under
# valgrind's callgrind) and gates those files: false alarms on
# instructions/op (and the allocation counts of that pass), and the spread
# (max/min - 1) of instructions/op over each run's samples of both sides,
# per scenario. simulate measures only that; both measures the clock too,
# in the same runs.
#
# Environment:
#   CERTBENCH_STORES     stores (default: optimized)
#   CERTBENCH_SCENARIOS  scenarios, comma-separated (default: the default set)
#   CERTBENCH_COUNT      samples per side (default 10, as ci-compare.sh)
#   CERTBENCH_INTERLEAVE scenario (default, as ci-compare.sh: one process per
#                        scenario and side, back to back) or round (one
#                        process per side running every scenario)
#   CERTBENCH_OUT        output directory (default: certbench-aa)
#   CERTBENCH_BIN        binary to test (default: built from the working tree)
#   CERTBENCH_GATE_ARGS  extra gate arguments (default: --config with the
#                        repository's certbench.yaml, which gates cpu-sec/op)
#   CERTBENCH_REGATE     1: do not measure, re-gate the files already in OUT
#   CERTBENCH_INSTRUMENT wall (default), simulate or both (see above)
#   CERTBENCH_SIM_COUNT  samples per side of the simulated pass (default 5)
#
# Output: OUT/run-N/{a,b}.txt and gate-MODE.json per run (simulated:
# sim-{a,b}.txt, sim-gate.json), and OUT/report.txt
# with the counts (also printed), one row per metric, one column per way of
# gating. Exit status 0 unless something failed to run.
set -euo pipefail

die() { echo "gate-aa: $*" >&2; exit 2; }
command -v jq >/dev/null || die "jq is required"
root=$(git rev-parse --show-toplevel 2>/dev/null) || root=$(cd "$(dirname "$0")/.." && pwd)

runs=${1:-20}
stores=${CERTBENCH_STORES:-optimized}
count=${CERTBENCH_COUNT:-10}
interleave=${CERTBENCH_INTERLEAVE:-scenario}
[[ $interleave == scenario || $interleave == round ]] || die "CERTBENCH_INTERLEAVE=$interleave: want scenario or round"
out=${CERTBENCH_OUT:-certbench-aa}
instrument=${CERTBENCH_INSTRUMENT:-wall}
[[ $instrument == wall || $instrument == simulate || $instrument == both ]] ||
  die "CERTBENCH_INSTRUMENT=$instrument: want wall, simulate or both"
sim_count=${CERTBENCH_SIM_COUNT:-5}
wall=1 sim=0
if [[ $instrument != wall ]]; then sim=1; fi
if [[ $instrument == simulate ]]; then wall=0; fi
# shellcheck disable=SC2206
gate_args=(${CERTBENCH_GATE_ARGS:-})
if [[ -z "${CERTBENCH_GATE_ARGS:-}" && -f "$root/certbench.yaml" ]]; then
  gate_args=(--config "$root/certbench.yaml")
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)

bin=${CERTBENCH_BIN:-}
if [[ -z "$bin" ]]; then
  bin=$out/certbench
  if [[ "${CERTBENCH_REGATE:-}" != 1 || ! -x "$bin" ]]; then
    (cd "$root" && go build -o "$bin" ./cmd/certbench) || die "cannot build certbench"
  fi
fi
# The default scenario set, from `certbench list --format json` (a binary
# that predates it: from the human listing, "* name" lines).
default_scenarios() {
  "$bin" list --format json 2>/dev/null | jq -r '.scenarios[] | select(.default) | .name' ||
    "$bin" list | awk '/^SCENARIOS/{s=1;next} s&&$1=="*"{print $2}'
}
scenarios=${CERTBENCH_SCENARIOS:-$(default_scenarios | paste -sd, -)}

start=$(date +%s)
if [[ "${CERTBENCH_REGATE:-}" != 1 ]]; then
  echo "gate-aa: $runs A/A runs of $bin; stores $stores; scenarios $scenarios; instrument $instrument" >&2
  for ((r = 1; r <= runs; r++)); do
    d=$out/run-$r
    rm -rf "$d"
    mkdir -p "$d/raw"
    if [[ $sim == 1 ]]; then
      t0=$(date +%s)
      pids=()
      for side in a b; do
        "$bin" run --instrument simulate -q --count "$sim_count" --stores "$stores" --scenarios "$scenarios" \
          -o "$d/sim-$side.txt" 2>"$d/sim-$side.log" &
        pids+=($!)
      done
      for pid in "${pids[@]}"; do wait "$pid" || die "run $r: certbench run --instrument simulate failed (see $d/sim-*.log)"; done
      echo "gate-aa: run $r/$runs: simulated pass in $(($(date +%s) - t0))s" >&2
    fi
    if [[ $wall == 0 ]]; then continue; fi
    groups=("$scenarios")
    if [[ $interleave == scenario ]]; then IFS=, read -r -a groups <<<"$scenarios"; fi
    for ((i = 1; i <= count; i++)); do
      for ((g = 0; g < ${#groups[@]}; g++)); do
        for side in $( ((i % 2)) && echo "a b" || echo "b a"); do
          "$bin" run --count 1 -q --round "$i" --stores "$stores" --scenarios "${groups[g]}" -o "$d/raw/$side.$i.$g.txt" ||
            die "run $r round $i: certbench run failed"
        done
      done
    done
    for side in a b; do
      files=()
      for ((i = 1; i <= count; i++)); do
        for ((g = 0; g < ${#groups[@]}; g++)); do files+=("$d/raw/$side.$i.$g.txt"); done
      done
      "$bin" merge -o "$d/$side.txt" "${files[@]}" || die "run $r: certbench merge failed"
    done
    echo "gate-aa: run $r/$runs measured ($(($(date +%s) - start))s so far)" >&2
  done
fi

units=("sec/op" "cpu-sec/op" "B/op" "allocs/op" "retained-B" "retained-B/cert" "goroutines")
modes=(auto paired unpaired auto-none paired-none unpaired-none)
declare -A fa failed paired_n undecided sim_fa
n=0 sim_n=0 sim_failed=0
sim_units=("instructions/op" "B/op" "allocs/op" "retained-B" "goroutines")
for d in "$out"/run-*/; do
  if [[ -f "$d/sim-a.txt" && -f "$d/sim-b.txt" ]]; then
    sim_n=$((sim_n + 1))
    rc=0
    "$bin" gate "${gate_args[@]+"${gate_args[@]}"}" --format json -o "$d/sim-gate.json" "$d/sim-a.txt" "$d/sim-b.txt" \
      2>"$d/sim-gate.err" || rc=$?
    [[ $rc -le 1 ]] || die "$d: gate of the simulated files exit $rc: $(cat "$d/sim-gate.err")"
    if [[ $rc -eq 1 ]]; then sim_failed=$((sim_failed + 1)); fi
    for u in $(jq -r '[.findings[] | select(.status=="regressed" or .status=="improved") | .unit] | unique | .[]' "$d/sim-gate.json"); do
      sim_fa[$u]=$((${sim_fa[$u]:-0} + 1))
    done
  fi
  [[ -f "$d/a.txt" && -f "$d/b.txt" ]] || continue
  n=$((n + 1))
  for mode in "${modes[@]}"; do
    extra=(--test "${mode%-none}")
    [[ $mode == *-none ]] && extra+=(--correction none)
    rc=0
    "$bin" gate "${gate_args[@]+"${gate_args[@]}"}" "${extra[@]}" --format json \
      -o "$d/gate-$mode.json" "$d/a.txt" "$d/b.txt" 2>"$d/gate-$mode.err" || rc=$?
    [[ $rc -le 1 ]] || die "$d: gate exit $rc: $(cat "$d/gate-$mode.err")"
    if [[ $rc -eq 1 ]]; then failed[$mode]=$((${failed[$mode]:-0} + 1)); fi
    # A false alarm: any significant change beyond the threshold, either way.
    for u in $(jq -r '[.findings[] | select(.status=="regressed" or .status=="improved") | .unit] | unique | .[]' "$d/gate-$mode.json"); do
      fa[$mode,$u]=$((${fa[$mode,$u]:-0} + 1))
    done
    paired_n[$mode]=$((${paired_n[$mode]:-0} + $(jq '[.findings[] | select(.method=="signed-rank")] | length' "$d/gate-$mode.json")))
    if [[ $(jq '[.findings[] | select(.status=="too-few-samples")] | length' "$d/gate-$mode.json") -gt 0 ]]; then
      undecided[$mode]=$((${undecided[$mode]:-0} + 1))
    fi
  done
done
[[ $n -gt 0 || $sim_n -gt 0 ]] || die "no runs in $out"

# instructions/op per scenario: the spread (max/min - 1) over each run's
# samples of both sides, the largest over the runs, and over all samples.
sim_spread=""
if [[ $sim_n -gt 0 ]]; then
  sim_spread=$(for d in "$out"/run-*/; do
    [[ -f "$d/sim-a.txt" && -f "$d/sim-b.txt" ]] || continue
    cat "$d/sim-a.txt" "$d/sim-b.txt" | awk -v run="$d" '
      /^Benchmark/ {
        name=$1; sub(/^BenchmarkChurn\//, "", name); sub(/-[0-9]+$/, "", name)
        for (i = 3; i < NF; i += 2) if ($(i+1) == "instructions/op") print run, name, $i
      }'
  done | awk '
    { k = $2; v = $3 + 0; r = $1
      if (!((r, k) in lo) || v < lo[r, k]) lo[r, k] = v
      if (!((r, k) in hi) || v > hi[r, k]) hi[r, k] = v
      if (!(k in alo) || v < alo[k]) alo[k] = v
      if (!(k in ahi) || v > ahi[k]) ahi[k] = v
      cnt[k]++; runs[r, k] = 1; keys[k] = 1 }
    END {
      for (rk in runs) { split(rk, p, SUBSEP); s = hi[p[1], p[2]] / lo[p[1], p[2]] - 1; if (s > worst[p[2]]) worst[p[2]] = s; nr[p[2]]++ }
      for (k in keys) printf "  %-50s %4d samples in %2d runs  min %-14.1f max %-14.1f  worst run %.4f%%  all runs %.4f%%\n", k, cnt[k], nr[k], alo[k], ahi[k], 100 * worst[k], 100 * (ahi[k] / alo[k] - 1)
    }' | sort)
fi

# Spread of the count metrics across all samples of all runs, per scenario
# (clock runs only: CERTBENCH_INSTRUMENT=simulate makes none).
spread=""
[[ $n -gt 0 ]] && spread=$(cat "$out"/run-*/a.txt "$out"/run-*/b.txt | awk '
  /^Benchmark/ {
    name=$1; sub(/^BenchmarkChurn\//, "", name); sub(/-[0-9]+$/, "", name)
    for (i = 3; i < NF; i += 2) {
      u = $(i+1); v = $i + 0
      if (u != "B/op" && u != "allocs/op") continue
      k = name " " u
      if (!(k in lo) || v < lo[k]) lo[k] = v
      if (!(k in hi) || v > hi[k]) hi[k] = v
      cnt[k]++
      if (!((k, v) in seen)) { seen[k, v] = 1; distinct[k]++ }
    }
  }
  END { for (k in lo) printf "  %-60s %6d samples  min %-12.0f max %-12.0f %d distinct\n", k, cnt[k], lo[k], hi[k], distinct[k] }' | sort)

{
  if [[ $sim_n -gt 0 ]]; then
    echo "A/A on the simulated CPU: $sim_n runs; binary $bin; stores $stores; $sim_count samples per side (one process per side, under callgrind)"
    echo "scenarios: $scenarios"
    echo "gate args: ${gate_args[*]:-(defaults)}"
    echo
    echo "runs with a false alarm (a significant change beyond the threshold, either way), per metric:"
    for u in "${sim_units[@]}"; do printf "  %-18s %s\n" "$u" "${sim_fa[$u]:-0}/$sim_n"; done
    printf "  %-18s %s\n" "gate failed" "$sim_failed/$sim_n"
    echo
    echo "instructions/op spread (max/min - 1) per scenario: the worst run's $((2 * sim_count)) samples (both sides), and all runs' together:"
    echo "$sim_spread"
    echo
  fi
  if [[ $n -eq 0 ]]; then
    echo "wall time: $(($(date +%s) - start))s"
    exit 0
  fi
  echo "A/A false alarms: $n runs; binary $bin; stores $stores; count $count per side (ABBA, interleaved by $interleave)"
  echo "scenarios: $scenarios"
  echo "gate args: ${gate_args[*]:-(defaults)}"
  echo
  echo "runs with a false alarm (a significant change beyond the threshold, either way), per metric:"
  row() { printf "  %-18s %-8s %-8s %-10s %-12s %-12s %s\n" "$@"; }
  row "metric" "auto" "paired" "unpaired" "auto/none" "paired/none" "unpaired/none"
  for u in "${units[@]}"; do
    cells=()
    for mode in "${modes[@]}"; do cells+=("${fa[$mode,$u]:-0}/$n"); done
    row "$u" "${cells[@]}"
  done
  cells=()
  for mode in "${modes[@]}"; do cells+=("${undecided[$mode]:-0}/$n"); done
  row "undecided metric" "${cells[@]}"
  cells=()
  for mode in "${modes[@]}"; do cells+=("${failed[$mode]:-0}/$n"); done
  row "gate failed" "${cells[@]}"
  echo "  (auto: the policy's default, signed-rank by round where it can decide, else the U test;"
  echo "   /none: --correction none; undecided: a metric too-few-samples, which fails the gate)"
  echo "  (comparisons decided by the signed-rank test under --test paired: ${paired_n[paired]:-0} in $n runs; the rest were exact)"
  echo
  echo "B/op and allocs/op across all samples (both sides, all runs):"
  echo "$spread"
  echo
  echo "wall time: $(($(date +%s) - start))s"
} | tee "$out/report.txt"
