#!/usr/bin/env bash
# certbench-peer.sh: check a pull request of Traefik or certmagic with
# certbench, from the proxy's own repository.
#
#   certbench-peer.sh [--out DIR] [BASE_REF] [-- PEER_CHECK_FLAGS...]
#
# Run it inside a checkout of the proxy. It builds certbench from the
# checkout this script is in and runs `certbench peer check --base
# BASE_REF --head ROOT` (ROOT: the repository's top level; see `certbench
# peer check --help`): the base is the merge base of BASE_REF (default
# origin/main, else main, else master) and HEAD, in a temporary worktree.
# --out (CERTBENCH_OUT) is peer check's --out (default certbench-peer-out);
# OUT/comment.md is printed. Exit status: that of peer check (0 pass, 1 a
# rule newly broken, a behaviour change or a regression, 2 bad input).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
out=${CERTBENCH_OUT:-certbench-peer-out}
ref="" args=()
while [[ $# -gt 0 ]]; do
  case $1 in
    -h | --help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
    --out) out=${2:?--out needs a value}; shift 2 ;;
    --) shift; args+=("$@"); break ;;
    *) ref=$1; shift ;;
  esac
done
head=$(git rev-parse --show-toplevel) || { echo "certbench-peer: not in a git repository" >&2; exit 2; }
for r in origin/main main master; do
  if [[ -z $ref ]] && git rev-parse --verify -q "$r" >/dev/null; then ref=$r; fi
done
bin=$(mktemp -d)/certbench
trap 'rm -rf "$(dirname "$bin")"' EXIT
go build -C "$here" -o "$bin" ./cmd/certbench || { echo "certbench-peer: cannot build certbench in $here" >&2; exit 2; }
mkdir -p "$out" && rm -f "$out/comment.md"
rc=0
"$bin" peer check --certbench "$here" --base "${ref:-main}" --head "$head" \
  --out "$out" "${args[@]+"${args[@]}"}" >/dev/null || rc=$?
if [[ -f $out/comment.md ]]; then cat "$out/comment.md"; fi
exit "$rc"
