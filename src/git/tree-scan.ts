// What of the work tree the action's git must never read, found before any git of the action's runs on it.
// git opens `.gitignore` and `.gitattributes` in every folder it looks at, and a nested repository's HEAD and
// commondir to tell it is one: a FIFO there would hold the action's git (and the job) forever. So the tree is
// walked first, by names and types only (readdir: no file of it is opened, no link followed), as git would walk
// it: a special file where git reads one stops the run in one line; a folder git must be kept out of (a nested
// repository, one too deep or closed to the action) is named, and the caller keeps git out of it.
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readdirSync,
  readSync,
  type Dirent
} from 'node:fs'
import path from 'node:path'
import { performance } from 'node:perf_hooks'
import { spawn } from 'node:child_process'
import { trustedProgram } from '../proc/index.js'
import { onDisk, pathBytes, pathFromBytes, showPath } from '../text/tree-path.js'

/** A folder git is kept out of, and the line that says why (relative to the top; a path string). */
export interface KeptOut {
  path: string
  line: string
}

/** A special file where git would read one: the tree cannot be taken stock of until it is gone. */
export class TreeHazardError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'TreeHazardError'
  }
}

/** Files git opens in any folder it looks at (and `.gitmodules`, read at the top). */
const READ_BY_GIT = new Set(['.gitignore', '.gitattributes', '.gitmodules'])
/** A name of thousands of characters (a folder too deep) cut in its middle for a log line. */
const shortly = (shown: string): string =>
  shown.length > 160 ? `${shown.slice(0, 90)}…${shown.slice(-60)}` : shown

/**
 * Folders this deep or deeper are looked into whether git ignores them or not: the large ignored ones
 * (node_modules, .venv, target) sit near the top, and each question costs git a walk of the path's folders.
 */
const MOST_ASKED_DEPTH = 8

/** Work in stretches of at most this long, then the event loop runs (budgets' timers, output). */
const STRETCH_MS = 20

function kindOf(entry: Dirent<Buffer>): string {
  if (entry.isFIFO()) return 'a FIFO'
  if (entry.isSocket()) return 'a socket'
  if (entry.isCharacterDevice() || entry.isBlockDevice()) return 'a device'
  return 'a special file'
}

/** Which of some paths (relative to the top) git's ignore rules leave out, in order. */
export type IgnoredBy = (paths: readonly string[]) => Promise<boolean[]>

export interface ScanOptions {
  /** Folders not looked into: the gitlinks (git never enters them either). */
  skip?: ReadonlySet<string>
  /**
   * When given, a folder git ignores is not looked into, as git does not (git answers that a folder holding
   * tracked files is not ignored: it reads those, and their attributes).
   */
  ignored?: IgnoredBy
}

/**
 * Walks the tree below `top` as git would (its own `.git`, the folders in `skip` and, with `ignored`, those git
 * ignores left out). Answers the folders git must be kept out of; throws TreeHazardError for a special file
 * where git reads one. A nested repository's folder is looked through too (not its .git): its tracked files,
 * if it holds any, git still reads, with their attributes.
 */
