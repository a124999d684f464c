// Protected paths: what judges the agent (tests that existed, check scripts, runner configuration, the ralph's
// folder, .github/) is put back from the start commit before every gate run, so the verdict is the action's.
// The decisions (which globs, does a path match) are pure; finding changes reads the tree as the action's
// user without following a link; the writes run as the agent's user (its runProcess), so the tree stays its own.
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
import path from 'node:path'
import { performance } from 'node:perf_hooks'
import { GitRepo, openInTree } from '../git/index.js'
import { onDisk, pathBytes, pathFromBytes, showPath, splitNul } from '../text/tree-path.js'
import { runProcess as defaultRunProcess } from '../proc/index.js'
import type { RunOptions, RunResult } from '../proc/types.js'
import type { CheckRun } from './types.js'
import { shlexSplit, type RalphCheck } from '../ralph/index.js'
export { parseProtectSetting } from '../ralph/protect.js'

/** `scope: 'all'`: every path matching is the base's (a new one is removed); `'base'`: only paths the start commit has. */
export interface ProtectRule {
  glob: string
  scope: 'all' | 'base'
  /** Why it is protected, in words (`auto: a test file`). */
  why: string
}

/** What the start commit holds at a protected path. */
export interface BaseEntry {
  /** git's mode: 100644, 100755 or 120000 (a link). */
  mode: string
  /** The blob's object id. */
  oid: string
}

/** A protected path put back: what the agent had done to it. */
export interface Revert {
  /** A path string (see text/tree-path.ts): a name need not be UTF-8; a log shows it with showPath. */
  path: string
  /** changed, deleted, replaced by a link, replaced by a folder, its mode changed, added (new in a protected place)… */
  why: string
}

/** The protections of one run: its rules, resolved against the start commit. */
export interface Protection {
  /** The repository's top folder (real path); every path here is relative to it, with `/` (path strings). */
  top: string
  /** The start commit: what protected paths are put back to. */
  base: string
  rules: ProtectRule[]
  /** Every protected path of the start commit (regular files and links; gitlinks are never protected). */
  paths: Map<string, BaseEntry>
  /** The guardrails file: the agent is asked to write it, so it is never protected. */
  guardrails?: string
}

/** What `auto` needs to know about the run. */
export interface AutoFacts {
  /** The ralph's folder, relative to the top (undefined: a ralph-less run). */
  ralphDir?: string
  /** Its RALPH.md, relative to the top: all that is protected of a ralph whose folder is the project's. */
  ralphFile?: string
  /** The guardrails file, relative to the top: the agent is asked to write it, so it is never protected. */
  guardrails?: string
  /** The gates, and the folder they run in (relative to the top, '' for the top). */
  checks: readonly Pick<RalphCheck, 'run'>[]
  projectDir: string
}

/** A protected path could not be put back: the gates must not judge this tree. */
export class ProtectedPathError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'ProtectedPathError'
  }
}

/** Test files by the common conventions: the agent may add tests, never weaken the ones that judge it. */
export const TEST_FILE_GLOBS = [
  '**/*.test.*',
  '**/*.spec.*',
  '**/test_*.py',
  '**/*_test.py',
  '**/*_test.go',
  '**/__tests__/**',
  '**/test/**',
  '**/tests/**'
]

/**
 * What a test runner reads to decide what and how to run: a new one anywhere (a `jest.config.js` beside a
 * protected `jest.config.ts`, a `conftest.py` in a subfolder, a `GNUmakefile` before the `Makefile`) is removed.
 */
export const RUNNER_CONFIG_GLOBS = [
  '**/jest.config.*',
  '**/jest.setup.*',
  '**/vitest.config.*',
  '**/vitest.workspace.*',
  '**/vitest.setup.*',
  '**/vite.config.*',
  '**/.mocharc*',
  '**/.ava.config.*',
  '**/ava.config.*',
  '**/babel.config.*',
  '**/.babelrc*',
  '**/tsconfig*.json',
  '**/.npmrc',
  '**/.yarnrc',
  '**/.yarnrc.yml',
  '**/.pnpmfile.cjs',
  '**/bunfig.toml',
  '**/.node-options',
  '**/pytest.ini',
  '**/.pytest.ini',
  // A module named as the runner wins over it (`python -m pytest` runs ./pytest.py); jest's manual mocks of
  // a package replace it; Go's module files pick which code a path names.
  'pytest.py',
  'pytest/**',
  '**/__mocks__/**',
  '**/go.mod',
  '**/go.work',
  '**/pyproject.toml',
  '**/setup.cfg',
  '**/tox.ini',
  '**/noxfile.py',
  '**/conftest.py',
  '**/.coveragerc',
  '**/Makefile',
  '**/makefile',
  '**/GNUmakefile'
]

