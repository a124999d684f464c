// The tree scan of protected paths: what the tree no longer has as the start commit had it, and what is new where
// nothing may be added. It reads the tree as the action's user without following a link, lets the event loop run
// between stretches of work, and keeps a stat cache (git's index's way) so an unchanged file is hashed once.
import { createHash } from 'node:crypto'
import {
  closeSync,
  fstatSync,
  lstatSync,
  readdirSync,
  readlinkSync,
  readSync,
  type BigIntStats
} from 'node:fs'
import { performance } from 'node:perf_hooks'
import { openInTree } from '../../git/index.js'
import { onDisk, pathFromBytes, showPath } from '../../text/tree-path.js'
import { globMatches, globRegExp } from './glob.js'
import { ProtectedPathError, type BaseEntry, type Protection, type Revert } from './types.js'

/** Directories the search for new protected paths does not enter (dependencies, git's own). */
const NOT_SEARCHED = new Set(['.git', 'node_modules'])
/** Entries the search looks at, at most: past that, the check fails (closed) rather than pass unlooked. */
const MOST_SEARCHED = 200_000

type Found =
  | { kind: 'file'; stat: BigIntStats }
  | { kind: 'link'; target: Buffer }
  | { kind: 'other'; why: string }
  | { kind: 'missing' }

/** Work of a check in stretches of at most this long, then the event loop runs (budgets' timers, output). */
const STRETCH_MS = 20

/** One look at the tree: each folder on the way looked at once, and the event loop let run between stretches. */
class Pass {
  /** A folder's verdict (relative to the top): undefined when it is a folder, else what is there instead. */
  private readonly folders = new Map<string, Found | undefined>()
  private stretchStarted = performance.now()

  /** When the pass began, in nanoseconds since the epoch: a file changed since then may change again unseen. */
  readonly startedNs: bigint

  constructor(
    readonly top: string,
    now: number
  ) {
    this.startedNs = BigInt(Math.floor(now)) * 1_000_000n
  }

  /** Whether the current stretch of work is long enough. */
  due(): boolean {
    return performance.now() - this.stretchStarted >= STRETCH_MS
  }

  /** Lets the event loop run, then starts a new stretch. */
  async pause(): Promise<void> {
    await new Promise(resolve => setImmediate(resolve))
    this.stretchStarted = performance.now()
  }

  /** What is at `rel`, looking at every folder on the way (once a pass) without following one that is a link. */
  inspect(rel: string): Found {
    const slash = rel.lastIndexOf('/')
    const folder = slash === -1 ? undefined : this.folder(rel.slice(0, slash))
    if (folder) return folder
    const at = onDisk(this.top, rel)
    let stat
    try {
      stat = lstatSync(at, { bigint: true })
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      if (code === 'ENOENT' || code === 'ENOTDIR') return { kind: 'missing' }
      return { kind: 'other', why: 'made unreadable' }
    }
    if (stat.isSymbolicLink()) return { kind: 'link', target: readlinkSync(at, { encoding: 'buffer' }) }
    if (stat.isDirectory()) return { kind: 'other', why: 'replaced by a folder' }
    if (!stat.isFile()) return { kind: 'other', why: 'replaced by a special file' }
    return { kind: 'file', stat }
  }

  /** Undefined when `dir` and every folder above it are folders; else what the path below it finds. */
  private folder(dir: string): Found | undefined {
    if (this.folders.has(dir)) return this.folders.get(dir)
    const slash = dir.lastIndexOf('/')
    let found = slash === -1 ? undefined : this.folder(dir.slice(0, slash))
    if (!found) {
      let stat
      try {
        stat = lstatSync(onDisk(this.top, dir))
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code
        stat = undefined
        found =
          code === 'ENOENT' || code === 'ENOTDIR'
            ? { kind: 'missing' }
            : { kind: 'other', why: 'made unreadable' }
      }
      if (stat?.isSymbolicLink())
        found = { kind: 'other', why: `a folder on its way (${showPath(dir)}) replaced by a link` }
      else if (stat && !stat.isDirectory())
        found = { kind: 'other', why: `a folder on its way (${showPath(dir)}) replaced by a file` }
    }
    this.folders.set(dir, found)
    return found
  }
}