export async function scanTree(top: string, options: ScanOptions = {}): Promise<KeptOut[]> {
  const { skip = new Set<string>(), ignored } = options
  const kept: KeptOut[] = []
  // Level by level (git's questions then come one a level): each folder, and whether it is inside one kept
  // out already (then only its hazards count).
  let level: [string, boolean][] = [['', false]]
  let stretch = performance.now()
  for (let depth = 0; level.length > 0; depth++) {
    const below: [string, boolean][] = []
    for (const [dir, inside] of level) {
      if (performance.now() - stretch >= STRETCH_MS) {
        await new Promise(resolve => setImmediate(resolve))
        stretch = performance.now()
      }
      let entries: Dirent<Buffer>[]
      try {
        entries = readdirSync(onDisk(top, dir), { withFileTypes: true, encoding: 'buffer' })
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code
        if (code === 'ENOENT' || code === 'ENOTDIR' || inside) continue
        const why =
          code === 'ENAMETOOLONG'
            ? `its path (${pathBytes(path.join(top, dir)).length.toLocaleString('en-US')} bytes with the work tree's) is too long for the action to look into`
            : `the action may not read it (${code ?? 'error'})`
        kept.push({
          path: dir,
          line: `${shortly(showPath(`${dir}/`))}: ${why}, so it is not delivered; the run goes on without it`
        })
        continue
      }
      const names = entries.map(entry => pathFromBytes(entry.name))
      const nested = dir !== '' && names.includes('.git')
      if (nested && !inside)
        kept.push({
          path: dir,
          line: `${showPath(`${dir}/.git`)}: a git repository inside the work tree is not delivered (git would run its filters and hooks as the action); the run goes on without ${showPath(`${dir}/`)}`
        })
      entries.forEach((entry, i) => {
        const rel = dir === '' ? names[i] : `${dir}/${names[i]}`
        if (entry.isDirectory()) {
          if (names[i] !== '.git' && !skip.has(rel)) below.push([rel, inside || nested])
        } else if (READ_BY_GIT.has(names[i]) && !entry.isFile() && !entry.isSymbolicLink())
          throw new TreeHazardError(
            `${showPath(rel)} is ${kindOf(entry)}, where git reads a file: the action opens no special file of the work tree (git would wait on it), so the work cannot be committed; make it a regular file or remove it`
          )
      })
    }
    // Asked only now: git reads the .gitignore of each folder of this level to answer, all known to be files.
    const ask = ignored !== undefined && below.length > 0 && depth < MOST_ASKED_DEPTH
    const leftOut = ask ? await ignored(below.map(([rel]) => rel)) : []
    level = below.filter((_, i) => !leftOut[i])
  }
  return kept
}

/** A git answering `IgnoredBy` questions about the tree below `top`; `close` ends it (each look makes its own). */
export interface IgnoreOracle {
  ask: IgnoredBy
  close(): void
}

/** The longest one question may take: past it the oracle stops, and everything is looked into. */
const ORACLE_MS = 60_000

/**
 * One `git check-ignore --stdin` for a whole look (it answers path by path; `-v -n` says for each whether a
 * pattern matched, `!` ones not ignoring). A path below a folder makes it read that folder's .gitignore, so ask
 * about a folder's subfolders only once the folder is looked at. When git fails, nothing is ignored.
 */
export function ignoreOracle(top: string, env: NodeJS.ProcessEnv): IgnoreOracle {
  const child = spawn(trustedProgram('git'), ['check-ignore', '--stdin', '-z', '-v', '-n'], {
    cwd: top,
    env: { ...process.env, ...env },
    stdio: ['pipe', 'pipe', 'ignore']
  })
  let dead = false
  let rest = Buffer.alloc(0)
  const fields: Buffer[] = []
  const waiting: { count: number; answer: (ignored: boolean[]) => void }[] = []
  const settle = (): void => {
    while (waiting.length > 0 && (dead || fields.length >= waiting[0].count * 4)) {
      const { count, answer } = waiting.shift() as (typeof waiting)[number]
      const mine = dead ? [] : fields.splice(0, count * 4)
      // <source> <line> <pattern> <path>: ignored when a pattern matched and it is not a negation.
      answer(Array.from({ length: count }, (_, i) => (mine[i * 4 + 2]?.[0] ?? 0x21) !== 0x21))
    }
  }
  const stop = (): void => {
    dead = true
    child.kill('SIGKILL')
    settle()
  }
  child.stdout.on('data', (chunk: Buffer) => {
    rest = Buffer.concat([rest, chunk])
    for (let end = rest.indexOf(0); end !== -1; end = rest.indexOf(0)) {
      fields.push(rest.subarray(0, end))
      rest = rest.subarray(end + 1)
    }
    settle()
  })
  child.on('error', stop)
  child.on('close', stop)
  child.stdin.on('error', stop)
  return {
    ask: paths =>
      new Promise(resolve => {
        if (dead) return resolve(paths.map(() => false))
        const timer = setTimeout(stop, ORACLE_MS)
        waiting.push({
          count: paths.length,
          answer: ignored => {
            clearTimeout(timer)
            resolve(dead ? paths.map(() => false) : ignored)
          }
        })
        child.stdin.write(Buffer.concat(paths.map(p => Buffer.concat([pathBytes(p), Buffer.of(0)]))))
      }),
    close: () => {
      child.stdin.end()
      if (!dead) setTimeout(stop, 5_000).unref()
    }
  }
}

