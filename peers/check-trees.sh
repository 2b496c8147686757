#!/usr/bin/env bash
# Exercises certbench peer build and peer check, through the example
# workflows' script (scripts/certbench-peer.sh), on trees of Traefik taken
# from the module cache as if they were checkouts. Called by peers/ci.sh;
# runs from any directory; needs git, jq and the Go module proxy.
#
# 1. A scratch git repository of Traefik: v3.6.12 on main, v3.7.13 on a
#    branch (a pull request), each with the benchmark in
#    peers/testdata/traefik_lookup_bench_test.go added to pkg/tls (Traefik's
#    pkg/tls has none). certbench-peer.sh checks the branch against main, as
#    the example workflow does, on a short run (--scenarios lookup-1000
#    --count 4): the comment must show the gate on both certbench's scenario
#    and Traefik's benchmark, and the trees' go.mod and go.sum must be
#    untouched.
# 2. Bad input: a directory that is not a Go module, a module that is not
#    Traefik or certmagic, base equal to head (the same directory; two
#    copies), a tree that does not compile, a tree whose API differs from
#    the adapter's: each exit 2 with its message, and no temporary
#    directory left behind.
#
# A module zip has no nested modules, which a checkout has: Traefik v3.7's
# go.mod replaces github.com/traefik/traefik/dynamic/ext with
# ./pkg/config/dynamic/ext. extract gives each such missing directory an
# empty module, so that the go command accepts the tree as a main module
# (for go test -c); pkg/tls does not import it.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
export GOFLAGS="${GOFLAGS:--buildvcs=false}" GOWORK=off
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "check-trees: FAIL: $*" >&2; exit 1; }
step() { echo "--- check-trees: $*" >&2; }

