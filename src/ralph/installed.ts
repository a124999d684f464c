// The ralphs a comment or a label may name: those installed in the project (`.agents/ralphs/<name>/`).
// Followed through symlinks, the folder, its RALPH.md and the guardrails file it reads must all stay inside
// the project, so a name never reaches a file elsewhere on the runner (another ralph, a secret the prompt
// would carry). What is refused is not listed either.
import { readFileSync, realpathSync, statSync } from 'node:fs'
import { homedir } from 'node:os'
import path from 'node:path'
import {
  argsRead,
  INSTALLED_RALPHS_DIR,
  listInstalledRalphs,
  NAME_RE,
  PLACEHOLDER_RE,
  RALPH_MARKER,
  readFrontmatter,
  resolveRalphPath
} from './index.js'

/** Arg names the action fills itself; a `/ralph` comment may not set them. */
export const RESERVED_ARGS = ['task', 'task_file'] as const

/** The installed ralph's real folder, or why the name does not name one a trigger may run. */
export function installedRalph(projectRoot: string, name: string): { dir: string } | { problem: string } {
  const missing = { problem: `there is no ralph called ${'`'}${name}${'`'} in ${INSTALLED_RALPHS_DIR}/` }
  if (!NAME_RE.test(name)) return missing
  let root: string
  let dir: string
  let file: string
  try {
    root = realpathSync(projectRoot)
    dir = realpathSync(path.join(projectRoot, INSTALLED_RALPHS_DIR, name))
    file = realpathSync(path.join(dir, RALPH_MARKER))
    if (!statSync(file).isFile()) return missing
  } catch {
    return missing
  }
  if (!isInside(dir, root) || !isInside(file, root)) return missing
  const guardrails = guardrailsOf(file)
  if (guardrails !== undefined) {
    let real: string | undefined
    try {
      real = realpathSync(path.resolve(root, guardrails))
    } catch {
      real = undefined // not written yet: the loop creates it inside the work tree
    }
    if (real !== undefined && !isInside(real, root))
      return {
        problem: `the ralph ${'`'}${name}${'`'} reads its guardrails from outside the project (a symlink): it cannot be started from here`
      }
  }
  return { dir }
}

/** The project's installed ralphs that a comment or label can name (those installedRalph accepts). */
export function availableRalphs(projectRoot: string): string[] {
  return listInstalledRalphs(projectRoot, '/nonexistent').filter(
    name => 'dir' in installedRalph(projectRoot, name)
  )
}

/**
 * The args a ralph reads: the names its frontmatter declares and every `{{ args.NAME }}` in its file (in the
 * prompt or a command), without the ones the action sets. Undefined when the file cannot be read or parsed:
 * the plan reports that problem itself.
 */
export function argsOf(ralph: string, projectRoot: string): string[] | undefined {
  try {
    const { file } = resolveRalphPath(ralph, { cwd: projectRoot, home: homedir() })
    return argsRead(file, readFileSync(file, 'utf8'))?.filter(
      name => !(RESERVED_ARGS as readonly string[]).includes(name)
    )
  } catch {
    return undefined
  }
}

/** The `{{ args.NAME }}` names in a template (a ralph-less run's prompt), without the ones the action sets. */
export function argsIn(template: string): string[] {
  const names = new Set<string>()
  for (const m of template.matchAll(PLACEHOLDER_RE)) if (m[1] === 'args') names.add(m[2])
  return [...names].filter(name => !(RESERVED_ARGS as readonly string[]).includes(name))
}

function guardrailsOf(file: string): string | undefined {
  try {
    const value = readFrontmatter(file, readFileSync(file, 'utf8')).data.get('guardrails')
    return typeof value === 'string' && value.trim() ? value : undefined
  } catch {
    return undefined // a broken ralph: the plan reports it with its line
  }
}

const isInside = (child: string, parent: string): boolean =>
  child === parent || child.startsWith(parent.endsWith(path.sep) ? parent : parent + path.sep)
