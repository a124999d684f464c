#!/usr/bin/env bash
# Gate: a bug fix is small and stays out of places a hunt has no business in (CI, workflows, dependencies,
# lockfiles), so a reviewer can read it in minutes. RALPH_HUNT_MAX_LINES changes the size limit.
set -uo pipefail
max_lines=${RALPH_HUNT_MAX_LINES:-300}
start=$(cat "$(git rev-parse --git-common-dir)/ralph-hunt-start" 2>/dev/null) || { echo "No start commit recorded."; exit 1; }
untracked=$(git ls-files --others --exclude-standard)
changed=$(printf '%s\n%s\n' "$(git diff --name-only "$start" --)" "$untracked" | grep -v '^$' | sort -u)
forbidden=$(grep -E '^\.github/|(^|/)(package-lock\.json|npm-shrinkwrap\.json|yarn\.lock|pnpm-lock\.yaml|package\.json)$' <<< "$changed")
if [ -n "$forbidden" ]; then
  echo "A bug hunt may not change these files; undo the changes to:"
  echo "$forbidden"
  exit 1
fi
tracked_lines=$(git diff --numstat "$start" -- | awk '{ n += $1 + $2 } END { print n + 0 }')
new_lines=0
while IFS= read -r f; do
  [ -n "$f" ] && new_lines=$((new_lines + $(wc -l < "$f")))
done <<< "$untracked"
lines=$((tracked_lines + new_lines))
if [ "$lines" -gt "$max_lines" ]; then
  echo "The change is $lines lines (at most $max_lines): fix one bug, in the smallest change that does it."
  exit 1
fi
echo "The change is $lines lines, in: $(tr '\n' ' ' <<< "$changed")"
