// From what the user typed (`ralph run <path>`) to a RALPH.md, as the reference resolves it
// (cli._resolve_ralph_paths): a folder, a file named RALPH.md, or the name of an installed ralph.
import fs from 'node:fs'
import path from 'node:path'
import { closest } from '../text/closest.js'
import { RalphError } from './types.js'

export const RALPH_MARKER = 'RALPH.md'
/** Installed ralphs live in `<project>/.agents/ralphs/<name>/` and `~/.agents/ralphs/<name>/`. */
export const INSTALLED_RALPHS_DIR = '.agents/ralphs'

export interface ResolvedRalphPath {
  /** Absolute, symlinks resolved (the reference uses `Path.resolve()`). */
  file: string
  /** Absolute, symlinks resolved; its basename is `{{ ralph.name }}`. */
  dir: string
  /** Set when `pathArg` was the name of an installed ralph: where it was found. */
  resolvedFrom?: 'project' | 'home'
  /** What the reference prints in that case: `Resolved: <file>`. */
  notice?: string
}

/**
 * Resolves `pathArg` against `cwd` (the project root): an existing folder means `<folder>/RALPH.md`; an
 * existing file must be named RALPH.md; otherwise `.agents/ralphs/<name>/RALPH.md` in `cwd`, then in `home`.
 * Throws RalphError (exit 1) with the reference's messages.
 */
export function resolveRalphPath(pathArg: string, opts: { cwd: string; home: string }): ResolvedRalphPath {
  const typed = purePath(pathArg)
  const onDisk = (p: string): string => (p.startsWith('/') ? p : `${opts.cwd.replace(/\/+$/, '')}/${p}`)
  let dir: string
  let file: string
  let installed: Required<Pick<ResolvedRalphPath, 'resolvedFrom' | 'notice'>> | undefined
  if (isDirectory(onDisk(typed))) {
    dir = typed
    file = joinPure(typed, RALPH_MARKER)
  } else if (isFile(onDisk(typed)) && baseName(typed) === RALPH_MARKER) {
    dir = parentPure(typed)
    file = typed
  } else {
    const bases: [NonNullable<ResolvedRalphPath['resolvedFrom']>, string][] = [
      ['project', joinPure(purePath(opts.cwd), INSTALLED_RALPHS_DIR)],
      ['home', joinPure(purePath(opts.home), INSTALLED_RALPHS_DIR)]
    ]
    const found = bases.find(([, base]) => isFile(joinPure(joinPure(base, pathArg), RALPH_MARKER)))
    if (!found) {
      const near = nearestRalph(typed, onDisk, opts)
      throw new RalphError(
        `'${pathArg}' is not a directory, ${RALPH_MARKER} file, or installed ralph.` +
          (near ? ` Did you mean '${near}'?` : '')
      )
    }
    dir = joinPure(found[1], pathArg)
    file = joinPure(dir, RALPH_MARKER)
    installed = { resolvedFrom: found[0], notice: `Resolved: ${file}` }
  }
  if (!exists(onDisk(file))) throw new RalphError(`${RALPH_MARKER} not found at '${file}'.`)
  return { file: realPath(onDisk(file)), dir: realPath(onDisk(dir)), ...installed }
}

/** A ralph near what was typed: a sibling folder holding a RALPH.md, or an installed ralph, a typo away. */
function nearestRalph(
  typed: string,
  onDisk: (p: string) => string,
  opts: { cwd: string; home: string }
): string | undefined {
  const parent = parentPure(typed)
  let siblings: string[] = []
  try {
    siblings = fs
      .readdirSync(onDisk(parent))
      .filter(name => isFile(onDisk(joinPure(joinPure(parent, name), RALPH_MARKER))))
  } catch {
    // no such folder: only the installed ralphs are near
  }
  const sibling = closest(baseName(typed), siblings)
  if (sibling) return parent === '.' ? sibling : joinPure(parent, sibling)
  return parent === '.' ? closest(typed, listInstalledRalphs(opts.cwd, opts.home)) : undefined
}

/** Names of the installed ralphs (folders holding a RALPH.md) in the project and in home, sorted, each once. */
export function listInstalledRalphs(cwd: string, home: string): string[] {
  const names = new Set<string>()
  for (const root of [cwd, home]) {
    const base = path.join(root, INSTALLED_RALPHS_DIR)
    let entries: string[]
    try {
      entries = fs.readdirSync(base)
    } catch {
      continue
    }
    for (const name of entries) {
      if (isFile(path.join(base, name, RALPH_MARKER))) names.add(name)
    }
  }
  return [...names].sort()
}

// pathlib.PurePosixPath's string form: `.` parts and repeated or trailing slashes dropped, `..` kept,
// a leading `//` (and only exactly two) kept.
function purePath(p: string): string {
  const root = p.startsWith('//') && !p.startsWith('///') ? '//' : p.startsWith('/') ? '/' : ''
  const parts = p.split('/').filter(part => part !== '' && part !== '.')
  const joined = root + parts.join('/')
  return joined === '' ? '.' : joined
}

// pathlib's `a / b`: an absolute `b` replaces `a`.
function joinPure(a: string, b: string): string {
  if (b.startsWith('/')) return purePath(b)
  if (a === '.') return purePath(b)
  return purePath(`${a}/${b}`)
}

function parentPure(p: string): string {
  const slash = p.lastIndexOf('/')
  if (slash < 0) return '.'
  const parent = p.slice(0, slash)
  return parent === '' || parent === '/' ? p.slice(0, slash + 1) : parent
}

function baseName(p: string): string {
  if (p === '.' || p === '/' || p === '//') return ''
  return p.slice(p.lastIndexOf('/') + 1)
}

function isDirectory(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory()
  } catch {
    return false
  }
}

function isFile(p: string): boolean {
  try {
    return fs.statSync(p).isFile()
  } catch {
    return false
  }
}

function exists(p: string): boolean {
  return fs.existsSync(p)
}

function realPath(p: string): string {
  try {
    return fs.realpathSync(p)
  } catch {
    return path.resolve(p)
  }
}
