#!/usr/bin/env bash
# Builds and tests the peer modules: peers/certmagic, peers/traefik (each its
# own Go module, so the main module stays light) and peers/all (a certbench
# binary with both peers), plus the helper they share (peers/internal, part of
# the main module). Called from the root .ci/run; runs from any directory.
#
# Each peer module runs `go vet ./... && go test -race -short ./...`. Under
# -short that is the adapters' conformance-table check (the suite runs in a
# subprocess, and only a table in peers/README.md that no longer matches
# fails) and no calibration. Traefik's module graph is large (Kubernetes
# client-go among it): on a clean module and build cache, fetching it and
# building it twice (vet and -race) dominates this script's time; see
# peers/README.md for measured figures.
set -euo pipefail
cd "$(dirname "$0")"
export GOFLAGS="${GOFLAGS:--buildvcs=false}"

step() {
	local start=$SECONDS
	echo "--- $*" >&2
	"$@"
	echo "    ($((SECONDS - start))s)" >&2
}
within() { (cd "$1" && shift && "$@"); }

unformatted=$(gofmt -l .)
if [ -n "$unformatted" ]; then
	echo "gofmt would change:"; echo "$unformatted"; exit 1
fi

# The shared helper lives in the main module.
step within .. go vet ./peers/internal/...
step within .. go test -race -short ./peers/internal/...

for m in certmagic traefik; do
	# Fetch first, so that download time shows apart from build time.
	step within "$m" go list -deps -test ./... >/dev/null
	step within "$m" go vet ./...
	step within "$m" go test -race -short ./...
done

# The combined binary: its dependencies are the two peers', same versions.
step within all go vet ./...
step within all go build -o /dev/null .

# certbench peer build and peer check on Traefik trees taken from the module
# cache (v3.6.12 as a pull request's base, v3.7.13 as its head), through
# the example workflows' script, and on bad input; see check-trees.sh.
step bash check-trees.sh

# The adapters adapt to the era of the proxy's tree (internal/peer/peerbuild's
# probes): certbench peer build on the oldest and newest release of each
# supported range that the module proxy serves, from the module cache, then
# the conformance suite on the oldest side (certmagic's; Traefik's ran in
# check-trees.sh). Older Traefik eras (v2.10-v3.4, PR trees) are not on the
# proxy; peers/README.md says which were built from checkouts.
peerbin=$(mktemp -d)
trap 'rm -rf "$peerbin"' EXIT
for pair in "github.com/traefik/traefik/v3 traefik v3.6.12 v3.7.13" "github.com/caddyserver/certmagic certmagic v0.20.0 v0.25.6"; do
	read -r mod kind old new <<<"$pair"
	step go mod download "$mod@$old" "$mod@$new"
	step within .. go run ./cmd/certbench peer build --base "$kind@$old" --head "$kind@$new" -o "$peerbin/$kind"
done
# Exit 1: rules certmagic breaks (peers/README.md's table); 2 or more: it did not run.
rc=0
"$peerbin/certmagic" conformance --stores certmagic@base >/dev/null || rc=$?
[[ $rc == 0 || $rc == 1 ]] || { echo "conformance on certmagic@v0.20.0: exit $rc"; exit 1; }
