#!/usr/bin/env bash
# ci-compare.sh: gate a change to this repository (certbench itself) with
# `certbench ab` (through certbench-ci.sh): the binary is ./cmd/certbench at
# the repository root, and the store measured by default is optimized, the
# store under development (naive is slow and noisy: an RSA key per
# refresh). The simulated CPU is on (instructions/op gated, time only
# loosely; valgrind needed); CERTBENCH_SIMULATE=0 turns it off. Arguments
# and the other CERTBENCH_* variables are certbench ab's.
#
#   scripts/ci-compare.sh [certbench ab flags] [BASE_REF]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
export CERTBENCH_STORES="${CERTBENCH_STORES:-optimized}"
export CERTBENCH_SIMULATE="${CERTBENCH_SIMULATE:-1}"
cd "$here/.."
exec "$here/certbench-ci.sh" --module . --main ./cmd/certbench "$@"
