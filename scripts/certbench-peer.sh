#!/usr/bin/env bash
# certbench-peer.sh: check a pull request of Traefik or certmagic with
# certbench, from the proxy's own repository.
#
#   certbench-peer.sh [options] [BASE_REF] [-- CHECK_ARGS...]
#
# Run it inside a checkout of the proxy (a Traefik or certmagic repository).
# The head is the working tree (its module root); the base is the merge base
# of BASE_REF and HEAD, checked out in a temporary git worktree that is
# removed afterwards. It builds certbench from the checkout this script is
# in, then runs `certbench peer check --base BASE --head HEAD` (see
# `certbench peer check --help`): one certbench binary with both sides as
# stores (traefik@base, traefik@head), conformance, the behaviour diff
# between the two, the gate on certbench's scenarios and on the proxy's own
# go test benchmarks, and one Markdown comment, OUT/comment.md.
#
# Options (each also has an environment variable, which the option overrides):
#   --base-tree DIR   the base as a directory instead of a worktree of
#                     BASE_REF (CERTBENCH_BASE_TREE); git is then not needed
#   --head-tree DIR   the head's directory (CERTBENCH_HEAD_TREE; default: the
#                     root of the git repository the working directory is in)
#   --out DIR         output directory (CERTBENCH_OUT; default
#                     certbench-peer-out)
#   --certbench DIR   the certbench checkout (CERTBENCH_ROOT; default: the one
#                     this script is in)
# Arguments after -- (and the words of CERTBENCH_CHECK_ARGS) go to
# certbench peer check, e.g. -- --count 6 --scenarios lookup-1000.
#
# BASE_REF (or CERTBENCH_BASE_REF) defaults to origin/main, or main, or
# master when neither exists.
#
# Exit status: that of certbench peer check (0 pass; 1 a rule newly broken,
# a behaviour change or a cost regression; 2 bad input), or 2 when this
# script's own input is bad.
set -euo pipefail

die() { echo "certbench-peer: $*" >&2; exit 2; }
log() { echo "certbench-peer: $*" >&2; }
usage() { sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; }

here=$(cd "$(dirname "$0")" && pwd)
base_tree=${CERTBENCH_BASE_TREE:-}
head_tree=${CERTBENCH_HEAD_TREE:-}
out=${CERTBENCH_OUT:-certbench-peer-out}
root=${CERTBENCH_ROOT:-$(dirname "$here")}
base_ref=${CERTBENCH_BASE_REF:-}
# shellcheck disable=SC2206 # split on spaces, documented
check_args=(${CERTBENCH_CHECK_ARGS:-})

need() { [[ $# -ge 2 ]] || die "$1 needs a value (see --help)"; }
while [[ $# -gt 0 ]]; do
  case $1 in
    -h | --help) usage; exit 0 ;;
    --base-tree) need "$@"; base_tree=$2; shift 2 ;;
    --head-tree) need "$@"; head_tree=$2; shift 2 ;;
    --out) need "$@"; out=$2; shift 2 ;;
    --certbench) need "$@"; root=$2; shift 2 ;;
    --) shift; check_args+=("$@"); break ;;
    -*) die "unknown option $1 (see --help)" ;;
    *) [[ -z "${ref_seen:-}" ]] || die "more than one BASE_REF: $1"; base_ref=$1; ref_seen=1; shift ;;
  esac
done

abspath() { [[ $1 == /* ]] && echo "$1" || echo "$PWD/$1"; }
out=$(abspath "$out")
[[ -f "$root/go.mod" && -d "$root/peers" ]] || die "--certbench $root: not a certbench checkout"
root=$(cd "$root" && pwd)

tmp=$(mktemp -d)
worktree=""
repo=""
# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() {
  if [[ -n "$worktree" ]]; then
    git -C "$repo" worktree remove --force "$worktree" >/dev/null 2>&1 || true
    git -C "$repo" worktree prune >/dev/null 2>&1 || true
  fi
  rm -rf "$tmp"
}
trap cleanup EXIT

if [[ -z "$head_tree" ]]; then
  head_tree=$(git rev-parse --show-toplevel 2>/dev/null) || die "not in a git repository (give --head-tree)"
fi
head_tree=$(cd "$head_tree" 2>/dev/null && pwd) || die "--head-tree $head_tree: no such directory"
head_label=$(basename "$head_tree")
if rev=$(git -C "$head_tree" rev-parse --short HEAD 2>/dev/null); then
  head_label="HEAD@$rev"
  [[ -z "$(git -C "$head_tree" status --porcelain --untracked-files=no 2>/dev/null)" ]] || head_label+=" with uncommitted changes"
fi

if [[ -n "$base_tree" ]]; then
  base_tree=$(cd "$base_tree" 2>/dev/null && pwd) || die "--base-tree $base_tree: no such directory"
  base_label=$(basename "$base_tree")
else
  command -v git >/dev/null || die "git is required (or give --base-tree)"
  repo=$(git -C "$head_tree" rev-parse --show-toplevel 2>/dev/null) || die "$head_tree is not in a git repository (give --base-tree)"
  if [[ -z "$base_ref" ]]; then
    for r in origin/main main master; do
      if git -C "$repo" rev-parse --verify -q "$r" >/dev/null; then base_ref=$r; break; fi
    done
    [[ -n "$base_ref" ]] || die "no BASE_REF given and none of origin/main, main, master exists"
  fi
  git -C "$repo" rev-parse --verify -q "$base_ref^{commit}" >/dev/null ||
    die "unknown base ref $base_ref (fetch it, or use fetch-depth: 0 in CI)"
  commit=$(git -C "$repo" merge-base "$base_ref" HEAD) || die "no merge base between $base_ref and HEAD"
  [[ "$commit" != "$(git -C "$repo" rev-parse HEAD)" || -n "$(git -C "$repo" status --porcelain --untracked-files=no)" ]] ||
    die "HEAD is the merge base of $base_ref and HEAD: nothing to compare"
  worktree=$tmp/base
  git -C "$repo" worktree add --detach --quiet "$worktree" "$commit" || die "cannot check out $commit"
  # The module may sit in a subdirectory of the repository.
  rel=${head_tree#"$repo"}
  base_tree=$worktree$rel
  base_label="$base_ref@$(git -C "$repo" rev-parse --short "$commit")"
fi

log "building certbench from $root"
(cd "$root" && go build -o "$tmp/certbench" ./cmd/certbench) || die "cannot build certbench in $root"
log "base: $base_label; head: $head_label"
mkdir -p "$out"
rm -f "$out/comment.md"
rc=0
"$tmp/certbench" peer check --certbench "$root" --base "$base_tree" --head "$head_tree" \
  --base-label "$base_label" --head-label "$head_label" --dir "$out" \
  "${check_args[@]+"${check_args[@]}"}" >/dev/null || rc=$?
[[ -f "$out/comment.md" ]] && cat "$out/comment.md"
log "results in $out (exit $rc)"
exit "$rc"
