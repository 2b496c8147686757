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
# With CERTBENCH_HISTORY (git:REF, such as git:refs/notes/certbench, or a
# directory; docs/ci.md):
#   CERTBENCH_RECORD=1: run the working tree's binary and add its results to
#     the history as HEAD's (certbench history add), then push REF to origin;
#   else, if the history has results of the merge base of BASE_REF and HEAD
#     and of 3 of its 9 first-parent ancestors, run only HEAD and gate it against the history up to the merge base
#     (certbench gate --history; CERTBENCH_GATE_ARGS, --max and --no-config
#     go to gate), writing head.txt, gate.txt, summary.md (and sim-*) in the
#     output directory; if it has not, certbench ab as above.
#
# Exit status: that of certbench ab or gate (0 pass, 1 regression, 2 bad
# input or a failed build).
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
hist=${CERTBENCH_HISTORY:-}
ref=""
if [[ $hist == git:* ]]; then ref=${hist#git:}; fi
# What the history modes take from the command line ("--flag value" forms;
# ab takes the command line as it is).
simulate=""
if [[ " ${args[*]-} " == *" --simulate "* ]]; then simulate=1; fi
base_ref="" gate_args=()
a=("$@")
for ((i = 0; i < ${#a[@]}; i++)); do
  v=${a[i + 1]:-}
  case ${a[i]} in
    --stores) CERTBENCH_STORES=$v ;;
    --scenarios) CERTBENCH_SCENARIOS=$v ;;
    --count) CERTBENCH_COUNT=$v ;;
    --ops) CERTBENCH_OPS=$v ;;
    --sim-count) CERTBENCH_SIM_COUNT=$v ;;
    --out) CERTBENCH_OUT=$v ;;
    --config) CERTBENCH_CONFIG=$v ;;
    --main) CERTBENCH_MAIN=$v ;;
    --dir) CERTBENCH_DIR=$v ;;
    --build) CERTBENCH_BUILD=$v ;;
    --wall-max) CERTBENCH_WALL_MAX=$v ;;
    --max) gate_args+=(--max "$v") ;;
    --interleave | --cache | --base-replace | --base-tree) ;;
    --simulate) simulate=1; continue ;;
    --no-config) gate_args+=(--no-config); continue ;;
    -*) continue ;;
    *) base_ref=${a[i]}; continue ;;
  esac
  i=$((i + 1))
done
out=${CERTBENCH_OUT:-certbench-out}

# run_head runs the working tree's certbench binary (built as certbench ab
# builds a side) into $out/head.txt, and $out/sim-head.txt with simulate;
# its status is run's (1: a store failed, its results are still written).
run_head() {
  local mod rev sel=()
  mod=$(git rev-parse --show-toplevel)/${CERTBENCH_DIR:-$(git rev-parse --show-prefix)}
  rev=$(git rev-parse HEAD)
  export CERTBENCH_BIN=$out/bin/head CERTBENCH_REVISION=$rev
  export CERTBENCH_LDFLAGS="-X github.com/certbench/certbench/results.revision=$rev"
  mkdir -p "$out/bin"
  if [[ -n ${CERTBENCH_BUILD:-} ]]; then (cd "$mod" && bash -c "$CERTBENCH_BUILD"); else
    go build -C "$mod" -ldflags "$CERTBENCH_LDFLAGS" -o "$CERTBENCH_BIN" "${CERTBENCH_MAIN:-./cmd/certbench}"; fi ||
    { echo "certbench-ci: cannot build HEAD's certbench in $mod" >&2; exit 2; }
  if [[ -n ${CERTBENCH_STORES:-} ]]; then sel+=(--stores "$CERTBENCH_STORES"); fi
  if [[ -n ${CERTBENCH_SCENARIOS:-} ]]; then sel+=(--scenarios "$CERTBENCH_SCENARIOS"); fi
  if [[ -n ${CERTBENCH_OPS:-} ]]; then sel+=(--ops "$CERTBENCH_OPS"); fi
  local rc=0
  "$CERTBENCH_BIN" run -q "${sel[@]+"${sel[@]}"}" --count "${CERTBENCH_COUNT:-10}" -o "$out/head.txt" || rc=$?
  if [[ -n $simulate ]]; then
    "$CERTBENCH_BIN" run -q --instrument simulate "${sel[@]+"${sel[@]}"}" --count "${CERTBENCH_SIM_COUNT:-5}" -o "$out/sim-head.txt" || rc=$((rc > 0 ? rc : $?))
  fi
  return "$rc"
}

