// Python's shutil.which on POSIX, which the reference uses to check that the agent exists before the loop.
import fs from 'node:fs'
import path from 'node:path'

/** glibc's confstr(_CS_PATH): Python's fallback when PATH is unset. */
const DEFAULT_PATH = '/bin:/usr/bin'

/**
 * The file the command would run, or null. A name with a slash (`./agent.sh`, `bin/x`) is checked as is,
 * relative to `cwd`; otherwise each PATH entry is tried in order (an empty entry means `cwd`).
 * A match must exist, be executable and not be a directory. `path` is PATH as the environment has it:
 * undefined when unset, which means Python's default.
 */
export function which(command: string, opts: { cwd: string; path?: string | undefined }): string | null {
  if (command.includes('/')) return isExecutableFile(command, opts.cwd) ? command : null
  const searchPath = opts.path ?? DEFAULT_PATH
  if (!searchPath) return null
  const seen = new Set<string>()
  for (const dir of searchPath.split(':')) {
    if (seen.has(dir)) continue
    seen.add(dir)
    const candidate = dir === '' ? command : dir.endsWith('/') ? dir + command : `${dir}/${command}`
    if (isExecutableFile(candidate, opts.cwd)) return candidate
  }
  return null
}

function isExecutableFile(file: string, cwd: string): boolean {
  // Joined without normalising, so `..` after a symlink means what the OS says it means.
  const absolute = path.isAbsolute(file) ? file : `${cwd.replace(/\/+$/, '')}/${file}`
  try {
    if (fs.statSync(absolute).isDirectory()) return false
    fs.accessSync(absolute, fs.constants.X_OK)
    return true
  } catch {
    return false
  }
}

/** The folders the system keeps its own programs in. */
export const SYSTEM_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'
const resolved = new Map<string, string>()

/**
 * A program the action itself runs (git, and as root prlimit, setpriv, sudo, bash), by absolute path, found
 * once, the first time (before the loop): `system` looks in SYSTEM_PATH alone, else the absolute folders of
 * PATH. A relative PATH entry, or a folder the agent fills later (a work tree's node_modules/.bin), never
 * chooses what the action runs.
 */
export function trustedProgram(name: string, system = false): string {
  // Per PATH (the action never changes its own; a test may put a stand-in first), found once for each.
  const key = `${system ? 's' : 'p'}:${name}:${system ? '' : (process.env.PATH ?? '')}`
  let found = resolved.get(key)
  if (found === undefined) {
    const absolute = (process.env.PATH ?? '')
      .split(':')
      .filter(dir => path.isAbsolute(dir))
      .join(':')
    found = which(name, { cwd: '/', path: system ? SYSTEM_PATH : absolute || SYSTEM_PATH }) ?? name
    resolved.set(key, found)
  }
  return found
}
