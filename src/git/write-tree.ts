// A commit's files written out from git's object store, as they are stored: no checkout, so no smudge or
// textconv filter, no eol or ident conversion, no hook and no attribute of the tree (or of a .git the agent
// could write under isolation none) runs. The clean checkout that verifies a commit (loop/verify.ts) is made
// this way: git's own checkout would run whatever filter the agent planted, as the action's user.
import { closeSync, constants, mkdirSync, openSync, symlinkSync, writeSync } from 'node:fs'
import path from 'node:path'
import { gitBytes } from './git.js'
import { onDisk, showPath, splitNul } from '../text/tree-path.js'

interface Entry {
  mode: string
  oid: string
  /** A path string (text/tree-path.ts): a name need not be UTF-8, and is written byte for byte. */
  file: string
}

/** The commit's entries: blobs (files and links) and gitlinks (an empty folder, as a checkout leaves them). */
async function entriesOf(repo: string, commit: string, env?: NodeJS.ProcessEnv): Promise<Entry[]> {
  const out = await gitBytes(repo, ['ls-tree', '-r', '-z', '--full-tree', commit], { env })
  const entries: Entry[] = []
  for (const record of splitNul(out)) {
    const tab = record.indexOf('\t')
    if (tab === -1) continue
    const [mode, , oid] = record.slice(0, tab).split(' ')
    entries.push({ mode, oid, file: record.slice(tab + 1) })
  }
  return entries
}

/** A new file (never an existing one, never through a link), with its bytes. */
export function writeNew(file: Buffer | string, bytes: Buffer, mode: number): void {
  const fd = openSync(
    file,
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
    mode
  )
  try {
    for (let at = 0; at < bytes.length;) at += writeSync(fd, bytes, at)
  } finally {
    closeSync(fd)
  }
}

/**
 * Writes every file of `commit` (read from the repository at `repo`) into `dest`, an empty folder nobody else
 * writes: regular files 0644 or 0755 as git records them, links as links (never followed: every path is
 * created anew), a gitlink as an empty folder. Throws on a path that leaves `dest`.
 */
export async function writeCommitTree(
  repo: string,
  commit: string,
  dest: string,
  env?: NodeJS.ProcessEnv
): Promise<number> {
  const entries = (await entriesOf(repo, commit, env)).filter(e => e.mode !== '040000')
  const folders = new Set<string>()
  const folder = (dir: string): void => {
    if (dir === '.' || folders.has(dir)) return
    folder(path.posix.dirname(dir))
    mkdirSync(onDisk(dest, dir), { mode: 0o755 })
    folders.add(dir)
  }
  const place = (file: string): Buffer => {
    if (path.relative(dest, path.join(dest, file)).startsWith('..') || path.isAbsolute(file))
      throw new Error(`the commit names a path outside its tree: ${showPath(file)}`)
    folder(path.posix.dirname(file))
    return onDisk(dest, file)
  }
  const blobs = entries.filter(e => e.mode !== '160000')
  for (const e of entries.filter(e => e.mode === '160000')) folder(e.file)
  if (blobs.length === 0) return 0
  const out = await gitBytes(repo, ['cat-file', '--batch'], {
    env,
    input: blobs.map(e => `${e.oid}\n`).join('')
  })
  let at = 0
  for (const e of blobs) {
    const newline = out.indexOf(0x0a, at)
    const [, type, size] = out.subarray(at, newline).toString('utf8').split(' ')
    if (type !== 'blob') throw new Error(`${showPath(e.file)} is not a blob in ${commit}`)
    const bytes = out.subarray(newline + 1, newline + 1 + Number(size))
    at = newline + 1 + Number(size) + 1
    const full = place(e.file)
    // A link's target is bytes too.
    if (e.mode === '120000') symlinkSync(bytes, full)
    else writeNew(full, bytes, e.mode === '100755' ? 0o755 : 0o644)
  }
  return blobs.length
}
