import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { RalphError } from '../ralph/types.js'

// The reference runtime's starter (portable: ralphify ignores checks and reads credit), with our defaults:
// an agent line that works as root, a gate, no ralphify credit trailer, and no commits by the agent (run
// it with --commit: the loop commits what each iteration leaves).
export const STARTER_RALPH = `---
agent: claude -p --permission-mode acceptEdits
commands:
  - name: git-log
    run: git log --oneline -5
args:
  - focus
# Gates (ralph-action only): the loop succeeds when every check exits 0. They run with bash.
checks:
  - name: tests
    run: npm test
credit: false
---

You are an autonomous coding agent running in a loop. Each iteration
starts with a fresh context. Your progress lives in the code and git.

## Recent changes

{{ commands.git-log }}

## Focus

{{ args.focus }}

## Task

<!-- Replace this section with your task description -->

- Implement one thing per iteration
- The loop runs the checks after each iteration and shows you what failed
- Leave your changes in the work tree: the loop commits them after each iteration
`

/** Writes a starter RALPH.md into NAME/ (created) or the current folder; returns the file written. */
export function scaffoldRalph(cwd: string, name?: string): string {
  const dir = name ? join(cwd, name) : cwd
  if (name) mkdirSync(dir, { recursive: true })
  const file = join(dir, 'RALPH.md')
  if (existsSync(file)) throw new RalphError(`RALPH.md already exists at '${file}'.`)
  writeFileSync(file, STARTER_RALPH)
  return relative(cwd, file)
}
