#!/usr/bin/env bash
# Exercises certbench peer build and peer check, through the example
# workflows' script (scripts/certbench-peer.sh), on trees of Traefik taken
# from the module cache as if they were checkouts. Called by peers/ci.sh;
# runs from any directory; needs git, jq and the Go module proxy.
#
# 1. Scratch git repositories of Traefik (v3.6.12 on main, v3.7.13 on a
#    branch: a pull request) and of certmagic (v0.24.0, v0.25.6), each side
#    with a benchmark of peers/testdata added (Traefik's pkg/tls has none;
#    certmagic v0.24 has none), as a pull request would carry one.
#    certbench-peer.sh checks the branch against main, as the example
#    workflows do, on a short run (one scenario, --count 4): the comment
#    must show the sections, Traefik's lookup-1000 allocations falling and
#    certmagic's own benchmark gated; the trees' go.mod and go.sum must be
#    untouched. Traefik's own test binaries are not built here (at two
#    versions a cold build cache compiles Kubernetes' client twice, minutes
#    of CI): the proxy's benchmarks are exercised on certmagic.
# 2. Bad input: a directory that is not a Go module, a module that is not
#    Traefik or certmagic, base equal to head (the same directory; two
#    copies), a tree that does not compile, a tree whose API differs from
#    the adapter's (NewManager's signature changed at the head, then on
#    both sides; a field the adapter sets renamed on both sides): each exit
#    2 with its message naming the sides, and no temporary directory left
#    behind.
#
# With the argument bad-input, only part 2 runs (it needs no peer check).
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
sums() { sha256sum "$1/go.mod" "$1/go.sum" | awk '{print $1}' | paste -sd' ' -; }
# no_leftovers DIR: the TMPDIR a command ran with is empty again.
no_leftovers() { [[ -z "$(ls -A "$1")" ]] || fail "left behind in TMPDIR: $(ls -A "$1")"; }

export GIT_AUTHOR_NAME=certbench GIT_AUTHOR_EMAIL=ci@example.com GIT_COMMITTER_NAME=certbench GIT_COMMITTER_EMAIL=ci@example.com
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=$work/.gitconfig

# --- 1. the workflow's script on pull requests -----------------------------
# repo KIND MODULE BASE_VERSION HEAD_VERSION FIXTURE DEST: a git repository
# with BASE_VERSION on main and HEAD_VERSION on branch pr, FIXTURE (a
# benchmark file) copied to the same place in both.
repo() {
	local dest=$7
	extract "$2@$3" "$dest"
	cp "$root/peers/testdata/$5" "$dest/$6"
	git -C "$dest" init -q -b main
	git -C "$dest" add -A
	git -C "$dest" commit -qm "$3"
	git -C "$dest" checkout -q -b pr
	find "$dest" -mindepth 1 -maxdepth 1 ! -name .git -exec rm -rf {} +
	extract "$2@$4" "$dest"
	cp "$root/peers/testdata/$5" "$dest/$6"
	git -C "$dest" add -A
	git -C "$dest" commit -qm "$4"
}
# check_pr KIND REPO OUT ARGS...: certbench-peer.sh on REPO's branch against
# main; exit 0 or 1, a comment with its marker and sections, the trees'
# go.mod and go.sum untouched, no worktree or temporary directory left.
check_pr() {
	local kind=$1 dir=$2 out=$3 rc=0 before want
	shift 3
	before=$(sums "$dir")
	mkdir -p "$work/tmp"
	(cd "$dir" && TMPDIR=$work/tmp "$root/scripts/certbench-peer.sh" --out "$out" main -- "$@") >"$work/check.log" 2>&1 || rc=$?
	cat "$work/check.log" >&2
	[[ $rc == 0 || $rc == 1 ]] || fail "$kind: certbench-peer.sh: exit $rc, want 0 or 1"
	comment=$out/comment.md
	[[ -f "$comment" ]] || fail "$kind: no comment.md"
	[[ "$(head -n 1 "$comment")" == "<!-- certbench-peer -->" ]] || fail "$kind: comment.md does not start with its marker"
	for want in "certbench on $kind" "$kind@base" "$kind@head" "#### Behaviour changes" \
		"#### Costs: certbench's scenarios" "#### Costs: the proxy's own benchmarks"; do
		grep -qF -- "$want" "$comment" || fail "$kind: comment.md lacks \"$want\""
	done
	if grep -q 'behaviour diff | ❌' "$comment"; then
		[[ $rc == 1 ]] || fail "$kind: a behaviour change, yet exit $rc"
	fi
	[[ "$(sums "$dir")" == "$before" ]] || fail "$kind: the head tree's go.mod or go.sum changed"
	[[ -z "$(git -C "$dir" worktree list | sed 1d)" ]] || fail "$kind: a worktree was left behind"
	no_leftovers "$work/tmp"
	return 0
}
# Time and retained heap are not gated here: at 4 rounds on a shared
# machine they are noise; allocations are not.
quiet=(--max sec/op=off --max retained-B=off)
# The clock, not the simulated CPU: under callgrind a real proxy's sample
# takes minutes on this machine, and these checks are of the comment, not
# of instruction counts (internal/peer/peercheck's tests cover the simulated one).
quiet+=(--simulate=false)

