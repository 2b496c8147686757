#!/usr/bin/env bash
# gate-sensitivity.sh: measure how often certbench gate catches known
# regressions (and, for control, how often it fails on no change).
#
#   scripts/gate-sensitivity.sh [RUNS] [extra test flags...]
#
# Runs TestSensitivity in internal/regressions: for each variant of the
# optimized store (none = A/A control, allocs = one more allocation per
# certificate per refresh, bytes = +5% B/op, slow = +N% time per refresh
# and per lookup, N from -slow, default 25, several allowed: -slow=5,10),
# RUNS times (default 10): CERTBENCH_COUNT (default 10, as ci-compare.sh)
# rounds of one process per side in ABBA order, each sample with its round,
# as scripts/ci-compare.sh runs them, then the gate with the repository's
# certbench.yaml three times on the same files: auto (the default: paired
# where the signed-rank test can decide, else the U test), paired
# (signed-rank by round) and unpaired (U test). It prints the failure rate
# per variant, test and metric, and one table of sec/op and cpu-sec/op per
# scenario (none: false alarms; slow: slowdowns caught; per test), and
# fails if allocs or bytes are not caught every time or a slow variant in
# fewer than 90% of runs (auto).
#
# Extra flags go to the test, e.g. -scenarios=default (all default
# scenarios; the default is a fast subset), -variants=none,slow -slow=5,10,
# -config=FILE ('' for the built-in policy), -out=DIR (keep every run's
# files and verdicts).
#
# With CERTBENCH_INSTRUMENT=simulate it runs TestSensitivitySimulated
# instead: the simulated CPU (certbench run --simulate; valgrind
# needed), RUNS runs per variant of one process per side, the two at once,
# CERTBENCH_SIM_COUNT samples each (default 5), gated with the repository's
# certbench.yaml. Its variants are none (A/A) and work (-work=1,0.5: extra
# instructions per op, each a percentage of the store's own instructions/op
# in the scenario, measured first); it prints per scenario the runs with a
# false alarm or with the change caught on instructions/op, and the spread
# of instructions/op over a run's samples. For example:
#
#   CERTBENCH_INSTRUMENT=simulate scripts/gate-sensitivity.sh 10 -variants=work -work=1,0.5 \
#     -scenarios=rotate-10-of-100,renew-1-of-1000,noop-10000,lookup-1000
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-10}
shift || true
if [[ ${CERTBENCH_INSTRUMENT:-wall} == simulate ]]; then
  exec go test ./internal/regressions -run '^TestSensitivitySimulated$' -count=1 -timeout 12h -v \
    -args -sim-runs="$runs" -sim-count="${CERTBENCH_SIM_COUNT:-5}" "$@"
fi
exec go test ./internal/regressions -run '^TestSensitivity$' -count=1 -timeout 3h -v \
  -args -runs="$runs" -count="${CERTBENCH_COUNT:-10}" "$@"
