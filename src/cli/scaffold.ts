import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { RalphError } from '../ralph/types.js'

// The reference runtime's starter, plus a gate: checks are ignored by ralphify, so the file stays portable.
export const STARTER_RALPH = `---
agent: claude -p --dangerously-skip-permissions
commands:
  - name: git-log
    run: git log --oneline -5
args:
  - focus
# Gates (ralph-action only): the loop succeeds when every check exits 0. They run with bash.
checks:
  - name: tests
    run: npm test
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
- Run tests and fix failures before committing
- Commit with a descriptive message
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