if [[ -n $ref ]]; then git fetch -q origin "+$ref:$ref" 2>/dev/null || echo "certbench-ci: origin has no $ref yet" >&2; fi
if [[ -n $hist && ${CERTBENCH_RECORD:-0} == 1 ]]; then
  run_head || { echo "certbench-ci: HEAD's run failed: nothing recorded" >&2; exit 2; }
  files=("$out/head.txt")
  if [[ -n $simulate ]]; then files+=("$out/sim-head.txt"); fi
  # Another job may push first: fetch its additions, add again (adding is
  # idempotent), push again.
  for try in 1 2 3 4 5; do
    "$bin" history add --history "$hist" --commit "$(git rev-parse HEAD)" "${files[@]}" || exit 2
    if [[ -z $ref ]] || git push -q origin "$ref"; then exit 0; fi
    sleep $((try * 2))
    git fetch -q origin "+$ref:$ref" || true
  done
  echo "certbench-ci: could not push $ref to origin" >&2
  exit 2
fi
if [[ -n $hist ]]; then
  if [[ -z $base_ref ]]; then base_ref=main; if git rev-parse -q --verify origin/main >/dev/null; then base_ref=origin/main; fi; fi # as ab
  mb=$(git merge-base "$base_ref" HEAD) || { echo "certbench-ci: no merge base of $base_ref and HEAD (fetch-depth: 0 in CI)" >&2; exit 2; }
  # The history's file names start with their commits: it must have the
  # merge base, and 4 of its last 10 first-parent commits (the gate's
  # default min_samples and history_commits) so that a clock can be judged.
  if [[ -n $ref ]]; then names=$(git ls-tree --name-only "$ref" 2>/dev/null || true); else names=$(ls "$hist" 2>/dev/null || true); fi
  recorded=0
  for c in $(git rev-list --first-parent -n 10 "$mb"); do
    if [[ $'\n'$names == *$'\n'$c-* ]]; then recorded=$((recorded + 1)); elif [[ $c == "$mb" ]]; then break; fi
  done
  if ((recorded >= 4)); then
    run_head || [[ -s $out/head.txt ]] || exit 2 # a store that failed fails the gate
    gate=(--history "$hist" --history-at "$mb")
    if [[ -n ${CERTBENCH_CONFIG:-} ]]; then gate+=(--config "$CERTBENCH_CONFIG")
    elif git show "$mb:./certbench.yaml" >"$out/policy.yaml" 2>/dev/null; then gate+=(--config "$out/policy.yaml") # the base's, as ab
    fi
    # shellcheck disable=SC2206 # split on spaces, documented
    gate+=(${CERTBENCH_GATE_ARGS:-} "${gate_args[@]+"${gate_args[@]}"}")
    # unless_set UNIT=MAX...: --max UNIT=MAX for each unit the flags do not set.
    unless_set() { for m; do if [[ " ${gate[*]} " != *" --max ${m%%=*}="* ]]; then printf "%s " --max "$m"; fi; done; }
    wall=() sim=()
    if [[ -n $simulate && ${CERTBENCH_WALL_MAX:-+25%} != policy ]]; then # as ab --simulate
      read -ra wall <<<"$(unless_set "sec/op=${CERTBENCH_WALL_MAX:-+25%}" "cpu-sec/op=${CERTBENCH_WALL_MAX:-+25%}")"
    fi
    rc=0
    "$bin" gate "${gate[@]}" "${wall[@]+"${wall[@]}"}" -o "$out/gate.txt" --summary "$out/wall-summary.md" "$out/head.txt" || rc=$?
    if [[ -n $simulate ]]; then
      src=0
      read -ra sim <<<"$(unless_set retained-B=off)" # the retained heap is the clock's to gate, as in ab
      "$bin" gate "${gate[@]}" "${sim[@]+"${sim[@]}"}" -o "$out/sim-gate.txt" --summary "$out/sim-summary.md" "$out/sim-head.txt" || src=$?
      rc=$((src > rc ? src : rc))
      echo "== simulated CPU (instructions/op) ==" # as ab prints its two passes
      cat "$out/sim-gate.txt" 2>/dev/null || true
      echo "== wall clock =="
    fi
    cat "$out"/sim-summary.md "$out/wall-summary.md" >"$out/summary.md" 2>/dev/null || true
    cat "$out/gate.txt" 2>/dev/null || true
    exit "$rc"
  fi
  echo "certbench-ci: $hist has results of $recorded of the merge base ${mb:0:12} and its 9 first-parent ancestors (want it and 3 more): measuring the base too (certbench ab)" >&2
fi
rc=0
"$bin" ab "${args[@]+"${args[@]}"}" "$@" || rc=$?
exit "$rc"
