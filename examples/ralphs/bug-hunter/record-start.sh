#!/usr/bin/env bash
# Remembers the commit the hunt started from, once per clone, in .git (never committed; the common one, so the
# clean checkout that verifies the commit before delivery, a worktree of this clone, finds it too): the gates
# compare the work with it. A hunt that continues an open pull request starts from that branch's tip.
set -euo pipefail
file="$(git rev-parse --git-common-dir)/ralph-hunt-start"
[ -s "$file" ] || git rev-parse HEAD > "$file"
echo "The hunt started at $(cat "$file") ($(git log -1 --format=%s "$(cat "$file")"))."
