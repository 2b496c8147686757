#!/usr/bin/env bash
# certbench-comment.sh: post a pull request's certbench report as one
# comment, or edit the one posted before, from the artifact that the
# pull request's run uploaded. actions/comment runs it in a workflow_run
# job, which never checks out or runs the pull request's code
# (docs/ci.md says why).
#
# The artifact, MARKER-comment-ATTEMPT of run RUN_ID, holds two files:
# pr (the pull request's number) and comment.md (the report). The
# pull request wrote both, so both are untrusted data. The number is
# used only if it is digits and names a pull request of REPO whose head
# is HEAD_SHA, the commit the run was for. The report is read from the
# archive into a file, cut to 60,000 bytes and sent to the API as that
# file; no shell ever reads it as code or arguments.
#
# Environment (from the workflow_run event and the action's inputs):
#   GH_TOKEN (actions read, pull-requests write), REPO (owner/name),
#   RUN_ID, ATTEMPT, HEAD_SHA, RUN_URL, MARKER (the gate's comment-marker).
# Needs gh, jq and unzip (a hosted Ubuntu runner has them).
#
# Exit status: 0 when the comment was posted or edited, or when there is
# nothing to post: no artifact, or a pull request whose head is not the
# run's commit (a newer push, whose own run will comment, or an artifact
# naming another pull request); 1 when the artifact is not what a gate
# uploads (a number that is not one, no report, an archive over 1 MiB)
# or the API failed.
set -euo pipefail
if [[ ${1:-} == -h || ${1:-} == --help ]]; then
  sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"
  exit 0
fi
fail() { echo "certbench-comment: $*" >&2; exit 1; }
# The trusted inputs are checked too: they end up in API paths.
[[ ${REPO:-} =~ ^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$ ]] || fail "REPO=${REPO:-}: want owner/name"
[[ ${RUN_ID:-} =~ ^[0-9]+$ && ${ATTEMPT:-} =~ ^[0-9]+$ ]] || fail "RUN_ID and ATTEMPT: want numbers"
[[ ${HEAD_SHA:-} =~ ^[0-9a-f]{40}$ ]] || fail "HEAD_SHA=${HEAD_SHA:-}: want a commit hash"
[[ ${RUN_URL:-} =~ ^https://[^[:space:]()]+$ ]] || fail "RUN_URL=${RUN_URL:-}: want the run's https address"
[[ ${MARKER:-} =~ ^[A-Za-z0-9][A-Za-z0-9_.-]*$ ]] || fail "MARKER=${MARKER:-}: want letters, digits, . _ -"
name=$MARKER-comment-$ATTEMPT
max_archive=1048576 max_body=60000

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
gh api --method GET "repos/$REPO/actions/runs/$RUN_ID/artifacts" -f name="$name" >"$tmp/artifacts.json"
read -r id size < <(jq -r '[(.artifacts // [])[] | select(.expired | not)][0] // {} | "\(.id // 0) \(.size_in_bytes // 0)"' "$tmp/artifacts.json")
if [[ $id == 0 ]]; then
  echo "certbench-comment: run $RUN_ID has no artifact $name (the run stopped before its report, or it was not a pull request's): nothing to post"
  exit 0
fi
[[ $id =~ ^[0-9]+$ && $size =~ ^[0-9]+$ ]] || fail "artifact $name: unexpected id or size from the API"
((size <= max_archive)) || fail "artifact $name is $size bytes, more than a report ($max_archive): not posted"
gh api "repos/$REPO/actions/artifacts/$id/zip" >"$tmp/artifact.zip"

# The number: at most 12 bytes read, then digits only.
pr=$(unzip -p "$tmp/artifact.zip" pr 2>/dev/null | head -c 12 | tr -d '\n') || true
[[ $pr =~ ^[1-9][0-9]{0,9}$ ]] || fail "artifact $name: pr is not a pull request number"
head=$(gh api "repos/$REPO/pulls/$pr" | jq -r '.head.sha')
if [[ $head != "$HEAD_SHA" ]]; then
  # A push after the run started moved the head (that push's run will
  # comment), or the artifact names another pull request.
  echo "certbench-comment: pull request #$pr's head is ${head:0:12}, not the run's ${HEAD_SHA:0:12}: not posted"
  exit 0
fi

# The body: the marker line (ours, not the artifact's), the report cut to
# max_body bytes, a link to the run.
body=$tmp/body.md
unzip -p "$tmp/artifact.zip" comment.md 2>/dev/null | head -c $((max_body + 1)) >"$tmp/report.md" || true
[[ -s $tmp/report.md ]] || fail "artifact $name has no comment.md"
{
  printf '<!-- %s -->\n' "$MARKER"
  head -c "$max_body" "$tmp/report.md"
  if (($(wc -c <"$tmp/report.md") > max_body)); then
    printf '\n\n(cut at %d bytes: the whole report is in the run'"'"'s job summary)\n' "$max_body"
  fi
  printf '\n\n[The run](%s): its job summary and artifacts.\n' "${RUN_URL:-}"
} >"$body"

# Edit this gate's last comment, found by its first line and a bot's (a
# person's comment that starts with the marker is left alone), or post one.
gh api "repos/$REPO/issues/$pr/comments" --paginate >"$tmp/comments.json"
cid=$(jq -r --arg m "<!-- $MARKER -->" '.[] | select(.user.type == "Bot" and (.body | startswith($m))) | .id' "$tmp/comments.json" | tail -n 1)
if [[ $cid =~ ^[0-9]+$ ]]; then
  gh api --method PATCH "repos/$REPO/issues/comments/$cid" -F body=@"$body" >/dev/null
  echo "certbench-comment: edited comment $cid on pull request #$pr"
else
  gh api --method POST "repos/$REPO/issues/$pr/comments" -F body=@"$body" >/dev/null
  echo "certbench-comment: commented on pull request #$pr"
fi
