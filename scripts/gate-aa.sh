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
#
# Output: OUT/run-N/{a,b}.txt and gate-MODE.json per run, and OUT/report.txt
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
  echo "gate-aa: $runs A/A runs of $bin; stores $stores; scenarios $scenarios; $count rounds per side" >&2
  for ((r = 1; r <= runs; r++)); do
    d=$out/run-$r
    rm -rf "$d"
    mkdir -p "$d/raw"
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
declare -A fa failed paired_n undecided
n=0
for d in "$out"/run-*/; do
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
[[ $n -gt 0 ]] || die "no runs in $out"

# Spread of the count metrics across all samples of all runs, per scenario.
spread=$(cat "$out"/run-*/a.txt "$out"/run-*/b.txt | awk '
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
