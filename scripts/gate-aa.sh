#!/usr/bin/env bash
# gate-aa.sh: measure the gate's false-alarm rate with A/A comparisons.
#
#   scripts/gate-aa.sh [RUNS] [certbench ab flags]
#
# Runs `certbench ab` RUNS times (default 20) with HEAD as both base and
# head (BASE_REF HEAD, no cache: HEAD's commit and the working tree, which
# must be clean, built each run), so every regression the gate reports is a
# false alarm; CERTBENCH_STORES (default optimized), CERTBENCH_COUNT,
# CERTBENCH_SCENARIOS and ab's other variables (certbench ab --help)
# apply, and CERTBENCH_INSTRUMENT=simulate adds the
# simulated CPU's pass (--simulate). Each run's files are in
# CERTBENCH_OUT/run-N (default certbench-aa); the report, also printed, is
# CERTBENCH_OUT/report.txt: the runs with a false alarm and the regressed
# rows of each. For the false-alarm rate per test (auto, paired, unpaired)
# see scripts/gate-sensitivity.sh (variant none).
#
# Exit status 0 unless a run failed to run (exit 2).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
runs=${1:-20}
shift || true
[[ $runs =~ ^[1-9][0-9]*$ ]] || { echo "gate-aa: RUNS $runs: want a positive number" >&2; exit 2; }
out=${CERTBENCH_OUT:-certbench-aa}
export CERTBENCH_STORES=${CERTBENCH_STORES:-optimized}
if [[ ${CERTBENCH_INSTRUMENT:-wall} != wall ]]; then export CERTBENCH_SIMULATE=1; fi
out=$(mkdir -p "$out" && cd "$out" && pwd)
cd "$root"
[[ -z $(git status --porcelain --untracked-files=no) ]] || { echo "gate-aa: the working tree has changes: commit or stash them (HEAD is both sides)" >&2; exit 2; }
for ((i = 1; i <= runs; i++)); do
  rc=0
  CERTBENCH_OUT=$out/run-$i "$here/certbench-ci.sh" --module . --cache '' "$@" HEAD >"$out/run-$i.log" 2>&1 || rc=$?
  case $rc in
    0) echo "run $i: pass" ;;
    1) echo "run $i: false alarm"; grep -h -A20 '^REGRESSED' "$out/run-$i"/*gate.txt | grep -v '^REGRESSED' | sed 's/^/  /' || true ;;
    *) echo "run $i: exit $rc (see $out/run-$i.log)" >&2; exit 2 ;;
  esac
done | tee "$out/report.txt"
echo "$(grep -c 'false alarm' "$out/report.txt" || true) of $runs A/A runs with a false alarm" | tee -a "$out/report.txt"
