#!/bin/sh
printf -- '---\nagent: record-agent --second\ncommands:\n  - name: new\n    run: printf new\n---\nIteration {{ ralph.iteration }} [{{ commands.edit }}] [{{ commands.new }}]\n' > RALPH.md
printf edited
