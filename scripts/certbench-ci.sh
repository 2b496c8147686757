#!/usr/bin/env bash
# certbench-ci.sh: gate a change to any certificate store on certbench's
# allocation and time metrics, in any git repository.
#
#   certbench-ci.sh [options] [BASE_REF]
#
# Builds the repository's certbench binary (a main package that imports its
# stores and calls cli.Main) twice: at the merge base of BASE_REF and HEAD,
# in a temporary git worktree, and from the working tree (HEAD plus any
# local changes). Each side is built inside its own tree, so a store that
# lives in another module is taken as that side's go.mod says: a pinned
# version, or a relative `replace` that resolves within that side's tree.
# Then it runs the two binaries interleaved on this machine with the same
# stores, scenarios and fixed op counts: COUNT rounds, each one
# `certbench run --count 1` per binary, in ABBA order (base first in odd
# rounds, head first in even ones) so that drift in the machine hits both
# sides alike. Each sample records its round (`certbench run --round N`
# writes the comment line "# round: N", which benchstat ignores; a base
# binary too old for --round runs without it), so that the gate pairs base and head round by
# round (policy `test: auto`, the default: a Wilcoxon signed-rank test of
# the per-round ratios, which drift between rounds does not blur; see
# `certbench gate --help`). The head binary merges each side's per-round files
# (`certbench merge`: unit lines recomputed from all the samples) into
# OUT/base.txt and OUT/head.txt and gates them (`certbench gate`). If
# allocs/op or B/op regressed, each binary profiles the regressed stores and
# scenarios (`certbench profile --all`) into OUT/base-profiles and
# OUT/head-profiles and the gate runs again to name the allocation sites
# that grew. Stores and scenarios come from `certbench list --format json`
# (jq is required). From the base binary only `list`, `run` and `profile`
# are used.
#
# With --simulate, each binary also runs every scenario on a simulated CPU
# (`certbench run --instrument simulate`: valgrind's callgrind counts the
# instructions of the timed ops, which other tenants of the machine cannot
# disturb), one process per side, the two sides at once, keeping the
# callgrind files; the gate compares instructions/op (and allocations,
# which the simulated pass records too) and names the functions whose
# instructions grew. The wall-clock pass still runs and is gated too, the
# time metrics only loosely (--wall-max). The exit status is the worse of
# the two gates. valgrind must be installed (Debian, Ubuntu: apt-get
# install valgrind); the action installs it.
#
# Options (each also has an environment variable, which the option overrides):
#   --dir DIR          the module to build in, relative to the repository root
#                      (CERTBENCH_DIR; default: the current directory)
#   --main PKG         the main package, relative to DIR (CERTBENCH_MAIN;
#                      default ./cmd/certbench)
#   --build CMD        build with CMD (run by bash in DIR of each side, with
#                      CERTBENCH_BIN set to the path to write, CERTBENCH_REVISION
#                      to the side's commit and CERTBENCH_LDFLAGS to the -X flag
#                      that links it in) instead of
#                      `go build -ldflags "$CERTBENCH_LDFLAGS" -o "$CERTBENCH_BIN" PKG`
#                      (CERTBENCH_BUILD)
#   --stores LIST      stores to measure, comma-separated (CERTBENCH_STORES;
#                      default: every store the head binary registers)
#   --scenarios LIST   scenarios, comma-separated (CERTBENCH_SCENARIOS;
#                      default: head's default set)
#   --count N          rounds, i.e. samples per side (CERTBENCH_COUNT; default
#                      10: at 6 a 25% slowdown was caught in 8 of 10 runs on a
#                      quiet 2-core machine, at 10 in 10 of 10). The gate needs
#                      at least 4, and 6 with two or more benchmarks.
#   --ops N            ops per sample instead of each scenario's fixed count
#                      (CERTBENCH_OPS; default: the scenario's). allocs/op
#                      counts the runtime's own background allocations too,
#                      which differ between processes by about ten per
#                      sample: at a scenario's own 10 ops that blurs
#                      allocs/op by about one, so to catch one more
#                      allocation per refresh give more ops (200, as
#                      examples/ci_test.go does, with its policy).
#   --interleave HOW   scenario (default): in each round, one process per
#                      scenario and side, a scenario's base and head back to
#                      back (ABBA by round); round: one process per side
#                      running every scenario (CERTBENCH_INTERLEAVE). On a
#                      2-core VM (20 A/A runs of the default set, count 10)
#                      the log ratio of a pair of samples of
#                      rotate-10-of-100 varied by 0.25 (standard deviation)
#                      with round and 0.18 with scenario: the machine's
#                      speed drifts within the seconds a whole-set process
#                      takes. parallel: a scenario's base and head run at
#                      the same time, each with GOMAXPROCS=1 pinned to its
#                      own CPU (taskset; the CPUs swap sides by round), and
#                      start every sample's timed ops together
#                      (`certbench run --sync`), so that drift common to
#                      the machine cancels. It needs 2 CPUs and both
#                      binaries with run --sync, and it measures single-CPU
#                      cost. On the 2-core VM above it did not help: the
#                      pair log ratio's sd over 20 A/A pairs was 0.19
#                      (rotate-10-of-100), 0.17 (renew-1-of-1000), 0.26
#                      (lookup-1000) against 0.12, 0.16 and 0.21 back to
#                      back; that machine's noise is per CPU, not shared.
#   --out DIR          output directory (CERTBENCH_OUT; default certbench-out)
#   --config FILE      gate policy (CERTBENCH_CONFIG; default: DIR/certbench.yaml
#                      of the base if it has one, else of the working tree,
#                      else the built-in policy)
#   --gate-args ARGS   extra arguments for certbench gate, split on spaces
#                      (CERTBENCH_GATE_ARGS; e.g. "--strict")
#   --base-bin FILE    a prebuilt base binary instead of building BASE_REF
#                      (CERTBENCH_BASE_BIN)
#   --base-replace MODULE=DIR
#                      build the base with go.mod's module MODULE replaced by
#                      DIR (relative to where the script runs); repeatable
#                      (CERTBENCH_BASE_REPLACE, space-separated). The base is
#                      built in a temporary worktree, where a relative
#                      `replace MODULE => ../x` that leads outside the
#                      repository points at nothing; the script stops before
#                      building and says so unless this option names MODULE.
#   --simulate         also gate instructions/op on the simulated CPU (see
#                      above; CERTBENCH_SIMULATE=1). --no-simulate turns it off.
#   --sim-count N      samples per side of the simulated pass (CERTBENCH_SIM_COUNT;
#                      default 5: instruction counts repeat to within a few
#                      hundredths of a percent, and the gate's near-exact test
#                      needs at least 4)
#   --wall-max THRESHOLD  with --simulate, the threshold of sec/op and
#                      cpu-sec/op in the wall-clock gate (CERTBENCH_WALL_MAX;
#                      default +25%: time is reported, and gated only against
#                      large changes, since instructions/op is the CPU gate;
#                      it replaces the policy's thresholds, even "off";
#                      "policy" keeps the policy's thresholds; per-scenario
#                      overrides in the policy file still apply)
#
# BASE_REF (or CERTBENCH_BASE_REF) defaults to origin/main, or main when
# there is no origin/main.
#
# A store that panics or hangs (a call that does not return within the
# policy's gate.sample_timeout, default 10m) in a run is recorded in that
# side's results, with its stack in raw/SIDE.ROUND.GROUP-panic-STORE-
# SCENARIO-1.txt (or -hang-); the other stores are measured on. A store
# that hung is left out of the later rounds of both sides (each would
# wait the timeout again). The gate fails a store that failed at head and
# not at base; one that failed at base is a warning.
#
# Outputs in OUT: base.txt, head.txt (results), raw/ (one file per process),
# gate.txt (text report), gate.json, summary.md (Markdown, for
# $GITHUB_STEP_SUMMARY or a PR comment), base-profiles/ and head-profiles/
# (after an allocation regression), bin/ (the two binaries), build.log;
# with --simulate also sim-base.txt, sim-head.txt, sim-gate.txt,
# sim-gate.json, sim-base.log, sim-head.log, base-callgrind/ and
# head-callgrind/ (one callgrind file per sample, which callgrind_annotate
# and certbench profile top read), and summary.md holds both reports.
#
# Exit status: that of the gate (0 pass, 1 regression or failed check,
# 2 bad input); 2 as well for bad usage, or when a binary cannot be built or
# run.
set -euo pipefail