/**
 * What lstat said of a protected file last found as the start commit has it, as git's index keeps it: when
 * all of it is the same, so is the file. A write changes the ctime, which no user process can set back; a
 * file swapped for another (a rename, a copy) has another inode.
 */
interface StatKey {
  dev: bigint
  ino: bigint
  size: bigint
  mode: bigint
  ctimeNs: bigint
  mtimeNs: bigint
}

/** Per protection: the stat keys of its files found unchanged. */
const verified = new WeakMap<Protection, Map<string, StatKey>>()

const statKey = (stat: BigIntStats): StatKey => ({
  dev: stat.dev,
  ino: stat.ino,
  size: stat.size,
  mode: stat.mode,
  ctimeNs: stat.ctimeNs,
  mtimeNs: stat.mtimeNs
})

const sameStat = (key: StatKey, stat: BigIntStats): boolean =>
  key.dev === stat.dev &&
  key.ino === stat.ino &&
  key.size === stat.size &&
  key.mode === stat.mode &&
  key.ctimeNs === stat.ctimeNs &&
  key.mtimeNs === stat.mtimeNs

/**
 * A change this close to the look could share its ctime with a later one (file systems keep times to a tick,
 * some to a second or two), so such a file is hashed again next time (git's "racily clean" entries).
 */
const RACY_NS = 2_000_000_000n

/**
 * The git blob id of a regular file, read without following a link (O_NOFOLLOW), in the repository's hash;
 * with its stat key when the file did not change while it was read and did not change just before.
 */
async function blobId(
  file: Buffer,
  algorithm: 'sha1' | 'sha256',
  pass: Pass
): Promise<{ oid: string; key?: StatKey } | undefined> {
  const fd = openInTree(file)
  if (fd === undefined) return undefined
  try {
    const before = fstatSync(fd, { bigint: true })
    if (!before.isFile()) return undefined
    const hash = createHash(algorithm).update(`blob ${before.size}\0`)
    const buffer = Buffer.alloc(
      Number(before.size < 1n << 20n ? (before.size > 0n ? before.size : 1n) : 1n << 20n)
    )
    let total = 0n
    for (;;) {
      const n = readSync(fd, buffer, 0, buffer.length, null)
      if (n === 0) break
      hash.update(buffer.subarray(0, n))
      total += BigInt(n)
      if (pass.due()) await pass.pause()
    }
    if (total !== before.size) return undefined
    const oid = hash.digest('hex')
    const after = fstatSync(fd, { bigint: true })
    const settled = sameStat(statKey(before), after) && before.ctimeNs < pass.startedNs - RACY_NS
    return settled ? { oid, key: statKey(before) } : { oid }
  } finally {
    closeSync(fd)
  }
}

/** What differs at one protected path of the start commit, in words; undefined when it is as it was. */
async function differs(
  pass: Pass,
  rel: string,
  entry: BaseEntry,
  known: Map<string, StatKey>
): Promise<string | undefined> {
  const found = pass.inspect(rel)
  if (found.kind === 'missing') return 'deleted'
  if (found.kind === 'other') return found.why
  if (entry.mode === '120000') {
    if (found.kind !== 'link') return 'a link replaced by a file'
    const expected = createHash(entry.oid.length === 64 ? 'sha256' : 'sha1')
      .update(`blob ${found.target.length}\0`)
      .update(found.target)
      .digest('hex')
    return expected === entry.oid ? undefined : 'the link changed'
  }
  if (found.kind === 'link') return 'replaced by a link'
  const key = known.get(rel)
  if (!key || !sameStat(key, found.stat)) {
    known.delete(rel)
    const blob = await blobId(onDisk(pass.top, rel), entry.oid.length === 64 ? 'sha256' : 'sha1', pass)
    if (blob === undefined) return 'made unreadable'
    if (blob.oid !== entry.oid) return 'changed'
    // Kept only when it is the file lstat saw (not one swapped in meanwhile).
    if (blob.key && blob.key.dev === found.stat.dev && blob.key.ino === found.stat.ino)
      known.set(rel, blob.key)
  }
  const executable = (Number(found.stat.mode) & 0o100) !== 0
  if (executable !== (entry.mode === '100755'))
    return executable ? 'made executable' : 'its executable bit removed'
  return undefined
}

