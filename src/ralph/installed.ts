// The ralphs a comment or a label may name: those installed in the project (`.agents/ralphs/<name>/`).
// Followed through symlinks, the folder, its RALPH.md and the guardrails file it reads must all stay inside
// the project, so a name never reaches a file elsewhere on the runner (another ralph, a secret the prompt
// would carry). What is refused is not listed either.
import { lstatSync, realpathSync, statSync } from 'node:fs'
import { homedir } from 'node:os'
import path from 'node:path'
import { isInside, readRegularFile } from './tree-file.js'
import {
  argsRead,
  INSTALLED_RALPHS_DIR,
  listInstalledRalphs,
  NAME_RE,
  PLACEHOLDER_RE,
  RALPH_MARKER,
  readFrontmatter,
  resolveRalphPath,
  type ResolvedRalphPath
} from './index.js'

/** Arg names the action fills itself; a `/ralph` comment may not set them. */
export const RESERVED_ARGS = ['task', 'task_file', 'review', 'review_file'] as const

/**
 * The one containment rule for every ralph the action loads (a comment's or a label's name, `mode: list`, the
 * `ralph` input, a hunt): followed through links, its folder, its RALPH.md and the guardrails file it reads
 * stay inside the project. `named` is the folder as it was named (before links are followed), so a refusal
 * names the link that leaves.
 */
export function ralphInProject(
  projectRoot: string,
  named: string
): { dir: string; file: string } | { problem: string } {
  let root: string
  let dir: string
  let file: string
  try {
    root = realpathSync(projectRoot)
    dir = realpathSync(named)
    file = realpathSync(path.join(dir, RALPH_MARKER))
    if (!statSync(file).isFile()) return { problem: `${shown(projectRoot, named)} holds no ${RALPH_MARKER}` }
  } catch {
    return { problem: `${shown(projectRoot, named)} holds no ${RALPH_MARKER}` }
  }
  const leaves = (what: string, real: string): { problem: string } => {
    const link = linkOnPath(projectRoot, what)
    return {
      problem: link
        ? `${shown(projectRoot, link)} is a link to ${real}, outside the project: a ralph's files must be the project's own`
        : `${shown(projectRoot, what)} is outside the project: a ralph's files must be the project's own`
    }
  }
  if (!isInside(dir, root)) return leaves(named, dir)
  if (!isInside(file, root)) return leaves(path.join(named, RALPH_MARKER), file)
  // Not even a link that stays inside: it could name any file of the project (a credentials file an earlier
  // step left in the workspace) as the prompt.
  const own = path.join(dir, RALPH_MARKER)
  if (isLink(own))
    return {
      problem: `${shown(projectRoot, path.join(named, RALPH_MARKER))} is a link to ${shown(projectRoot, file)}: the action follows no link of the work tree, not even one inside the project; make it a regular file`
    }
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
        problem: `${shown(projectRoot, named)} reads its guardrails from ${guardrails}, which leads outside the project (a link to ${real})`
      }
    if (real !== undefined && isLink(path.resolve(root, guardrails)))
      return {
        problem: `${shown(projectRoot, named)} reads its guardrails from ${guardrails}, a link to ${shown(projectRoot, real)}: the action follows no link of the work tree, not even one inside the project; make it a regular file`
      }
  }
  return { dir, file }
}

function isLink(p: string): boolean {
  try {
    return lstatSync(p).isSymbolicLink()
  } catch {
    return false
  }
}

/** A ralph's file as text, read as the action reads the tree's files at start: no link, a regular file. */
function readOwnFile(file: string): string {
  return readRegularFile(file).toString('utf8')
}

/** The installed ralph's real folder, or why the name does not name one a trigger may run. */
export function installedRalph(projectRoot: string, name: string): { dir: string } | { problem: string } {
  const missing = { problem: `there is no ralph called ${'`'}${name}${'`'} in ${INSTALLED_RALPHS_DIR}/` }
  if (!NAME_RE.test(name)) return missing
  // A name goes into branches, matrix values and commands' args, where `-rf` or `--help` reads as an option.
  if (name.startsWith('-'))
    return {
      problem: "a ralph's name may not start with - (a command could read it as an option): rename its folder"
    }
  const named = path.join(projectRoot, INSTALLED_RALPHS_DIR, name)
  const contained = ralphInProject(projectRoot, named)
  if (!('problem' in contained)) return { dir: contained.dir }
  return isFileThrough(path.join(named, RALPH_MARKER))
    ? { problem: `the ralph ${'`'}${name}${'`'} cannot be started: ${contained.problem}` }
    : missing
}

/**
 * What the `ralph` input names (a folder, a RALPH.md, or an installed ralph's name), resolved as the CLI
 * resolves it, and held to ralphInProject: a ralph in the home folder is not the project's either.
 */
export function inputRalph(projectRoot: string, input: string): ResolvedRalphPath | { problem: string } {
  const resolved = resolveRalphPath(input, { cwd: projectRoot, home: homedir() })
  const typed = path.resolve(projectRoot, input)
  const named =
    resolved.resolvedFrom === 'home'
      ? resolved.dir
      : resolved.resolvedFrom === 'project'
        ? path.join(projectRoot, INSTALLED_RALPHS_DIR, input)
        : path.basename(typed) === RALPH_MARKER && isFileThrough(typed)
          ? path.dirname(typed)
          : typed
  const contained = ralphInProject(projectRoot, named)
  return 'problem' in contained ? contained : resolved
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
    return argsRead(file, readOwnFile(file))?.filter(
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
    const value = readFrontmatter(file, readOwnFile(file)).data.get('guardrails')
    return typeof value === 'string' && value.trim() ? value : undefined
  } catch {
    return undefined // a broken ralph: the plan reports it with its line
  }
}

/** The first link on the way from the project root to `target` (which is under the root as named). */
function linkOnPath(projectRoot: string, target: string): string | undefined {
  const relative = path.relative(projectRoot, target)
  if (relative.startsWith('..') || path.isAbsolute(relative)) return undefined
  let at = projectRoot
  for (const part of relative.split(path.sep)) {
    at = path.join(at, part)
    try {
      if (lstatSync(at).isSymbolicLink()) return at
    } catch {
      return undefined
    }
  }
  return undefined
}

/** A path for a message: relative to the project when inside it as named. */
function shown(projectRoot: string, p: string): string {
  const relative = path.relative(projectRoot, p)
  return relative && !relative.startsWith('..') && !path.isAbsolute(relative) ? relative : p
}

function isFileThrough(p: string): boolean {
  try {
    return statSync(p).isFile()
  } catch {
    return false
  }
}
