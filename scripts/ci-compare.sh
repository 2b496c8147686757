#!/usr/bin/env bash
# ci-compare.sh: gate a change to this repository (certbench itself) on
# certbench's allocation and time metrics.
#
#   scripts/ci-compare.sh [BASE_REF] [certbench-ci.sh options]
#
# This is scripts/certbench-ci.sh with this repository's settings: the binary
# is ./cmd/certbench at the repository root, and the store measured by
# default is optimized, the store under development (naive is slow and noisy
# because it generates an RSA key per refresh). See certbench-ci.sh for what
# it does, its options, outputs and exit status; the environment variables
# CERTBENCH_STORES, CERTBENCH_SCENARIOS, CERTBENCH_COUNT, CERTBENCH_OUT,
# CERTBENCH_CONFIG, CERTBENCH_GATE_ARGS and CERTBENCH_BASE_BIN work as
# before. The simulated CPU is on (--simulate: instructions/op gated,
# time only loosely; valgrind needed); CERTBENCH_SIMULATE=0 turns it off.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
export CERTBENCH_STORES="${CERTBENCH_STORES:-optimized}"
export CERTBENCH_SIMULATE="${CERTBENCH_SIMULATE:-1}"
cd "$root"
exec "$here/certbench-ci.sh" --dir . --main ./cmd/certbench "$@"
