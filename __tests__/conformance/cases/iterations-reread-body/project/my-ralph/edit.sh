#!/bin/sh
n=$(cat count 2>/dev/null || echo 0); n=$((n + 1)); echo "$n" > count
if [ "$n" = 2 ]; then
  printf -- '---\nagent: record-agent\ncommands:\n  - name: edit\n    run: ./edit.sh\n---\nVersion two <!-- hidden -->, iteration {{ ralph.iteration }} of {{ ralph.max_iterations }}. {{ commands.edit }}\n' > RALPH.md
fi
printf 'edit ran %s' "$n"
