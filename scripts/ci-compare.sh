#!/usr/bin/env bash
# ci-compare.sh: gate a change on certbench's allocation and time metrics.
#
#   scripts/ci-compare.sh [BASE_REF]
#
# Builds certbench twice, at the merge base of BASE_REF and HEAD (in a
# temporary git worktree) and from the working tree (HEAD plus any local
# changes), then runs the two binaries interleaved on this machine with the
# same stores, scenarios and fixed op counts: CERTBENCH_COUNT rounds, each
# round one `certbench run --count 1` per binary, in ABBA order (base first
# in odd rounds, head first in even ones) so that drift in the machine hits
# both sides alike. The per-round files are merged into OUT/base.txt and
# OUT/head.txt with the head binary (`certbench merge`, which recomputes the
# unit lines from all the merged samples: a count is declared exact only if
# every round measured the same, where concatenation would repeat each
# count-1 file's own lines) and gated with the head binary (`certbench gate`). If
# allocs/op or B/op regressed, both binaries profile the regressed cases
# (`certbench profile`) into OUT/base-profiles and OUT/head-profiles and the
# gate runs again to name the allocation sites that grew. Only `run`,
# `list` and (optionally) `profile` are needed from the base binary; `merge`
# and `gate` are the head binary's.
#
# BASE_REF defaults to origin/main, or main when there is no origin/main.
#
# Environment:
#   CERTBENCH_STORES     stores to measure, comma-separated (default: optimized,
#                        the store under development; naive is slow and noisy
#                        because it generates an RSA key per refresh)
#   CERTBENCH_SCENARIOS  scenarios, comma-separated (default: head's default set)
#   CERTBENCH_COUNT      samples (rounds) per side (default 10: at 6, a 25% slowdown was
#                        caught in only 8 of 10 runs on a quiet 2-core machine, at 10 in 10 of 10)
#   CERTBENCH_OUT        output directory (default: certbench-out)
#   CERTBENCH_CONFIG     gate policy file (default: certbench.yaml from the base
#                        tree if it has one, else from the working tree, else none)
#   CERTBENCH_GATE_ARGS  extra arguments for certbench gate (e.g. "--strict")
#   CERTBENCH_BASE_BIN   a prebuilt base binary to use instead of building BASE_REF
#
# Outputs in OUT: base.txt, head.txt (results), raw/ (one file per process),
# gate.txt (text report), gate.json, summary.md (Markdown, for
# $GITHUB_STEP_SUMMARY or a PR comment), base-profiles/ and head-profiles/
# (after an allocation regression), bin/ (the two binaries).
#
# Exit status: that of the gate (0 pass, 1 regression or failed check,
# 2 bad input); 2 as well when a binary cannot be built or run.
set -euo pipefail

die() { echo "ci-compare: $*" >&2; exit 2; }
log() { echo "ci-compare: $*" >&2; }