die() { echo "certbench-ci: $*" >&2; exit 2; }
log() { echo "certbench-ci: $*" >&2; }
usage() { sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; }

dir=${CERTBENCH_DIR:-}
main_pkg=${CERTBENCH_MAIN:-./cmd/certbench}
build_cmd=${CERTBENCH_BUILD:-}
stores=${CERTBENCH_STORES:-}
scenarios=${CERTBENCH_SCENARIOS:-}
count=${CERTBENCH_COUNT:-10}
ops=${CERTBENCH_OPS:-}
interleave=${CERTBENCH_INTERLEAVE:-scenario}
out=${CERTBENCH_OUT:-certbench-out}
config=${CERTBENCH_CONFIG:-}
gate_args_str=${CERTBENCH_GATE_ARGS:-}
base_bin_in=${CERTBENCH_BASE_BIN:-}
# shellcheck disable=SC2206 # split on spaces, documented
base_replace=(${CERTBENCH_BASE_REPLACE:-})
base_ref=${CERTBENCH_BASE_REF:-}
simulate=${CERTBENCH_SIMULATE:-0}
sim_count=${CERTBENCH_SIM_COUNT:-5}
wall_max=${CERTBENCH_WALL_MAX:-+25%}

need() { [[ $# -ge 2 ]] || die "$1 needs a value (see --help)"; }
while [[ $# -gt 0 ]]; do
  case $1 in
    -h | --help) usage; exit 0 ;;
    --dir) need "$@"; dir=$2; shift 2 ;;
    --main) need "$@"; main_pkg=$2; shift 2 ;;
    --build) need "$@"; build_cmd=$2; shift 2 ;;
    --stores) need "$@"; stores=$2; shift 2 ;;
    --scenarios) need "$@"; scenarios=$2; shift 2 ;;
    --count) need "$@"; count=$2; shift 2 ;;
    --ops) need "$@"; ops=$2; shift 2 ;;
    --interleave) need "$@"; interleave=$2; shift 2 ;;
    --out) need "$@"; out=$2; shift 2 ;;
    --config) need "$@"; config=$2; shift 2 ;;
    --gate-args) need "$@"; gate_args_str=$2; shift 2 ;;
    --base-bin) need "$@"; base_bin_in=$2; shift 2 ;;
    --base-replace) need "$@"; base_replace+=("$2"); shift 2 ;;
    --simulate) simulate=1; shift ;;
    --no-simulate) simulate=0; shift ;;
    --sim-count) need "$@"; sim_count=$2; shift 2 ;;
    --wall-max) need "$@"; wall_max=$2; shift 2 ;;
    --) shift; break ;;
    -*) die "unknown option $1 (see --help)" ;;
    *) [[ -z "${positional_seen:-}" ]] || die "more than one BASE_REF: $1"; base_ref=$1; positional_seen=1; shift ;;
  esac