/** Gate programs whose runner reads package.json (its scripts, and its jest/mocha/type/imports fields). */
const PACKAGE_JSON_RUNNERS = new Set([
  'npm',
  'npx',
  'yarn',
  'pnpm',
  'bun',
  'node',
  'jest',
  'vitest',
  'mocha',
  'ava',
  'tsx',
  'ts-node'
])

/** Directories the search for new protected paths does not enter (dependencies, git's own). */
const NOT_SEARCHED = new Set(['.git', 'node_modules'])
/** Entries the search looks at, at most: past that, the check fails (closed) rather than pass unlooked. */
const MOST_SEARCHED = 200_000

const toPosix = (p: string): string => p.split(path.sep).join('/')

/** `dir` relative to the top, or undefined when it is outside it. */
export function insideTop(top: string, file: string): string | undefined {
  const rel = toPosix(path.relative(top, file))
  return rel.startsWith('..') || path.isAbsolute(rel) ? undefined : rel
}

/** The words of a gate that may name a path: its shell words, and the pieces of those split at shell syntax. */
function gateWords(run: string): string[] {
  const pieces = shellWords(run).flatMap(word => [word, ...word.split(/[\s;&|()<>`"'=,]+/)])
  return [...new Set(pieces.filter(p => p !== '' && p !== '.' && p !== '..' && !p.startsWith('-')))]
}

function shellWords(run: string): string[] {
  try {
    return shlexSplit(run)
  } catch {
    return run.split(/\s+/)
  }
}

/** Programs whose first word that is not an option is the script they run. */
const INTERPRETERS = new Set(
  [
    'bash',
    'sh',
    'dash',
    'zsh',
    'ksh',
    'node',
    'python',
    'python3',
    'ruby',
    'perl',
    'php',
    'deno',
    'bun'
  ].concat(['tsx', 'ts-node', 'pwsh', 'source', '.'])
)
/** Programs that run the command that follows them. */
const WRAPPERS = new Set(['env', 'timeout', 'nice', 'nohup', 'time', 'exec', 'command', 'xargs', 'stdbuf'])
/** Words that end one simple command and start another. */
const SEPARATOR = /^(;|&&|\|\||\||&|\(|\)|\{|\}|!|if|then|else|elif|do|while|until)$/

/**
 * The files a gate runs, not those it reads as data: each simple command's program, an interpreter's script
 * (`bash check.sh`, `node scripts/verify.js`; `bash -c '…'` read again), and a runner's configuration
 * (`--config x`). `grep -q 'a + b' calc.js` runs grep: calc.js is the code the agent is asked to change.
 */
export function filesRun(run: string, depth = 0): string[] {
  const words = shellWords(run)
  const out: string[] = []
  let start = true
  for (let i = 0; i < words.length; i++) {
    const word = words[i].replace(/;+$/, '')
    const ends = words[i] !== word
    if (SEPARATOR.test(word)) {
      start = true
      continue
    }
    const config = /^(-c|--?(config|config-file|rcfile|settings))(=(.*))?$/.exec(word)
    if (config) {
      const value = config[4] ?? words[i + 1]
      if (value) out.push(value)
    } else if (start && !/^[A-Za-z_][A-Za-z0-9_]*=/.test(word) && !/^-|^\d+[smhd]?$/.test(word)) {
      const name = path.posix.basename(word)
      out.push(word)
      start = WRAPPERS.has(name)
      if (INTERPRETERS.has(name))
        for (let j = i + 1; j < words.length; j++) {
          if (words[j] === '-c' && words[j + 1] !== undefined) {
            if (depth < 2) out.push(...filesRun(words[j + 1], depth + 1))
            i = j + 1
            break
          }
          if (words[j] === '-m') break
          if (words[j].startsWith('-')) continue
          out.push(words[j].replace(/;+$/, ''))
          if (words[j].endsWith(';')) start = true
          i = j
          break
        }
    }
    if (ends) start = true
  }
  return out
}

/**
 * The rules `auto` stands for, given the start commit's files: the ralph's folder, .github/, every file a
 * gate runs (filesRun), package.json for JavaScript gates, runner configuration, and the tests that exist.
 */
export function autoRules(facts: AutoFacts, baseFiles: ReadonlySet<string>): ProtectRule[] {
  const rules: ProtectRule[] = []
  // A ralph whose folder is the project (or the repository) protects its RALPH.md, not every file beside it.
  if (facts.ralphDir !== undefined && facts.ralphDir !== '' && facts.ralphDir !== facts.projectDir)
    rules.push({ glob: `${facts.ralphDir}/**`, scope: 'all', why: "auto: the ralph's own folder" })
  else if (facts.ralphFile !== undefined)
    rules.push({ glob: facts.ralphFile, scope: 'base', why: "auto: the ralph's RALPH.md" })
  rules.push({ glob: '.github/**', scope: 'all', why: 'auto: .github/ (workflows, actions)' })
  let javascript = false
  for (const check of facts.checks) {
    for (const word of gateWords(check.run))
      if (PACKAGE_JSON_RUNNERS.has(path.posix.basename(word))) javascript = true
    for (const word of filesRun(check.run)) {
      if (/[$*?[{]/.test(word)) continue
      const rel = path.posix.normalize(path.posix.join(facts.projectDir, word.replace(/^\.\//, '')))
      if (rel.startsWith('..') || rel === '.' || path.posix.isAbsolute(word)) continue
      // A file, not a folder: `eslint src` names the code the agent is asked to change.
      if (baseFiles.has(rel))
        rules.push({ glob: rel, scope: 'base', why: `auto: run by a gate (${check.run})` })
    }
  }
  if (javascript)
    for (const dir of new Set(['', facts.projectDir])) {
      const file = dir === '' ? 'package.json' : `${dir}/package.json`
      if (baseFiles.has(file))
        rules.push({
          glob: file,
          scope: 'base',
          why: 'auto: package.json (its scripts and fields steer the runner)'
        })
    }
  for (const glob of RUNNER_CONFIG_GLOBS)
    rules.push({ glob, scope: 'all', why: "auto: a test runner's configuration" })
  for (const glob of TEST_FILE_GLOBS)
    rules.push({ glob, scope: 'base', why: 'auto: a test file of the start commit' })
  return rules
}

/** The rules a setting stands for: `auto` expanded, every other glob protecting what matches it (new paths too). */
export function protectRules(
  setting: readonly string[],
  facts: AutoFacts,
  baseFiles: ReadonlySet<string>
): ProtectRule[] {
  if (setting.includes('none')) return []
  return setting.flatMap(glob =>
    glob === 'auto'
      ? autoRules(facts, baseFiles)
      : [{ glob, scope: 'all' as const, why: `protected: ${glob}` }]
  )
}

const regexCache = new Map<string, RegExp>()

/** A glob as a regular expression over `/` paths: `**` any folders, `*` and `?` within a name, `[…]`, `{a,b}`. */
export function globRegExp(glob: string): RegExp {
  const cached = regexCache.get(glob)
  if (cached) return cached
  let source = ''
  const g = glob.replace(/\/+$/, '/**')
  for (let i = 0; i < g.length; i++) {
    const c = g[i]
    if (c === '*' && g[i + 1] === '*') {
      const atStart = i === 0 || g[i - 1] === '/'
      const slashAfter = g[i + 2] === '/'
      if (atStart && slashAfter) {
        source += '(?:.*/)?'
        i += 2
      } else if (atStart && i + 2 === g.length) {
        source += '.*'
        i += 1
      } else {
        source += '[^/]*'
        i += 1
      }
    } else if (c === '*') source += '[^/]*'
    else if (c === '?') source += '[^/]'
    else if (c === '[') {
      const end = g.indexOf(']', i + 2)
      if (end === -1) source += '\\['
      else {
        const body = g
          .slice(i + 1, end)
          .replace(/^!/, '^')
          .replace(/\\/g, '\\\\')
        source += `[${body}]`
        i = end
      }
    } else if (c === '{') {
      const end = g.indexOf('}', i)
      if (end === -1) source += '\\{'
      else {
        const options = g.slice(i + 1, end).split(',')
        source += `(?:${options.map(o => o.replace(/[.+^${}()|\\]/g, '\\$&').replace(/\*/g, '[^/]*')).join('|')})`
        i = end
      }
    } else source += c.replace(/[.+^${}()|\\/]/g, '\\$&')
  }
  const re = new RegExp(`^${source}$`)
  regexCache.set(glob, re)
  return re
}

/** Whether a glob names the path itself or a folder holding it. */
export function globMatches(glob: string, file: string): boolean {
  const re = globRegExp(glob)
  if (re.test(file)) return true
  for (let dir = path.posix.dirname(file); dir !== '.'; dir = path.posix.dirname(dir))
    if (re.test(dir)) return true
  return false
}

/** The first rule protecting a path of the start commit (`base`: it is in it), or undefined. */
export function ruleFor(rules: readonly ProtectRule[], file: string, base: boolean): ProtectRule | undefined {
  return rules.find(rule => (base || rule.scope === 'all') && globMatches(rule.glob, file))
}

/** Every file (and link) of a commit, from git's object store: path → mode and blob. */
export async function baseEntries(top: string, base: string): Promise<Map<string, BaseEntry>> {
  const out = await new GitRepo(top).bytes(['ls-tree', '-r', '-z', '--full-tree', base])
  const entries = new Map<string, BaseEntry>()
  for (const record of splitNul(out)) {
    const tab = record.indexOf('\t')
    if (tab === -1) continue
    const [mode, type, oid] = record.slice(0, tab).split(' ')
    if (type === 'blob') entries.set(record.slice(tab + 1), { mode, oid })
  }
  return entries
}

/**
 * The protections of a run: `setting` (parseProtectSetting's list) resolved against the start commit `base`
 * of the repository whose top is `top`.
 */
export async function resolveProtection(
  top: string,
  base: string,
  setting: readonly string[],
  facts: AutoFacts
): Promise<Protection> {
  const all = await baseEntries(top, base)
  return protectionFromRules(top, base, protectRules(setting, facts, new Set(all.keys())), facts.guardrails)
}

/** The top of the repository holding `dir` (real path), by the hermetic git. */
export async function repositoryTop(dir: string): Promise<string> {
  const result = await new GitRepo(dir).exec(['rev-parse', '--show-toplevel'])
  return result.stdout.trim()
}

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
    } catch {
      return
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
      let i = within.indexOf(true)
      if (any.test(rel)) i = patterns.findIndex((re, j) => within[j] || re.test(rel))
      if (i === -1 && entry.isSymbolicLink()) i = patterns.findIndex(re => re.test(`${rel}/-`))
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

const quote = (text: string): string => `'${text.replace(/'/g, `'\\''`)}'`
const HEREDOC_END = 'RALPH_PROTECTED_PATH_END'

/**
 * The shell script that puts `reverts` back (POSIX sh and coreutils, so the agent's own user can run it): what
 * is in the way is removed (a link is removed, never followed), folders made, each file written from its blob.
 * Its paths are path strings: the shell is given `pathBytes(script)`, each name byte for byte.
 */
export function restoreScript(
  protection: Protection,
  reverts: readonly Revert[],
  blobs: ReadonlyMap<string, Buffer>
): string {
  const lines = ['set -e', 'umask 022', `cd -- ${quote(protection.top)}`]
  // What goes comes first: a link removed where a protected folder was must not take its restored files with it.
  const added = reverts.filter(r => !protection.paths.has(r.path))
  for (const revert of [...added, ...reverts.filter(r => protection.paths.has(r.path))]) {
    const entry = protection.paths.get(revert.path)
    // A folder on the way that is now a link or a file goes, then the path itself, whatever it is.
    const parts = revert.path.split('/')
    for (let i = 1; i < parts.length; i++) {
      const dir = parts.slice(0, i).join('/')
      lines.push(
        `if [ -L ${quote(dir)} ] || { [ -e ${quote(dir)} ] && [ ! -d ${quote(dir)} ]; }; then rm -f -- ${quote(dir)}; fi`
      )
      lines.push(`[ -d ${quote(dir)} ] || mkdir -- ${quote(dir)}`)
      // A folder the agent closed to others (the action's user reads it to look again); not fatal when not its own.
      lines.push(`chmod u+rwx,go+rx -- ${quote(dir)} 2>/dev/null || true`)
    }
    lines.push(`rm -rf -- ${quote(revert.path)}`)
    if (!entry) continue
    const content = blobs.get(entry.oid) ?? Buffer.alloc(0)
    if (entry.mode === '120000') {
      lines.push(`ln -s -- ${quote(pathFromBytes(content))} ${quote(revert.path)}`)
      continue
    }
    const encoded = content.toString('base64').replace(/.{1,76}/g, '$&\n')
    lines.push(`base64 -d > ${quote(revert.path)} <<'${HEREDOC_END}'`, `${encoded}${HEREDOC_END}`)
    lines.push(`chmod ${entry.mode === '100755' ? '755' : '644'} -- ${quote(revert.path)}`)
  }
  return `${lines.join('\n')}\n`
}

/** The blobs of `oids`, from git's object store (`cat-file --batch`). */
async function readBlobs(top: string, oids: readonly string[]): Promise<Map<string, Buffer>> {
  const unique = [...new Set(oids)]
  const blobs = new Map<string, Buffer>()
  if (unique.length === 0) return blobs
  const out = await new GitRepo(top).bytes(['cat-file', '--batch'], unique.map(oid => `${oid}\n`).join(''))
  let at = 0
  for (const oid of unique) {
    const newline = out.indexOf(10, at)
    const header = out.subarray(at, newline).toString('utf8').split(' ')
    const size = Number(header[2])
    if (header[0] !== oid || !Number.isInteger(size)) throw new Error(`git cat-file gave no blob ${oid}`)
    blobs.set(oid, out.subarray(newline + 1, newline + 1 + size))
    at = newline + 1 + size + 1
  }
  return blobs
}

export interface RestoreOptions {
  /** Starts the restore's shell (the loop's: as the agent's user under isolation). Default: as this process. */
  runProcess?: (options: RunOptions) => Promise<RunResult>
  signal?: AbortSignal
}

/**
 * Puts every protected path back as the start commit has it and removes what was added where nothing may be,
 * then looks again: answers what was put back, or throws ProtectedPathError when something could not be.
 */
export async function restore(protection: Protection, options: RestoreOptions = {}): Promise<Revert[]> {
  const reverts = await findChanges(protection)
  if (reverts.length === 0) return []
  const oids = reverts.flatMap(r => protection.paths.get(r.path)?.oid ?? [])
  const script = restoreScript(protection, reverts, await readBlobs(protection.top, oids))
  const run = options.runProcess ?? defaultRunProcess
  const result = await run({
    argv: ['/bin/sh', '-s'],
    cwd: protection.top,
    env: { PATH: '/usr/local/bin:/usr/bin:/bin', LC_ALL: 'C' },
    input: pathBytes(script),
    timeoutMs: 120_000,
    ...(options.signal ? { signal: options.signal } : {})
  })
  const left = await findChanges(protection)
  if (result.exitCode !== 0 || left.length > 0) {
    const said = Buffer.concat([result.stderr.head, result.stderr.tail])
      .toString('utf8')
      .trim()
      .split('\n')[0]
    const still = revertsLine(left)
    throw new ProtectedPathError(
      `protected paths could not be put back before the gates${still ? `: ${still}` : ''}${said ? ` (${said})` : ''}`
    )
  }
  return reverts
}

/**
 * For another work tree (a clean checkout to verify): the rules a run recorded (status.json's `protected`),
 * applied there against `baseCommit`. Answers what was put back; throws ProtectedPathError when something
 * could not be. `runProcess` starts the restore's shell (as the agent's user, where the tree is the agent's).
 */
export async function restoreProtected(
  workTree: string,
  baseCommit: string,
  rules: readonly ProtectRule[],
  options: RestoreOptions & { guardrails?: string } = {}
): Promise<Revert[]> {
  const top = await repositoryTop(workTree)
  return restore(await protectionFromRules(top, baseCommit, rules, options.guardrails), options)
}

/** The protections of `rules` (already resolved, e.g. from status.json) against the start commit. */
export async function protectionFromRules(
  top: string,
  base: string,
  rules: readonly ProtectRule[],
  guardrails?: string
): Promise<Protection> {
  const paths = new Map<string, BaseEntry>()
  if (rules.length > 0)
    for (const [file, entry] of await baseEntries(top, base))
      if (file !== guardrails && ruleFor(rules, file, true)) paths.set(file, entry)
  return { top, base, rules: [...rules], paths, ...(guardrails !== undefined ? { guardrails } : {}) }
}

/** The paths of `changed` (relative to the top) that the delivered commit may not change, with why. */
export function protectedChanges(
  rules: readonly ProtectRule[],
  changed: readonly { path: string; inBase: boolean }[],
  guardrails?: string
): Revert[] {
  return changed.flatMap(({ path: file, inBase }) => {
    if (file === guardrails) return []
    const rule = ruleFor(rules, file, inBase)
    return rule ? [{ path: file, why: rule.why }] : []
  })
}

/** One line for the prompt, the log and the record: each path and why. */
export function revertsLine(reverts: readonly Revert[]): string {
  return reverts.map(r => `${showPath(r.path)} (${r.why})`).join(', ')
}

/**
 * The loop's protections (undefined when off): `setting` against the start commit, with what `auto` needs from
 * the ralph (its folder, unless it is a ralph-less run's stand-in; its guardrails file) and the gates.
 */
export async function protectionOf(
  config: {
    protect?: string[]
    ralph: { file: string; dir: string; guardrails?: string }
    checks: readonly Pick<RalphCheck, 'run'>[]
  },
  workTree: string,
  base: string
): Promise<Protection | undefined> {
  const setting = config.protect ?? []
  if (setting.length === 0 || setting.includes('none')) return undefined
  const top = await repositoryTop(workTree)
  const ralphDir = config.ralph.file !== '' ? insideTop(top, config.ralph.dir) : undefined
  const ralphFile = config.ralph.file !== '' ? insideTop(top, config.ralph.file) : undefined
  const guardrails = config.ralph.guardrails
    ? insideTop(top, path.resolve(workTree, config.ralph.guardrails))
    : undefined
  return resolveProtection(top, base, setting, {
    ...(ralphDir !== undefined ? { ralphDir } : {}),
    ...(ralphFile !== undefined ? { ralphFile } : {}),
    ...(guardrails !== undefined ? { guardrails } : {}),
    checks: config.checks,
    projectDir: insideTop(top, workTree) ?? ''
  })
}

/**
 * The protected paths a commit changes against the start commit (the delivery's last check: the restore before
 * each gate run makes this empty). `rules` and `guardrails` as status.json's `protected` records them.
 */
export async function protectedInCommit(
  dir: string,
  base: string,
  commit: string,
  rules: readonly ProtectRule[],
  guardrails?: string
): Promise<Revert[]> {
  const out = await new GitRepo(dir).bytes([
    'diff',
    '--name-status',
    '-z',
    '--no-renames',
    base,
    commit,
    '--'
  ])
  const fields = splitNul(out)
  const changed: { path: string; inBase: boolean }[] = []
  for (let i = 0; i + 1 < fields.length; i += 2)
    changed.push({ path: fields[i + 1], inBase: fields[i] !== 'A' })
  return protectedChanges(rules, changed, guardrails)
}

/**
 * The failing run that voids a round of gates during which protected paths changed: the code a gate runs
 * (the agent's) could have rewritten a later gate's script or a test not yet loaded. They are put back before
 * the next round.
 */
export function changedDuringGates(changes: readonly Revert[]): CheckRun {
  return {
    name: 'protected paths',
    run: '(the action: what judges the agent, unchanged while it judges)',
    passed: false,
    exitCode: null,
    timedOut: false,
    durationMs: 0,
    outputBytes: 0,
    tail: `While the gates ran, protected paths changed: ${revertsLine(changes)}. Gates that run code which rewrites what judges it do not count; leave those paths alone.`,
    log: ''
  }
}
