#!/usr/bin/env bash
# certbench-ci.sh: gate a change to any certificate store, in any git
# repository, on certbench's allocation, instruction and time metrics.
#
#   certbench-ci.sh [certbench ab flags] [BASE_REF]
#
# Builds certbench from the checkout this script is in and runs
# `certbench ab` with the arguments in the working directory: the CI
# protocol (A/B rounds, or with --history a gate against main's results,
# or --record) is ab's, docs/ci.md. The action (action.yml) sets ab's flags
# as CERTBENCH_* variables, which ab reads (certbench ab --help).
#
# Exit status: ab's (0 pass, 1 regression, 2 bad input or a failed build).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -C "$here" -o "$tmp/certbench" ./cmd/certbench || { echo "certbench-ci: cannot build certbench in $here" >&2; exit 2; }
rc=0
"$tmp/certbench" ab "$@" || rc=$?
exit "$rc"
