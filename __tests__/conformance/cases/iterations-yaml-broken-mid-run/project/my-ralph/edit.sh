#!/bin/sh
n=$(cat count 2>/dev/null || echo 0); n=$((n + 1)); echo "$n" > count
if [ "$n" = 2 ]; then printf -- '---\nagent: [\n---\nbroken\n' > RALPH.md; fi