/** New paths where every path is protected (a rule of scope `all`), found without following links. */
async function added(protection: Protection, pass: Pass): Promise<Revert[]> {
  const allRules = protection.rules.filter(rule => rule.scope === 'all')
  if (allRules.length === 0) return []
  const patterns = allRules.map(rule => globRegExp(rule.glob))
  // Most names match no rule: one test of them all rules them out.
  const any = new RegExp(`^(?:${patterns.map(re => re.source.slice(1, -1)).join('|')})$`)
  const found: Revert[] = []
  let seen = 0
  // `within[i]`: rule i names the folder or one above it (globMatches, decided once a folder).
  const walk = async (dir: string, within: readonly boolean[]): Promise<void> => {
    let entries
    try {
      entries = readdirSync(onDisk(protection.top, dir), { withFileTypes: true, encoding: 'buffer' })
    } catch (error) {
      // Gone since its parent was read: nothing new in it.
      const code = (error as NodeJS.ErrnoException).code
      if (code === 'ENOENT' || code === 'ENOTDIR') return
      // A path too long to open is never delivered either (the workspace leaves it out, with a warning), so
      // nothing in it reaches the clean verification or the branch.
      if (code === 'ENAMETOOLONG') return
      // Any other failure (a folder made unreadable, chmod 000 or 311) could hide new files: fail closed.
      throw new ProtectedPathError(
        `the folder ${dir === '' ? '.' : dir} in the work tree cannot be read (${code ?? String(error)}), so new files in it where none may be added cannot be ruled out: leave its permissions readable`
      )
    }
    for (const entry of entries) {
      const name = pathFromBytes(entry.name)
      if (++seen > MOST_SEARCHED)
        throw new ProtectedPathError(
          `the work tree holds over ${MOST_SEARCHED.toLocaleString('en-US')} entries outside node_modules and .git, too many to look through for new files where none may be added: set protected-paths to none for this repository`
        )
      if (pass.due()) await pass.pause()
      const rel = dir === '' ? name : `${dir}/${name}`
      if (entry.isDirectory()) {
        if (!NOT_SEARCHED.has(name))
          await walk(
            rel,
            patterns.map((re, i) => within[i] || re.test(rel))
          )
        continue
      }
      if (protection.paths.has(rel) || rel === protection.guardrails) continue
      // A link may stand for a folder: one where a protected folder would be is as new as a file in it.
      // A rule's exceptions (editable's globs) leave a path to the agent, as ruleFor does for paths of the start.
      const names = (j: number, as: string): boolean =>
        !allRules[j].except?.some(glob => globMatches(glob, rel)) && (within[j] || patterns[j].test(as))
      let i = within.includes(true) || any.test(rel) ? patterns.findIndex((_, j) => names(j, rel)) : -1
      if (i === -1 && entry.isSymbolicLink()) i = patterns.findIndex((_, j) => names(j, `${rel}/-`))
      if (i !== -1)
        found.push({
          path: rel,
          why: `added where paths are protected (${allRules[i].why.replace(/^auto: /, '')})`
        })
    }
  }
  await walk(
    '',
    patterns.map(() => false)
  )
  return found
}

/**
 * Every protected path the tree no longer has as the start commit had it, and every new one where none may be
 * added. A file found unchanged is hashed again only when its stat key changed (`now`: the wall clock, in ms).
 */
export async function findChanges(
  protection: Protection,
  options: { now?: () => number } = {}
): Promise<Revert[]> {
  const pass = new Pass(protection.top, (options.now ?? Date.now)())
  let known = verified.get(protection)
  if (!known) verified.set(protection, (known = new Map()))
  const changes: Revert[] = []
  for (const [rel, entry] of protection.paths) {
    const why = await differs(pass, rel, entry, known)
    if (why) changes.push({ path: rel, why })
    if (pass.due()) await pass.pause()
  }
  return [...changes, ...(await added(protection, pass))]
}
