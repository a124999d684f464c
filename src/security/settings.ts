// The agent CLI's own settings, for an agent that runs as its own user with a fresh HOME: a copy of the files
// and folders its preset names (never the runner's whole HOME), staged by the action's own user in a folder of
// its own, then put into the agent's HOME by the isolation's prepare step while that HOME is still root's. No
// symbolic link is followed or copied (one could point out of the settings into the runner's secrets), nothing
// but regular files and folders is copied, and the originals are never the agent's: it cannot write back.
import {
  constants,
  closeSync,
  fstatSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  writeFileSync
} from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'

/** One place the agent CLI reads settings from, and where the copy goes in the agent's HOME. */
export interface SettingsCopy {
  /** The runner's file or folder (absolute). */
  from: string
  /** The copy's path relative to the agent's HOME. */
  to: string
  /** The variable that named `from` (CODEX_HOME…): the agent's is pointed at the copy. */
  variable?: string
}

/** What staging found: the folder to copy into the agent's HOME, and what was copied and left out, for the log. */
export interface StagedSettings {
  /** The staged copy (the action's, 0700), or undefined when there was nothing to copy. */
  dir?: string
  copied: string[]
  skipped: string[]
}

/** A copy larger than this in all is cut short (a ~/.claude can hold gigabytes of old transcripts). */
const MAX_BYTES = 64 * 1024 * 1024

/**
 * Copies each existing `from` into a fresh staging folder at `to`, without following a symbolic link anywhere
 * (the place itself included). Answers what it copied and what it left out, and why.
 */
export function stageSettings(copies: readonly SettingsCopy[], parent = tmpdir()): StagedSettings {
  const staged: StagedSettings = { copied: [], skipped: [] }
  let bytes = 0
  let dir: string | undefined
  const skip = (file: string, why: string): void => {
    staged.skipped.push(`${file} (${why})`)
  }
  const copy = (from: string, to: string): number => {
    const stat = lstatSync(from)
    if (stat.isSymbolicLink()) return (skip(from, 'a symbolic link'), 0)
    if (stat.isDirectory()) {
      mkdirSync(to, { recursive: true, mode: 0o700 })
      let files = 0
      for (const entry of readdirSync(from).sort())
        files += copy(path.join(from, entry), path.join(to, entry))
      return files
    }
    if (!stat.isFile()) return (skip(from, 'not a regular file'), 0)
    if (bytes + stat.size > MAX_BYTES)
      return (skip(from, `over the ${MAX_BYTES >> 20} MB the copy may take`), 0)
    // O_NOFOLLOW: a link swapped in since the lstat is refused, not read; O_NONBLOCK: a FIFO is not waited on.
    const fd = openSync(from, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK)
    try {
      if (!fstatSync(fd).isFile()) return (skip(from, 'not a regular file'), 0)
      const content = readFileSync(fd)
      bytes += content.length
      writeFileSync(to, content, { mode: stat.mode & 0o700 })
    } finally {
      closeSync(fd)
    }
    return 1
  }
  for (const { from, to } of copies) {
    try {
      lstatSync(from)
    } catch {
      continue // the CLI has no settings there: nothing to copy
    }
    dir ??= mkdtempSync(path.join(parent, 'ralph-agent-settings-'))
    const target = path.join(dir, to)
    mkdirSync(path.dirname(target), { recursive: true, mode: 0o700 })
    try {
      const files = copy(from, target)
      if (files > 0) staged.copied.push(`${from} → ~/${to} (${files} file${files === 1 ? '' : 's'})`)
    } catch (error) {
      skip(from, (error as NodeJS.ErrnoException).code ?? (error as Error).message)
    }
  }
  if (dir) staged.dir = dir
  return staged
}