done
[[ $# -le 1 ]] || die "more than one BASE_REF"
[[ $# -eq 0 ]] || base_ref=$1

[[ "$count" =~ ^[1-9][0-9]*$ ]] || die "--count $count: want a positive number"
case $simulate in
  1 | true | yes) simulate=1 ;;
  0 | false | no | "") simulate=0 ;;
  *) die "CERTBENCH_SIMULATE=$simulate: want 1 or 0 (true or false)" ;;
esac
[[ "$sim_count" =~ ^[1-9][0-9]*$ ]] || die "--sim-count $sim_count: want a positive number"
if [[ $simulate == 1 ]]; then
  command -v valgrind >/dev/null ||
    die "--simulate needs valgrind: install it (Debian, Ubuntu: apt-get install valgrind; Fedora: dnf install valgrind)"
fi
[[ -z "$ops" || "$ops" =~ ^[1-9][0-9]*$ ]] || die "--ops $ops: want a positive number"
[[ "$interleave" == scenario || "$interleave" == round || "$interleave" == parallel ]] ||
  die "--interleave $interleave: want scenario, round or parallel"
command -v jq >/dev/null || die "jq is required (it reads certbench list --format json and the gate's json)"
command -v git >/dev/null || die "git is required"
# shellcheck disable=SC2206 # split on spaces, documented
gate_args=($gate_args_str)

invoked=$PWD
abspath() { [[ $1 == /* ]] && echo "$1" || echo "$invoked/$1"; }
root=$(git rev-parse --show-toplevel 2>/dev/null) || die "not in a git repository"
if [[ -z "$dir" ]]; then
  dir=$(git rev-parse --show-prefix)
  dir=${dir%/}
fi
dir=${dir#./}
dir=${dir%/}
[[ -z "$dir" ]] && dir=.
[[ $dir != /* && $dir != .. && $dir != ../* ]] || die "--dir $dir: want a directory inside the repository, relative to its root"
[[ -d "$root/$dir" ]] || die "--dir $dir: no such directory in $root"
if [[ -n "$config" ]]; then config=$(abspath "$config"); fi
if [[ -n "$base_bin_in" ]]; then base_bin_in=$(abspath "$base_bin_in"); fi
base_replace_mods=() base_replace_dirs=()
for r in "${base_replace[@]+"${base_replace[@]}"}"; do
  [[ $r == ?*=?* ]] || die "--base-replace $r: want MODULE=DIR"
  d=$(abspath "${r#*=}")
  [[ -d $d ]] || die "--base-replace $r: no directory $d"
  d=$(cd "$d" && pwd)
  base_replace_mods+=("${r%%=*}") base_replace_dirs+=("$d")
done
out=$(abspath "$out")
cd "$root"

if [[ -z "$base_ref" && -z "$base_bin_in" ]]; then
  if git rev-parse --verify -q origin/main >/dev/null; then
    base_ref=origin/main
  elif git rev-parse --verify -q main >/dev/null; then
    base_ref=main
  else
    die "no BASE_REF given and neither origin/main nor main exists"
  fi
fi

# check_base_replaces COMMIT: the base is built in a temporary worktree, so
# a relative `replace` in its go.mod that leads outside the repository
# points at nothing there; stop before building, saying why and what to do,
# unless --base-replace names the module. Prints the go mod edit flags
# that apply --base-replace, one a line.
check_base_replaces() {
  local gomod reps m p at want base i found flags=()
  command -v go >/dev/null || return 0
  gomod=go.mod
  if [[ $dir != . ]]; then gomod=$dir/go.mod; fi
  git show "$1:$gomod" >"$tmp/base.go.mod" 2>/dev/null || return 0
  reps=$(go mod edit -json "$tmp/base.go.mod" 2>/dev/null |
    jq -r '(.Require // [] | map(.Path)) as $req | .Replace // [] | .[]
      | select(.New.Version == null and (.Old.Path as $o | $req | index($o)))
      | select(.New.Path | startswith("./") or startswith("../")) | "\(.Old.Path) \(.New.Path)"') || return 0
  while read -r m p; do
    [[ -n $m ]] || continue
    found=""
    for i in "${!base_replace_mods[@]}"; do
      if [[ ${base_replace_mods[i]} == "$m" ]]; then found=${base_replace_dirs[i]}; fi
    done
    if [[ -n $found ]]; then
      flags+=("-replace=$m=$found")
      continue
    fi
    # Where the path leads from the module's directory in the worktree,
    # and in the working tree.
    at=$(realpath -m "$tmp/base/$dir/$p")
    want=$(realpath -m "$root/$dir/$p")
    base=$(realpath -m "$tmp/base")
    if [[ $at != "$want" && $at != "$base" && $at != "$base/"* ]]; then
      die "the base's $gomod has \`replace $m => $p\`, a path relative to the module that leads outside the repository, and the base is built in a temporary git worktree ($tmp/base), where $p does not lead to $want as it does from your checkout. Pass --base-replace $m=$want to build the base against that directory, or make the replace an absolute path, or require a released version."
    fi
  done <<<"$reps"
  for i in "${!base_replace_mods[@]}"; do
    if ! grep -qF -- "-replace=${base_replace_mods[i]}=" <<<"$(printf '%s\n' "${flags[@]+"${flags[@]}"}")"; then
      flags+=("-replace=${base_replace_mods[i]}=${base_replace_dirs[i]}")
    fi
  done
  if [[ ${#flags[@]} -gt 0 ]]; then printf '%s\n' "${flags[@]}"; fi
}

start=$(date +%s)
mkdir -p "$out"
out=$(cd "$out" && pwd)
rm -rf "$out/raw" "$out/base-profiles" "$out/head-profiles" "$out/summary.md" "$out/gate.txt" "$out/gate.json" \
  "$out/base-callgrind" "$out/head-callgrind" "$out"/sim-*
mkdir -p "$out/raw" "$out/bin"
base_bin=$out/bin/certbench-base
head_bin=$out/bin/certbench-head
: >"$out/build.log"

tmp=$(mktemp -d)
worktree=""
# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() {
  if [[ -n "$worktree" ]]; then
    git -C "$root" worktree remove --force "$worktree" >/dev/null 2>&1 || true
    git -C "$root" worktree prune >/dev/null 2>&1 || true
  fi
  rm -rf "$tmp"
}
trap cleanup EXIT

# build TREE OUTPUT: builds the binary of the module at TREE/DIR. The
# default build links TREE's commit into certbench (the variable
# results.revision, which --version prints and results record as
# certbench-revision when the build info has no vcs.revision, e.g. under
# GOFLAGS=-buildvcs=false; bench.revision for a base built before it
# moved there); a --build command gets the same flags in
# CERTBENCH_LDFLAGS and the commit in CERTBENCH_REVISION.
build() {
  local moddir=$1/$dir rev ldflags
  [[ -d "$moddir" ]] || { echo "no directory $dir in that tree" >>"$out/build.log"; return 1; }
  rev=$(git -C "$1" rev-parse HEAD 2>/dev/null || true)
  ldflags="-X github.com/certbench/certbench/results.revision=$rev -X github.com/certbench/certbench/bench.revision=$rev"
  if [[ -n "$build_cmd" ]]; then
    (cd "$moddir" && CERTBENCH_BIN=$2 CERTBENCH_REVISION=$rev CERTBENCH_LDFLAGS=$ldflags bash -c "$build_cmd") >>"$out/build.log" 2>&1
  else
    (cd "$moddir" && go build -ldflags "$ldflags" -o "$2" "$main_pkg") >>"$out/build.log" 2>&1
  fi
  [[ -x "$2" ]] || { echo "the build did not write $2" >>"$out/build.log"; return 1; }
}
build_failed() { tail -n 20 "$out/build.log" >&2; die "$1 (log: $out/build.log)"; }

# --- build -----------------------------------------------------------------
base_edits=()
if [[ -z "$base_bin_in" ]]; then
  git rev-parse --verify -q "$base_ref^{commit}" >/dev/null ||
    die "unknown base ref $base_ref (fetch it, or use fetch-depth: 0 in CI)"
  base_commit=$(git merge-base "$base_ref" HEAD) || die "no merge base between $base_ref and HEAD"
  edits=$(check_base_replaces "$base_commit") || exit 2
  if [[ -n $edits ]]; then mapfile -t base_edits <<<"$edits"; fi
fi
head_desc="working tree at $(git rev-parse --short HEAD)"
if [[ -n "$(git status --porcelain --untracked-files=no 2>/dev/null)" ]]; then
  head_desc+=" with uncommitted changes"
fi
log "building head ($head_desc) in $dir"
build "$root" "$head_bin" || build_failed "cannot build head"

base_tree=""
if [[ -n "$base_bin_in" ]]; then
  cp "$base_bin_in" "$base_bin" || die "--base-bin $base_bin_in: cannot copy"
  base_desc="prebuilt $base_bin_in"
else
  base_desc="$(git rev-parse --short "$base_commit") (merge base of $base_ref and HEAD)"
  worktree=$tmp/base
  git worktree add --detach --quiet "$worktree" "$base_commit" || die "cannot check out $base_commit"
  base_tree=$worktree
  if [[ ${#base_edits[@]} -gt 0 ]]; then
    log "base: go mod edit ${base_edits[*]} (--base-replace)"
    (cd "$worktree/$dir" && go mod edit "${base_edits[@]}") >>"$out/build.log" 2>&1 || build_failed "cannot apply --base-replace to the base's go.mod"
  fi
  log "building base $base_desc"
  build "$worktree" "$base_bin" || build_failed "cannot build base $base_desc"
fi

# has_flag BIN COMMAND FLAG: whether `BIN COMMAND --help` mentions FLAG. The
# help is read whole before it is searched: in `BIN --help | grep -q FLAG`
# grep exits at its match, the binary dies of SIGPIPE if it still has help
# to write, and pipefail makes that "no such flag" (most often on a loaded
# machine).
has_flag() {
  local help
  help=$("$1" "$2" --help 2>/dev/null) || true
  grep -qF -- "$3" <<<"$help"
}

# --- what to run -------------------------------------------------------------
list_json() { # BIN SIDE
  "$1" list --format json 2>/dev/null ||
    die "$2 binary: certbench list --format json failed (a certbench older than list --format json? build that side with a newer certbench, or pass --base-bin)"
}
base_list=$(list_json "$base_bin" base)
head_list=$(list_json "$head_bin" head)
base_stores=$(jq -r '.stores[].name' <<<"$base_list")
head_stores=$(jq -r '.stores[].name' <<<"$head_list")
base_scen=$(jq -r '.scenarios[].name' <<<"$base_list")
head_scen=$(jq -r '.scenarios[].name' <<<"$head_list")
if [[ -z "$stores" ]]; then
  stores=$(paste -sd, - <<<"$head_stores")
fi
if [[ -z "$scenarios" ]]; then
  scenarios=$(jq -r '.scenarios[] | select(.default) | .name' <<<"$head_list" | paste -sd, -)
fi

notes=()
run_stores=()
IFS=',' read -r -a want_stores <<<"$stores"
for s in "${want_stores[@]}"; do
  s=${s// /}
  [[ -n "$s" ]] || continue
  grep -qxF -- "$s" <<<"$head_stores" ||
    die "store $s is not registered in the head binary (have: $(paste -sd, - <<<"$head_stores"))"
  if grep -qxF -- "$s" <<<"$base_stores"; then
    run_stores+=("$s")
  else
    notes+=("store $s does not exist at the base: nothing to compare it with, not gated")
  fi
done
run_scen=()
IFS=',' read -r -a want_scen <<<"$scenarios"
for s in "${want_scen[@]}"; do
  s=${s// /}
  [[ -n "$s" ]] || continue
  grep -qxF -- "$s" <<<"$head_scen" ||
    die "scenario $s is not in the head binary (have: $(paste -sd, - <<<"$head_scen"))"
  if grep -qxF -- "$s" <<<"$base_scen"; then
    run_scen+=("$s")
  else
    notes+=("scenario $s does not exist at the base: not gated")
  fi
done

config_args=()
if [[ -n "$config" ]]; then
  config_args=(--config "$config")
elif [[ -n "$base_tree" && -f "$base_tree/$dir/certbench.yaml" ]]; then
  cp "$base_tree/$dir/certbench.yaml" "$out/policy.yaml"
  config_args=(--config "$out/policy.yaml")
  log "policy: $dir/certbench.yaml from the base (a change cannot loosen its own gate)"
elif [[ -f "$root/$dir/certbench.yaml" ]]; then
  config_args=(--config "$root/$dir/certbench.yaml")
  log "policy: $dir/certbench.yaml from the working tree"
else
  config_args=(--no-config)
  log "policy: built-in defaults (no $dir/certbench.yaml)"
fi

write_notes() {
  local n
  for n in "${notes[@]+"${notes[@]}"}"; do
    echo "- $n"
  done
}

if [[ ${#run_stores[@]} -eq 0 || ${#run_scen[@]} -eq 0 ]]; then
  {
    echo "### ⚠️ certbench gate: nothing to compare"
    echo
    echo "Base $base_desc has none of the stores or scenarios to measure (stores: $stores; scenarios: $scenarios)."
    echo
    write_notes
  } | tee "$out/summary.md" >&2
  exit 0
fi

stores_arg=$(IFS=,; echo "${run_stores[*]}")
scen_arg=$(IFS=,; echo "${run_scen[*]}")
ops_args=()
if [[ -n "$ops" ]]; then ops_args=(--ops "$ops"); fi
log "base: $base_desc"
log "head: $head_desc"
if [[ $interleave == parallel ]]; then
  sync_flag() { has_flag "$1" run '--sync '; }
  cpus=$(nproc 2>/dev/null || echo 1)
  if ((cpus < 2)); then
    notes+=("--interleave parallel needs 2 CPUs ($cpus here): interleaved by scenario instead")
    interleave=scenario
  elif ! sync_flag "$base_bin" || ! sync_flag "$head_bin"; then
    notes+=("a binary has no run --sync: interleaved by scenario instead of in parallel")
    interleave=scenario
  elif ! command -v taskset >/dev/null; then
    notes+=("no taskset: the parallel sides are not pinned to CPUs")
  fi
fi
how="ABBA, interleaved by $interleave"
if [[ $interleave == parallel ]]; then how="base and head in parallel, one CPU each"; fi
log "stores: $stores_arg; scenarios: $scen_arg; $count rounds, $how"

# --- the simulated CPU ---------------------------------------------------------
# Both sides at once: instruction counts do not depend on what else runs.
sim_rc=-1
if [[ $simulate == 1 ]]; then
  if ! has_flag "$base_bin" run '--instrument ' || ! has_flag "$head_bin" run '--instrument '; then
    notes+=("a binary has no run --instrument simulate (a certbench older than the simulated CPU): instructions not gated")
    simulate=0
  fi
fi
if [[ $simulate == 1 ]]; then
  log "simulated CPU: $sim_count samples per side under callgrind, both sides at once"
  t0=$(date +%s)
  pids=()
  for side in base head; do
    bin=$base_bin
    if [[ $side == head ]]; then bin=$head_bin; fi
    sim_config=() # the policy, for its sample_timeout
    if [[ ${config_args[0]} == --config ]] && has_flag "$bin" run --sample-timeout; then sim_config=("${config_args[@]}"); fi
    "$bin" run --instrument simulate -q --count "$sim_count" --stores "$stores_arg" --scenarios "$scen_arg" \
      "${ops_args[@]+"${ops_args[@]}"}" "${sim_config[@]+"${sim_config[@]}"}" --callgrind-dir "$out/$side-callgrind" \
      -o "$out/sim-$side.txt" >"$out/sim-$side.log" 2>&1 &
    pids+=($!)
  done
  sim_ok=1
  for pid in "${pids[@]}"; do
    # 1: a store failed, recorded in the file (the gate decides).
    sim_run_rc=0
    wait "$pid" || sim_run_rc=$?
    ((sim_run_rc == 0 || sim_run_rc == 1)) || sim_ok=0
  done
  if [[ $sim_ok == 0 ]]; then
    tail -n 20 "$out/sim-base.log" "$out/sim-head.log" >&2
    die "certbench run --instrument simulate failed (logs: $out/sim-base.log, $out/sim-head.log)"
  fi
  log "simulated pass done in $(($(date +%s) - t0))s"
  # The retained heap is left to the clock's pass, whose rounds are enough
  # to decide it: at a few simulated samples a side its U test cannot reach
  # alpha after the correction, and the gate would fail as undecided.
  sim_gate() { # extra gate args...
    (cd "$out" && "$head_bin" gate "${config_args[@]}" "${gate_args[@]+"${gate_args[@]}"}" --max retained-B=off \
      --base-profiles base-callgrind --head-profiles head-callgrind "$@" sim-base.txt sim-head.txt)
  }
  sim_rc=0
  sim_gate --summary sim-summary.md -o sim-gate.txt || sim_rc=$?
  sim_gate --format json -o sim-gate.json >/dev/null 2>&1 || true
  [[ -f "$out/sim-gate.txt" ]] || die "certbench gate wrote no report of the simulated pass (exit $sim_rc)"
  # Time is gated loosely: instructions are the CPU gate.
  if [[ $wall_max != policy ]]; then
    gate_args+=(--max "sec/op=$wall_max" --max "cpu-sec/op=$wall_max")
  fi
fi

# --- measure -----------------------------------------------------------------
# --round N where the binary has it (certbench older than the paired gate
# does not): without it that side's samples have no round and the gate
# falls back to the U test, saying so.
round_flag() { has_flag "$1" run --round; }
base_round=0 head_round=0
if round_flag "$base_bin"; then base_round=1; fi
if round_flag "$head_bin"; then head_round=1; fi
if [[ $base_round == 0 ]]; then
  notes+=("the base binary has no run --round: samples not paired by round (U test)")
fi
# A store under test that panics or hangs makes run exit 1 (older
# certbench binaries: 2) and records the failure in the results as a
# "--- FAIL: Benchmark..." line (benchstat ignores it; the gate fails a
# store that failed at head and not at base). A hung call is given up
# after the policy's gate.sample_timeout (run --config; default 10m).
timeout_args=() # per side: the policy, for its sample_timeout
base_timeout=0 head_timeout=0
timeout_flag() { has_flag "$1" run --sample-timeout; }
if timeout_flag "$base_bin"; then base_timeout=1; fi
if timeout_flag "$head_bin"; then head_timeout=1; fi
if [[ ${config_args[0]} == --config ]]; then timeout_args=("${config_args[@]}"); fi
pin=() # a command prefix for run_side (run_pair's taskset)
run_side() { # SIDE ROUND GROUP SCENARIOS [run args...]
  local bin=$base_bin has_round=$base_round has_timeout=$base_timeout rc=0
  if [[ $1 == head ]]; then bin=$head_bin has_round=$head_round has_timeout=$head_timeout; fi
  local round_args=() config_run=()
  if [[ $has_round == 1 ]]; then round_args=(--round "$2"); fi
  if [[ $has_timeout == 1 ]]; then config_run=("${timeout_args[@]+"${timeout_args[@]}"}"); fi
  "${pin[@]+"${pin[@]}"}" "$bin" run --count 1 -q --stores "$stores_arg" --scenarios "$4" "${ops_args[@]+"${ops_args[@]}"}" \
    "${round_args[@]+"${round_args[@]}"}" "${config_run[@]+"${config_run[@]}"}" "${@:5}" -o "$out/raw/$1.$2.$3.txt" || rc=$?
  # 1: a store failed, recorded in the file (the gate decides).
  ((rc == 0 || rc == 1)) || die "$1 binary: certbench run failed in round $2 (exit $rc)"
}
# drop_hung SIDE ROUND GROUP: a store whose call did not return in that
# run is left out of the later runs of both sides: each would wait the
# sample timeout again, and its failure is already recorded.
drop_hung() {
  local file=$out/raw/$1.$2.$3.txt procs suffix s keep=()
  [[ -f $file ]] || return 0
  procs=$(sed -n 's/^gomaxprocs: //p' "$file")
  procs=${procs%%$'\n'*} # the first (no `| head`: see has_flag)
  suffix=""
  if [[ -n $procs && $procs != 1 ]]; then suffix="-$procs"; fi
  for s in "${run_stores[@]}"; do
    if awk -v tail="/store=$s$suffix" '
        hung { if (/did not return within/) found = 1; hung = 0 }
        index($0, "--- FAIL: Benchmark") == 1 && substr($0, length($0) - length(tail) + 1) == tail { hung = 1 }
        END { exit !found }' "$file"; then
      notes+=("store $s did not return at $1 in round $2: left out of the later rounds on both sides")
      log "store $s hung at $1 in round $2: left out of the later rounds"
    else
      keep+=("$s")
    fi
  done
  run_stores=("${keep[@]+"${keep[@]}"}")
  stores_arg=$(IFS=,; echo "${run_stores[*]}")
}
# run_pair runs a scenario's two sides at once, each with GOMAXPROCS=1 on
# its own CPU (base on CPU 0 in odd rounds, CPU 1 in even ones), starting
# every sample's timed ops together; if one fails, the other is stopped.
run_pair() { # ROUND GROUP SCENARIOS
  local d=$out/sync/$1.$2 side cpu pids=() rc=0
  rm -rf "$d" && mkdir -p "$d"
  for side in base head; do
    cpu=$((($1 + 1) % 2))
    if [[ $side == head ]]; then cpu=$(($1 % 2)); fi
    (
      export GOMAXPROCS=1
      if command -v taskset >/dev/null; then pin=(taskset -c "$cpu"); fi
      run_side "$side" "$1" "$2" "$3" --sync "$d"
    ) &
    pids+=($!)
  done
  for pid in "${pids[@]}"; do
    # run_side exits 2 when its run failed (not for a failed store).
    wait "$pid" || { rc=$?; kill "${pids[@]}" 2>/dev/null || true; }
  done
  rm -rf "$d"
  ((rc == 0)) || die "certbench run failed in round $1 (parallel)"
}
# The groups of scenarios one process runs: each scenario alone, or all.
groups=("$scen_arg")
if [[ $interleave != round ]]; then IFS=, read -r -a groups <<<"$scen_arg"; fi
for ((i = 1; i <= count; i++)); do
  t0=$(date +%s)
  for ((g = 0; g < ${#groups[@]}; g++)); do
    if [[ ${#run_stores[@]} -eq 0 ]]; then break; fi
    if [[ $interleave == parallel ]]; then
      run_pair "$i" "$g" "${groups[g]}"
    elif ((i % 2)); then
      run_side base "$i" "$g" "${groups[g]}"; run_side head "$i" "$g" "${groups[g]}"
    else
      run_side head "$i" "$g" "${groups[g]}"; run_side base "$i" "$g" "${groups[g]}"
    fi
    drop_hung base "$i" "$g"; drop_hung head "$i" "$g"
  done
  log "round $i/$count done in $(($(date +%s) - t0))s"
done
stacks=()
for f in "$out"/raw/*-panic-*.txt "$out"/raw/*-hang-*.txt; do
  if [[ -f $f ]]; then stacks+=("raw/${f##*/}"); fi
done
if [[ ${#stacks[@]} -gt 0 ]]; then
  notes+=("stacks of the stores that failed, in the output directory: ${stacks[*]}")
fi
for side in base head; do
  files=()
  for ((i = 1; i <= count; i++)); do
    for ((g = 0; g < ${#groups[@]}; g++)); do
      if [[ -f $out/raw/$side.$i.$g.txt ]]; then files+=("$out/raw/$side.$i.$g.txt"); fi
    done
  done
  "$head_bin" merge -o "$out/$side.txt" "${files[@]}" || die "certbench merge of the $side results failed"
done

# --- gate ----------------------------------------------------------------------
gate() { # extra gate args...
  local rc=0
  (cd "$out" && "$head_bin" gate "${config_args[@]}" "${gate_args[@]+"${gate_args[@]}"}" "$@" \
    --summary summary.md -o gate.txt base.txt head.txt) || rc=$?
  (cd "$out" && "$head_bin" gate "${config_args[@]}" "${gate_args[@]+"${gate_args[@]}"}" "$@" \
    --format json -o gate.json base.txt head.txt >/dev/null 2>&1) || true
  return $rc
}
rc=0
gate || rc=$?
[[ -f "$out/gate.txt" ]] || die "certbench gate wrote no report (exit $rc)"

# Profile the allocation regressions, if any, and gate again to name sites.
if [[ $rc -eq 1 && -f "$out/gate.json" ]]; then
  regressed='.findings[]? | select(.status=="regressed" and (.unit=="allocs/op" or .unit=="B/op"))'
  prof_stores=$(jq -r "$regressed | .store" "$out/gate.json" | sort -u | paste -sd, -)
  prof_scen=$(jq -r "$regressed | .scenario" "$out/gate.json" | sort -u | paste -sd, -)
  if [[ -n "$prof_stores" && -n "$prof_scen" ]]; then
    log "allocation regression: profiling $prof_stores on $prof_scen with both binaries"
    ok=1
    for side in base head; do
      bin=$base_bin
      if [[ $side == head ]]; then bin=$head_bin; fi
      # --dir names the folder; a base binary older than --dir takes -o.
      dir_flag=--dir
      if ! has_flag "$bin" profile --dir; then dir_flag=-o; fi
      "$bin" profile --all -q --stores "$prof_stores" --scenarios "$prof_scen" "${ops_args[@]+"${ops_args[@]}"}" \
        "$dir_flag" "$out/$side-profiles" >"$out/$side-profiles.log" 2>&1 || ok=0
    done
    if [[ $ok == 1 ]]; then
      rc=0
      gate --base-profiles base-profiles --head-profiles head-profiles || rc=$?
    else
      notes+=("profiles could not be captured (see base-profiles.log, head-profiles.log): allocation sites not named")
    fi
  fi
fi

elapsed=$(($(date +%s) - start))
sim_desc=""
if [[ $sim_rc -ge 0 ]]; then
  sim_desc=" and $sim_count simulated samples per side (instructions; time gated at $wall_max)"
  # One report: the simulated CPU's gate first, then the clock's.
  { cat "$out/sim-summary.md"; echo; cat "$out/summary.md"; } >"$out/summary.all.md"
  mv "$out/summary.all.md" "$out/summary.md"
fi
{
  echo
  echo "<sub>certbench-ci: base $base_desc; head $head_desc; module $dir; stores $stores_arg;" \
    "$count interleaved rounds$sim_desc; ${elapsed}s on $(uname -m), $(nproc 2>/dev/null || echo '?') CPUs.</sub>"
  if [[ ${#notes[@]} -gt 0 ]]; then
    echo
    write_notes
  fi
} >>"$out/summary.md"
if [[ $sim_rc -ge 0 ]]; then
  echo "== simulated CPU (instructions/op) =="
  cat "$out/sim-gate.txt"
  echo
  echo "== wall clock =="
  # The worse of the two gates: 2 (bad input) over 1 (regression) over 0.
  if ((sim_rc > rc)); then rc=$sim_rc; fi
fi
cat "$out/gate.txt"
for n in "${notes[@]+"${notes[@]}"}"; do log "note: $n"; done
log "results in $out (gate exit $rc, ${elapsed}s)"
exit "$rc"
