// What of .git can make the action's own git (or a later step's) run code or go elsewhere: the config files
// (core.fsmonitor, core.hooksPath, filter.*.smudge, url.*.insteadOf, remote.origin.url, http.proxy), info/
// (attributes that wire a filter, excludes, grafts) and hooks/. Snapshotted before the loop and put back,
// byte for byte and mode for mode, after it: whatever the agent (or a check) wrote there does not outlive
// the loop. Kept in a file too, so the post step can put it back when main was killed.
import { lstat, mkdir, readdir, readFile, rm, writeFile, chmod } from 'node:fs/promises'
import path from 'node:path'
import { configFiles } from './credentials.js'
import { GitRepo } from './repo.js'
import { pathBytes, pathFromBytes } from '../text/tree-path.js'

interface SavedFile {
  /** A path string (text/tree-path.ts): the agent may name a file there in bytes that are not UTF-8. */
  path: string
  mode: number
  /** base64 */
  content: string
}

export interface GitDirSnapshot {
  /** Folders whose whole content is put back (entries added since are removed). */
  folders: string[]
  /** Files (config files, and everything in `folders`) as they were. */
  files: SavedFile[]
  /** Config files that did not exist (config.worktree): removed if they appear. */
  absent: string[]
}

async function kind(file: string): Promise<'file' | 'dir' | 'other' | undefined> {
  try {
    const s = await lstat(pathBytes(file))
    return s.isFile() ? 'file' : s.isDirectory() ? 'dir' : 'other'
  } catch {
    return undefined
  }
}

async function walk(dir: string, found: string[]): Promise<void> {
  for (const entry of await readdir(pathBytes(dir), { withFileTypes: true, encoding: 'buffer' }).catch(
    () => []
  )) {
    const full = path.join(dir, pathFromBytes(entry.name))
    if (entry.isDirectory()) await walk(full, found)
    else found.push(full)
  }
}

async function save(file: string): Promise<SavedFile | undefined> {
  const s = await lstat(pathBytes(file)).catch(() => undefined)
  if (!s?.isFile()) return undefined
  return { path: file, mode: s.mode & 0o7777, content: (await readFile(pathBytes(file))).toString('base64') }
}

/** The config files, info/ and hooks/ of the work tree's repository, as they are now. */
export async function snapshotGitDir(workTree: string): Promise<GitDirSnapshot> {
  const git = new GitRepo(workTree)
  const common = await git.commonDir()
  const folders = [path.join(common, 'info'), path.join(common, 'hooks')]
  const configs = [...new Set([...(await configFiles(git)), await git.gitPath('config.worktree')])]
  const snapshot: GitDirSnapshot = { folders, files: [], absent: [] }
  for (const file of configs) {
    const saved = await save(file)
    if (saved) snapshot.files.push(saved)
    else snapshot.absent.push(file)
  }
  for (const folder of folders) {
    const found: string[] = []
    await walk(folder, found)
    for (const file of found) {
      const saved = await save(file)
      if (saved) snapshot.files.push(saved)
    }
  }
  return snapshot
}

/**
 * Puts back everything the snapshot holds, removing what was added since (never following a symlink).
 * Answers the paths that had changed; throws only when one cannot be put back.
 */
export async function restoreGitDir(snapshot: GitDirSnapshot): Promise<string[]> {
  const changed = new Set<string>()
  const wanted = new Map(snapshot.files.map(f => [f.path, f]))
  for (const folder of snapshot.folders) {
    if ((await kind(folder)) === 'other') {
      await rm(pathBytes(folder), { force: true })
      changed.add(folder)
    }
    const now: string[] = []
    await walk(folder, now)
    for (const file of now)
      if (!wanted.has(file)) {
        await rm(pathBytes(file), { recursive: true, force: true })
        changed.add(file)
      }
  }
  for (const file of snapshot.absent)
    if ((await kind(file)) !== undefined) {
      await rm(pathBytes(file), { recursive: true, force: true })
      changed.add(file)
    }
  for (const saved of snapshot.files) {
    const content = Buffer.from(saved.content, 'base64')
    const file = pathBytes(saved.path)
    const now = await lstat(file).catch(() => undefined)
    if (now?.isFile() && (now.mode & 0o7777) === saved.mode && (await readFile(file)).equals(content))
      continue
    if (now) await rm(file, { recursive: true, force: true })
    await mkdir(pathBytes(path.dirname(saved.path)), { recursive: true })
    await writeFile(file, content, { mode: saved.mode })
    await chmod(file, saved.mode)
    changed.add(saved.path)
  }
  return [...changed]
}