step "a Traefik repository: v3.6.12 on main, v3.7.13 on a branch"
repo traefik github.com/traefik/traefik/v3 v3.6.12 v3.7.13 traefik_lookup_bench_test.go pkg/tls/certbench_lookup_bench_test.go "$work/traefik"
if [[ ${1:-} != bad-input ]]; then
step "certbench-peer.sh main on Traefik (lookup-1000, count 4; Traefik's test binaries are not built: a cold cache compiles Kubernetes' client twice)"
check_pr traefik "$work/traefik" "$work/out-traefik" --scenarios lookup-1000 --count 4 --skip gobench "${quiet[@]}"
# Traefik v3.7 walks SAN keys without allocating per label: fewer
# allocations per miss than v3.6.
grep -qE '^\| certbench.s scenarios \| ✅ 0 regressed, [1-9]' "$comment" || fail "traefik: the scenario gate shows no improvement"
grep -qF 'lookup-1000/traefik' "$comment" || fail "traefik: lookup-1000/traefik not in the comment"
if grep -q 'behaviour diff | ✅\|behaviour diff | ❌' "$comment"; then
	# The behaviour diff ran: v3.7 breaks ties on a shared SAN otherwise
	# and loses exact names to a shared wildcard.
	grep -q 'behaviour diff | ❌' "$comment" || fail "traefik: the behaviour diff found no change between v3.6.12 and v3.7.13"
fi

step "a certmagic repository: v0.24.0 on main, v0.25.6 on a branch"
repo certmagic github.com/caddyserver/certmagic v0.24.0 v0.25.6 certmagic_lookup_bench_test.go certbench_lookup_bench_test.go "$work/certmagic"
step "certbench-peer.sh main on certmagic (rotate-10-of-100, count 4, certmagic's own benchmark)"
check_pr certmagic "$work/certmagic" "$work/out-certmagic" --scenarios rotate-10-of-100 --count 4 \
	--bench CertbenchGetCertificate "${quiet[@]}"
grep -qF 'CertbenchGetCertificate' "$comment" || fail "certmagic: its benchmark is not in the comment"
grep -qE "^\| the proxy.s own benchmarks \| (✅|❌) [0-9]+ regressed" "$comment" || fail "certmagic: its benchmark was not gated"
fi

# --- 2. bad input -----------------------------------------------------------
go build -o "$work/certbench" ./cmd/certbench
mkdir -p "$work/tmp"
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
expect_bad "does not compile" --base "$work/traefik" --head "$broken"
step "bad input: a tree whose API the adapter does not know (NewManager with another signature)"
api=$work/api
cp -R "$v37" "$api"
sed -i 's/^func NewManager(ocspConfig \*OCSPConfig) \*Manager {/func NewManager(ocspConfig *OCSPConfig, strict bool) *Manager {/' "$api/pkg/tls/tlsmanager.go"
newmanager="tls.NewManager: head declares func NewManager(ocspConfig *OCSPConfig, strict bool) *Manager (pkg/tls/tlsmanager.go:"
expect_bad "$newmanager" --base "$work/traefik" --head "$api"
grep -qF "does not know the API of head tree $api:" "$work/bad.log" || fail "the unknown API is not the head's alone"
grep -qF "the adapter knows func NewManager(*OCSPConfig) *Manager (v3.5 and later) or func NewManager() *Manager" "$work/bad.log" || fail "the known signatures are not named"
api2=$work/api2
cp -R "$api" "$api2"
printf 'package tls\n' >"$api2/pkg/tls/other.go"
expect_bad "tls.NewManager: base and head declare func NewManager(ocspConfig *OCSPConfig, strict bool) *Manager" --base "$api" --head "$api2"
step "bad input: an API change outside the probed calls (a field the adapter sets), on both sides"
field=$work/field
cp -R "$v37" "$field"
sed -i 's/\bDefaultCertificate\b/FallbackCertificate/g; s/generate\.FallbackCertificate/generate.DefaultCertificate/g' "$field"/pkg/tls/*.go
field2=$work/field2
cp -R "$field" "$field2"
printf 'package tls\n' >"$field2/pkg/tls/other.go"
expect_bad "does not build against base tree $field and head tree $field2" --base "$field" --head "$field2"
for t in "$v37" "$api" "$broken"; do
	[[ "$(sums "$t")" == "$(sums "$work/v3.7.13-copy")" ]] || fail "$t: go.mod or go.sum changed"
done
step "ok"