/** Escapes a gitignore pattern's special characters (`\ * ? [` and spaces, which git would trim). */
const PATTERN_SPECIAL = /[\\*?[ ]/g

/**
 * An exclude pattern (`--exclude-from`) for exactly `rel` from the top, a file or a folder; undefined for a
 * name a pattern cannot hold (a line break).
 */
export function excludePattern(rel: string): string | undefined {
  if (/[\n\r]/.test(rel)) return undefined
  return `/${rel.replace(PATTERN_SPECIAL, '\\$&')}`
}

/**
 * A file of the tree opened to read, never through a link (its last step) and never waiting (a FIFO opens at
 * once): its descriptor, or undefined when it cannot be opened. The caller checks with fstat what it opened.
 */
export function openInTree(file: Buffer): number | undefined {
  try {
    return openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK)
  } catch {
    return undefined
  }
}

/** A small regular file of the tree, read without following a link or waiting on a FIFO; undefined otherwise. */
function readSmall(file: Buffer): string | undefined {
  const fd = openInTree(file)
  if (fd === undefined) return undefined
  try {
    const stat = fstatSync(fd)
    if (!stat.isFile() || stat.size > 64 * 1024) return undefined
    const buffer = Buffer.alloc(stat.size)
    const read = readSync(fd, buffer, 0, buffer.length, 0)
    return pathFromBytes(buffer.subarray(0, read))
  } catch {
    return undefined
  } finally {
    closeSync(fd)
  }
}

const OID = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/

/**
 * Whether a gitlink's checkout (`rel`, a submodule) moved from `recorded`, told as git tells it (its folder
 * replaced; else the commit its HEAD names, read through its .git, the ref, packed-refs) but by the action
 * itself: no git runs the submodule's config or waits on a file of it. One it cannot tell (not checked out)
 * is unmoved, as git takes it.
 */
export function gitlinkMoved(top: string, rel: string, recorded: string): boolean {
  const folder = path.join(top, rel)
  // Never through a link: a gitlink whose folder is gone, or is now a link or a file, changed as git sees it.
  const stat = lstatSync(pathBytes(folder), { throwIfNoEntry: false })
  if (!stat?.isDirectory()) return true
  const head = checkoutHead(folder)
  return head !== undefined && head !== recorded
}

/** The commit the repository checked out in `folder` is at, from its files; undefined when it cannot be told. */
function checkoutHead(folder: string): string | undefined {
  const dotGit = path.join(folder, '.git')
  const found = lstatSync(pathBytes(dotGit), { throwIfNoEntry: false })
  let gitDir = dotGit
  if (found?.isFile()) {
    const target = /^gitdir: (.+)$/m.exec(readSmall(pathBytes(dotGit)) ?? '')?.[1]
    if (target === undefined) return undefined
    gitDir = path.resolve(folder, target)
  } else if (!found?.isDirectory()) return undefined
  const head = readSmall(pathBytes(path.join(gitDir, 'HEAD')))?.trim()
  if (head === undefined) return undefined
  if (OID.test(head)) return head
  const ref = /^ref: (refs\/\S+)$/.exec(head)?.[1]
  if (ref === undefined) return undefined
  const commonRel = readSmall(pathBytes(path.join(gitDir, 'commondir')))?.trim()
  const common = commonRel ? path.resolve(gitDir, commonRel) : gitDir
  for (const dir of new Set([gitDir, common])) {
    const loose = readSmall(pathBytes(path.join(dir, ref)))?.trim()
    if (loose !== undefined && OID.test(loose)) return loose
  }
  const packed = readSmall(pathBytes(path.join(common, 'packed-refs'))) ?? ''
  for (const line of packed.split('\n')) {
    const [oid, name] = line.split(' ')
    if (name === ref && OID.test(oid)) return oid
  }
  return undefined
}

/** Why no git of the action's may read the tree below `top` now (a special file where git reads one), or undefined. */
export async function treeHazard(top: string): Promise<string | undefined> {
  try {
    await scanTree(top)
    return undefined
  } catch (error) {
    if (error instanceof TreeHazardError) return error.message
    throw error
  }
}
