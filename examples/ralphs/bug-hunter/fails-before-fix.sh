#!/usr/bin/env bash
# Gate: the fix comes with a regression test that FAILS on the code from before the hunt. The tests added
# or changed since the hunt started are copied onto a clean checkout of the start commit and run there;
# if they pass without the fix, they do not catch the bug. (The `tests` gate checks they pass with it.)
# A test that fails before the fix for another reason (it imports what only the fix adds) gets through:
# the reviewer still reads the pull request.
set -uo pipefail
start_file="$(git rev-parse --git-common-dir)/ralph-hunt-start"
if [ ! -s "$start_file" ]; then
  echo "No start commit recorded: the 'start' command records it at the beginning of each iteration."
  exit 1
fi
start=$(cat "$start_file")
test_pattern='(^|/)(__tests__|tests?|spec)/|[._-](test|spec)\.[cm]?[jt]sx?$'
mapfile -t tests < <(
  { git diff --name-only --diff-filter=AM "$start" --; git ls-files --others --exclude-standard; } |
    grep -E "$test_pattern" | sort -u
)
if [ "${#tests[@]}" -eq 0 ]; then
  echo "No test was added or changed since $start: write a regression test that fails without the fix."
  exit 1
fi
echo "Regression tests: ${tests[*]}"

before=$(mktemp -d)
trap 'git worktree remove --force "$before" >/dev/null 2>&1; rm -rf "$before"' EXIT
git worktree add --quiet --detach "$before" "$start"
for t in "${tests[@]}"; do
  mkdir -p "$before/$(dirname "$t")"
  cp "$t" "$before/$t"
done
# The dependencies of the work tree serve the old code too.
[ -d node_modules ] && ln -s "$PWD/node_modules" "$before/node_modules"

if (cd "$before" && npm test --silent -- "${tests[@]}") > "$before.log" 2>&1; then
  echo "The regression tests PASS on the code from before the fix ($start): they do not catch the bug."
  echo "Write a test that fails without your change."
  tail -n 30 "$before.log"
  rm -f "$before.log"
  exit 1
fi
echo "Good: without the fix the regression tests fail:"
tail -n 15 "$before.log"
rm -f "$before.log"