# extract MODULE@VERSION DEST: the module's files from the module cache,
# writable, as a checkout.
extract() {
	local dir mod path
	dir=$(go mod download -json "$1" | jq -r .Dir)
	[[ -d "$dir" ]] || fail "go mod download $1"
	mkdir -p "$2"
	cp -R "$dir/." "$2/"
	chmod -R u+w "$2"
	go mod edit -json "$2/go.mod" | jq -r '.Replace[]? | select(.New.Version == null) | "\(.Old.Path) \(.New.Path)"' |
		while read -r mod path; do
			case $path in ./* | ../*) ;; *) continue ;; esac
			if [[ ! -e "$2/$path/go.mod" ]]; then
				mkdir -p "$2/$path"
				printf 'module %s\n\ngo 1.22\n' "$mod" >"$2/$path/go.mod"
			fi
		done
}
fixture() { cp "$root/peers/testdata/traefik_lookup_bench_test.go" "$1/pkg/tls/certbench_lookup_bench_test.go"; }
sums() { sha256sum "$1/go.mod" "$1/go.sum" | awk '{print $1}' | paste -sd' ' -; }
# no_leftovers DIR: the TMPDIR a command ran with is empty again.
no_leftovers() { [[ -z "$(ls -A "$1")" ]] || fail "left behind in TMPDIR: $(ls -A "$1")"; }

export GIT_AUTHOR_NAME=certbench GIT_AUTHOR_EMAIL=ci@example.com GIT_COMMITTER_NAME=certbench GIT_COMMITTER_EMAIL=ci@example.com
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=$work/.gitconfig

# --- 1. the workflow's script on a Traefik pull request --------------------
step "a Traefik repository: v3.6.12 on main, v3.7.13 on a branch"
repo=$work/traefik
extract github.com/traefik/traefik/v3@v3.6.12 "$repo"
fixture "$repo"
git -C "$repo" init -q -b main
git -C "$repo" add -A
git -C "$repo" commit -qm "v3.6.12"
git -C "$repo" checkout -q -b pr
find "$repo" -mindepth 1 -maxdepth 1 ! -name .git -exec rm -rf {} +
extract github.com/traefik/traefik/v3@v3.7.13 "$repo"
fixture "$repo"
git -C "$repo" add -A
git -C "$repo" commit -qm "v3.7.13"
before=$(sums "$repo")

step "certbench-peer.sh main (short: lookup-1000, count 4)"
mkdir -p "$work/tmp"
out=$work/out
rc=0
(cd "$repo" && TMPDIR=$work/tmp "$root/scripts/certbench-peer.sh" --out "$out" main -- \
	--scenarios lookup-1000 --count 4 --bench CertbenchLookupMiss) >"$work/check.log" 2>&1 || rc=$?
cat "$work/check.log" >&2
[[ $rc == 0 || $rc == 1 ]] || fail "certbench-peer.sh: exit $rc, want 0 or 1"
comment=$out/comment.md
[[ -f "$comment" ]] || fail "no comment.md"
[[ "$(head -n 1 "$comment")" == "<!-- certbench-peer -->" ]] || fail "comment.md does not start with its marker"
for want in "certbench on traefik" "traefik@base" "traefik@head" "#### Behaviour changes" \
	"#### Costs: certbench's scenarios" "lookup-1000/traefik" "#### Costs: the proxy's own benchmarks" \
	"CertbenchLookupMiss" "github.com/traefik/traefik/v3/pkg/tls"; do
	grep -qF -- "$want" "$comment" || fail "comment.md lacks \"$want\""
done
# Traefik v3.7 walks SAN keys without allocating per label: fewer
# allocations per miss than v3.6, in certbench's scenario and in the
# fixture benchmark alike.
grep -qE '^\| certbench.s scenarios \| ✅ 0 regressed, [1-9]' "$comment" || fail "the scenario gate shows no improvement"
grep -qE "^\| the proxy.s own benchmarks \| ✅ 0 regressed, [1-9]" "$comment" || fail "the proxy's benchmark gate shows no improvement"
if grep -q 'behaviour diff | ✅\|behaviour diff | ❌' "$comment"; then
	# The behaviour diff ran: Traefik v3.7 changed tie-breaking and exact
	# names under a shared wildcard.
	[[ $rc == 1 ]] || fail "the behaviour diff ran but the check passed (exit 0)"
	grep -q 'behaviour diff | ❌' "$comment" || fail "the behaviour diff found no change between v3.6.12 and v3.7.13"
fi
[[ "$(sums "$repo")" == "$before" ]] || fail "the head tree's go.mod or go.sum changed"
[[ -z "$(git -C "$repo" worktree list | sed 1d)" ]] || fail "a worktree was left behind: $(git -C "$repo" worktree list)"
no_leftovers "$work/tmp"

# --- 2. bad input -----------------------------------------------------------
go build -o "$work/certbench" ./cmd/certbench
cb() { TMPDIR=$work/tmp "$work/certbench" peer build --certbench "$root" -o "$work/bin/peer" "$@"; }
# expect_bad WANT ARGS...: exit 2, WANT in the message, nothing left behind.
expect_bad() {
	local want=$1 rc=0
	shift
	cb "$@" >"$work/bad.log" 2>&1 || rc=$?
	[[ $rc == 2 ]] || { cat "$work/bad.log" >&2; fail "peer build $*: exit $rc, want 2"; }
	grep -qF -- "$want" "$work/bad.log" || { cat "$work/bad.log" >&2; fail "peer build $*: no \"$want\" in the message"; }
	no_leftovers "$work/tmp"
	sed 's/^/    /' "$work/bad.log" >&2
}
v37=$work/v3.7.13
extract github.com/traefik/traefik/v3@v3.7.13 "$v37"
mkdir -p "$work/notmod"
step "bad input: not a Go module"
expect_bad "not a Go module" --base "$work/notmod" --head "$v37"
step "bad input: not Traefik or certmagic"
expect_bad "is not a proxy certbench has an adapter for" --base "$root/examples/mystore" --head "$v37"
step "bad input: base equal to head"
expect_bad "are the same directory" --base "$v37" --head "$v37"
cp -R "$v37" "$work/v3.7.13-copy"
expect_bad "hold the same Go code" --base "$v37" --head "$work/v3.7.13-copy"
step "bad input: a tree that does not compile"
broken=$work/broken
cp -R "$v37" "$broken"
printf '\nfunc broken( {\n' >>"$broken/pkg/tls/tls.go"
expect_bad "does not compile" --base "$repo" --head "$broken"
step "bad input: a tree whose API differs from the adapter's"
api=$work/api
cp -R "$v37" "$api"
sed -i 's/^func NewManager(/func NewTLSManager(/' "$api/pkg/tls/tlsmanager.go"
sed -i 's/^func (m \*Manager) UpdateConfigs(/func (m *Manager) ApplyConfigs(/' "$api/pkg/tls/tlsmanager.go"
expect_bad "change New, (*Store).Update to it" --base "$repo" --head "$api"
for t in "$v37" "$api" "$broken"; do
	[[ "$(sums "$t")" == "$(sums "$work/v3.7.13-copy")" ]] || fail "$t: go.mod or go.sum changed"
done
step "ok"