root=$(git rev-parse --show-toplevel 2>/dev/null) || die "not in a git repository"
invoked=$PWD
abspath() { [[ $1 == /* ]] && echo "$1" || echo "$invoked/$1"; }
cd "$root"

base_ref=${1:-}
if [[ -z "$base_ref" ]]; then
  if git rev-parse --verify -q origin/main >/dev/null; then
    base_ref=origin/main
  elif git rev-parse --verify -q main >/dev/null; then
    base_ref=main
  else
    die "no BASE_REF given and neither origin/main nor main exists"
  fi
fi

stores=${CERTBENCH_STORES:-optimized}
scenarios=${CERTBENCH_SCENARIOS:-}
count=${CERTBENCH_COUNT:-10}
out=$(abspath "${CERTBENCH_OUT:-certbench-out}")
[[ "$count" =~ ^[1-9][0-9]*$ ]] || die "CERTBENCH_COUNT=$count: want a positive number"
# shellcheck disable=SC2206
gate_args=(${CERTBENCH_GATE_ARGS:-})

start=$(date +%s)
mkdir -p "$out"
out=$(cd "$out" && pwd)
rm -rf "$out/raw" "$out/base-profiles" "$out/head-profiles"
mkdir -p "$out/raw" "$out/bin"
base_bin=$out/bin/certbench-base
head_bin=$out/bin/certbench-head

tmp=$(mktemp -d)
worktree=""
cleanup() {
  if [[ -n "$worktree" ]]; then
    git worktree remove --force "$worktree" >/dev/null 2>&1 || true
    git worktree prune >/dev/null 2>&1 || true
  fi
  rm -rf "$tmp"
}
trap cleanup EXIT

# --- build -----------------------------------------------------------------
head_desc="working tree at $(git rev-parse --short HEAD)"
if [[ -n "$(git status --porcelain --untracked-files=no 2>/dev/null)" ]]; then
  head_desc+=" with uncommitted changes"
fi
log "building head ($head_desc)"
go build -o "$head_bin" ./cmd/certbench || die "cannot build head"

base_tree=""
if [[ -n "${CERTBENCH_BASE_BIN:-}" ]]; then
  cp "$(abspath "$CERTBENCH_BASE_BIN")" "$base_bin" || die "CERTBENCH_BASE_BIN=$CERTBENCH_BASE_BIN: cannot copy"
  base_desc="prebuilt $CERTBENCH_BASE_BIN"
else
  git rev-parse --verify -q "$base_ref^{commit}" >/dev/null || die "unknown base ref $base_ref (fetch it, or use fetch-depth: 0 in CI)"
  base_commit=$(git merge-base "$base_ref" HEAD) || die "no merge base between $base_ref and HEAD"
  base_desc="$(git rev-parse --short "$base_commit") (merge base of $base_ref and HEAD)"
  worktree=$tmp/base
  git worktree add --detach --quiet "$worktree" "$base_commit" || die "cannot check out $base_commit"
  base_tree=$worktree
  log "building base $base_desc"
  (cd "$worktree" && go build -o "$base_bin" ./cmd/certbench) || die "cannot build base $base_desc"
fi

# --- what to run -------------------------------------------------------------
# Stores, one a line, and scenarios, one a line as "* name" (default set) or
# "- name", from `certbench list --format json` when the binary has it and jq
# is installed; otherwise (a base binary that predates --format json) from
# the human listing: "STORES", "  name  description", a blank line,
# "SCENARIOS (* = default set)", "* name  description" (or "  name ...").
list_json() { command -v jq >/dev/null && "$1" list --format json 2>/dev/null; }
list_stores() {
  local doc
  if doc=$(list_json "$1"); then
    jq -r '.stores[].name' <<<"$doc"
  else
    "$1" list | awk '/^STORES/{s=1;next} /^$/{s=0} s{print $1}'
  fi
}
list_scenarios() {
  local doc
  if doc=$(list_json "$1"); then
    jq -r '.scenarios[] | (if .default then "* " else "- " end) + .name' <<<"$doc"
  else
    "$1" list | awk '/^SCENARIOS/{s=1;next} s&&NF{ if ($1=="*") print "*", $2; else print "-", $1 }'
  fi
}
# profile_flags BIN: the flag names BIN's profile command takes for a store
# and a scenario (--stores/--scenarios; binaries before the rename only
# know --store/--scenario).
profile_flags() {
  if "$1" profile --help 2>/dev/null | grep -q -- '--stores'; then
    echo "--stores --scenarios"
  else
    echo "--store --scenario"
  fi
}

base_stores=$(list_stores "$base_bin") || die "base binary: certbench list failed"
head_stores=$(list_stores "$head_bin") || die "head binary: certbench list failed"
run_stores=()
notes=()
IFS=',' read -r -a want_stores <<<"$stores"
for s in "${want_stores[@]}"; do
  s=${s// /}
  grep -qx -- "$s" <<<"$head_stores" || die "store $s is not registered in head (have: $(echo $head_stores))"
  if grep -qx -- "$s" <<<"$base_stores"; then
    run_stores+=("$s")
  else
    notes+=("store $s does not exist at the base: nothing to compare it with, not gated")
  fi
done

if [[ -z "$scenarios" ]]; then
  scenarios=$(list_scenarios "$head_bin" | awk '$1=="*"{print $2}' | paste -sd, -)
fi
base_scen=$(list_scenarios "$base_bin" | awk '{print $2}')
run_scen=()
IFS=',' read -r -a want_scen <<<"$scenarios"
for s in "${want_scen[@]}"; do
  s=${s// /}
  if grep -qx -- "$s" <<<"$base_scen"; then
    run_scen+=("$s")
  else
    notes+=("scenario $s does not exist at the base: measured in head only, not gated")
  fi
done

config_args=()
if [[ -n "${CERTBENCH_CONFIG:-}" ]]; then
  config_args=(--config "$(abspath "$CERTBENCH_CONFIG")")
elif [[ -n "$base_tree" && -f "$base_tree/certbench.yaml" ]]; then
  cp "$base_tree/certbench.yaml" "$out/policy.yaml"
  config_args=(--config "$out/policy.yaml")
  log "policy: certbench.yaml from the base (a change cannot loosen its own gate)"
elif [[ -f "$root/certbench.yaml" ]]; then
  config_args=(--config "$root/certbench.yaml")
  log "policy: certbench.yaml from the working tree"
fi

write_notes() {
  for n in "${notes[@]+"${notes[@]}"}"; do
    echo "- $n"
  done
}

if [[ ${#run_stores[@]} -eq 0 || ${#run_scen[@]} -eq 0 ]]; then
  {
    echo "### ⚠️ certbench gate: nothing to compare"
    echo
    echo "Base $base_desc has none of the stores or scenarios to measure (stores: $stores)."
    echo
    write_notes
  } | tee "$out/summary.md" >&2
  exit 0
fi

# A base without `merge` predates exact per-op counts: it truncates B/op and
# allocs/op to integers (1324.5 allocs/op written as 1324), so head can show
# an increase of less than one per op that is only the truncation.
if ! "$base_bin" merge --help >/dev/null 2>&1; then
  notes+=("the base binary truncates B/op and allocs/op to integers (it predates certbench merge): an increase below 1 per op in head is the truncation, not a regression")
fi

stores_arg=$(IFS=,; echo "${run_stores[*]}")
scen_arg=$(IFS=,; echo "${run_scen[*]}")
head_scen_arg=$scenarios
log "base: $base_desc"
log "head: $head_desc"
log "stores: $stores_arg; scenarios: $scen_arg; $count rounds, ABBA"

# --- measure -----------------------------------------------------------------
run_side() { # side round
  local bin=$base_bin sc=$scen_arg
  if [[ $1 == head ]]; then bin=$head_bin; sc=$head_scen_arg; fi
  "$bin" run --count 1 -q --stores "$stores_arg" --scenarios "$sc" -o "$out/raw/$1.$2.txt" ||
    die "$1 binary: certbench run failed in round $2"
}
for ((i = 1; i <= count; i++)); do
  t0=$(date +%s)
  if ((i % 2)); then run_side base "$i"; run_side head "$i"; else run_side head "$i"; run_side base "$i"; fi
  log "round $i/$count done in $(($(date +%s) - t0))s"
done
for side in base head; do
  files=()
  for ((i = 1; i <= count; i++)); do files+=("$out/raw/$side.$i.txt"); done
  "$head_bin" merge -o "$out/$side.txt" "${files[@]}" || die "certbench merge of the $side results failed"
done

# --- gate ----------------------------------------------------------------------
gate() { # extra args...
  local rc=0
  (cd "$out" && "$head_bin" gate "${config_args[@]+"${config_args[@]}"}" "${gate_args[@]+"${gate_args[@]}"}" "$@" \
    --summary summary.md -o gate.txt base.txt head.txt) || rc=$?
  (cd "$out" && "$head_bin" gate "${config_args[@]+"${config_args[@]}"}" "${gate_args[@]+"${gate_args[@]}"}" "$@" \
    --format json -o gate.json base.txt head.txt >/dev/null 2>&1) || true
  return $rc
}
rc=0
gate || rc=$?

# Profile the allocation regressions, if any, and gate again to name sites.
alloc_regressed() {
  if command -v jq >/dev/null; then
    jq -r '.findings[] | select(.status=="regressed" and (.unit=="allocs/op" or .unit=="B/op")) | "\(.scenario) \(.store)"' \
      "$out/gate.json" 2>/dev/null | sort -u
  else
    echo ALL # no jq: profile every scenario of every store
  fi
}
if [[ $rc -eq 1 ]]; then
  pairs=$(alloc_regressed)
  if [[ -n "$pairs" ]]; then
    if ! "$base_bin" profile --help >/dev/null 2>&1; then
      notes+=("the base binary has no profile command: allocation sites not named")
    else
      log "allocation regression: profiling base and head"
      mkdir -p "$out/base-profiles" "$out/head-profiles"
      ok=1
      while read -r sc st; do
        for side in base head; do
          bin=$base_bin; [[ $side == head ]] && bin=$head_bin
          read -r stores_flag scenarios_flag <<<"$(profile_flags "$bin")"
          if [[ $sc == ALL ]]; then
            for s in "${run_stores[@]}"; do
              "$bin" profile --all -q "$stores_flag" "$s" -o "$out/$side-profiles" >/dev/null || ok=0
            done
          else
            "$bin" profile "$stores_flag" "$st" "$scenarios_flag" "$sc" -o "$out/$side-profiles" >/dev/null || ok=0
          fi
        done
      done <<<"$pairs"
      [[ $ok == 1 ]] || notes+=("some profiles could not be captured; see the log")
      rc=0
      gate --base-profiles base-profiles --head-profiles head-profiles || rc=$?
    fi
  fi
fi

elapsed=$(($(date +%s) - start))
{
  echo
  echo "<sub>certbench ci-compare: base $base_desc; head $head_desc; stores $stores_arg;" \
    "$count interleaved rounds; ${elapsed}s on $(uname -m), $(nproc 2>/dev/null || echo '?') CPUs.</sub>"
  if [[ ${#notes[@]} -gt 0 ]]; then
    echo
    write_notes
  fi
} >>"$out/summary.md"
cat "$out/gate.txt"
for n in "${notes[@]+"${notes[@]}"}"; do log "note: $n"; done
log "results in $out (gate exit $rc, ${elapsed}s)"
exit $rc
