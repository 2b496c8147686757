#!/usr/bin/env bash
# certbench-ci.sh: gate a change to any certificate store, in any git
# repository, on certbench's allocation, instruction and time metrics.
#
#   certbench-ci.sh [certbench ab flags] [BASE_REF]
#
# Builds certbench from the checkout this script is in and runs
# `certbench ab` in the working directory (see `certbench ab --help`): it
# builds the repository's certbench binary at the merge base of BASE_REF and
# HEAD and from the working tree, runs both in interleaved rounds, gates,
# and profiles after an allocation regression. The action (action.yml) sets
# these environment variables, each the ab flag of the same name:
#   CERTBENCH_DIR --dir, CERTBENCH_MAIN --main, CERTBENCH_BUILD --build,
#   CERTBENCH_STORES --stores, CERTBENCH_SCENARIOS --scenarios,
#   CERTBENCH_COUNT --count, CERTBENCH_OPS --ops, CERTBENCH_OUT --out,
#   CERTBENCH_INTERLEAVE --interleave, CERTBENCH_CONFIG --config,
#   CERTBENCH_SIMULATE=1 --simulate, CERTBENCH_SIM_COUNT --sim-count,
#   CERTBENCH_WALL_MAX --wall-max, CERTBENCH_BASE_REPLACE (space-separated)
#   --base-replace, CERTBENCH_CACHE --cache;
#   CERTBENCH_GATE_ARGS: more ab flags, split on spaces (e.g. --max sec/op=off).
# Flags given on the command line come after them and win.
#
# Exit status: that of certbench ab (0 pass, 1 regression, 2 bad input or
# a failed build).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
if [[ ${1:-} == -h || ${1:-} == --help ]]; then
  sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"
  exit 0
fi
args=()
flag() { if [[ -n ${2:-} ]]; then args+=("$1" "$2"); fi; }
flag --dir "${CERTBENCH_DIR:-}"
flag --main "${CERTBENCH_MAIN:-}"
flag --build "${CERTBENCH_BUILD:-}"
flag --stores "${CERTBENCH_STORES:-}"
flag --scenarios "${CERTBENCH_SCENARIOS:-}"
flag --count "${CERTBENCH_COUNT:-}"
flag --ops "${CERTBENCH_OPS:-}"
flag --out "${CERTBENCH_OUT:-}"
flag --interleave "${CERTBENCH_INTERLEAVE:-}"
flag --config "${CERTBENCH_CONFIG:-}"
flag --sim-count "${CERTBENCH_SIM_COUNT:-}"
flag --wall-max "${CERTBENCH_WALL_MAX:-}"
flag --cache "${CERTBENCH_CACHE:-}"
case ${CERTBENCH_SIMULATE:-0} in
  1 | true | yes) args+=(--simulate) ;;
  0 | false | no | "") ;;
  *) echo "certbench-ci: CERTBENCH_SIMULATE=$CERTBENCH_SIMULATE: want 1 or 0 (true or false)" >&2; exit 2 ;;
esac
for r in ${CERTBENCH_BASE_REPLACE:-}; do args+=(--base-replace "$r"); done
# shellcheck disable=SC2206 # split on spaces, documented
args+=(${CERTBENCH_GATE_ARGS:-})

bin=$(mktemp -d)/certbench
trap 'rm -rf "$(dirname "$bin")"' EXIT
go build -C "$here" -o "$bin" ./cmd/certbench || { echo "certbench-ci: cannot build certbench in $here" >&2; exit 2; }
rc=0
"$bin" ab "${args[@]+"${args[@]}"}" "$@" || rc=$?
exit "$rc"
