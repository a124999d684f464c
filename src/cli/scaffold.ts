import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { npmInstallOf } from '../agents/clis.js'
import { INSTALLED_RALPHS_DIR, NAME_RE } from '../ralph/index.js'
import { RalphError } from '../ralph/types.js'
import { which } from '../proc/index.js'

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

/**
 * Writes a starter RALPH.md and returns the file written: a bare NAME goes where `list`, `run NAME` and
 * `/ralph NAME` find it (`.agents/ralphs/NAME/`), a path (`./NAME`, `dir/NAME`) where it says, no NAME into the
 * current folder.
 */
export function scaffoldRalph(cwd: string, name?: string): string {
  const dir =
    name === undefined ? cwd : NAME_RE.test(name) ? join(cwd, INSTALLED_RALPHS_DIR, name) : join(cwd, name)
  if (name !== undefined) mkdirSync(dir, { recursive: true })
  const file = join(dir, 'RALPH.md')
  if (existsSync(file)) throw new RalphError(`RALPH.md already exists at '${file}'.`)
  writeFileSync(file, STARTER_RALPH)
  return relative(cwd, file)
}

/** The starter's agent, when this machine lacks it: what to install, or to change. */
export function starterAgentHint(env: NodeJS.ProcessEnv, cwd: string): string | undefined {
  const argv = ['claude']
  if (which(argv[0], { cwd, path: env.PATH })) return undefined
  return `Its agent, claude, is not on PATH here: ${npmInstallOf(argv)}, or set agent: to your agent's command.`
}
