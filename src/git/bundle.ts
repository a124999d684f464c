// The loop's commits carried from the agent's job to the deliver job as a git bundle, and what the deliver job
// asks of one before anything of it is pushed. A bundle is data from a job the agent ran in: its header is
// parsed here (never trusted to git's own reading first), its objects are fetched with fsck on, and the range
// it carries is read from the object store by the hermetic git (no checkout, no filter, no hook).
import { spawn } from 'node:child_process'
import { closeSync, constants, createReadStream, fstatSync, openSync, readSync } from 'node:fs'
import { trustedProgram } from '../proc/index.js'
import { GitRepo } from './repo.js'
import { splitNul } from '../text/tree-path.js'
import { hermeticGitEnvironment } from '../security/index.js'

/** The most commits one delivery may carry (a loop makes one an iteration). */
export const MOST_DELIVERED_COMMITS = 10_000
const MOST_HEADER_BYTES = 1024 * 1024
const OID = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/

export interface BundleHeader {
  /** The commits the bundle needs the receiver to have already (its boundary). */
  prerequisites: string[]
  refs: { oid: string; name: string }[]
  /** Where the pack begins in the file, after the header's blank line. */
  packOffset: number
}

/** Writes `branch` (which must be at `head`) as a bundle of the commits on top of `base`. */
export async function createBundle(
  workTree: string,
  file: string,
  branch: string,
  base: string,
  head: string
): Promise<void> {
  const repo = new GitRepo(workTree)
  const at = await repo.commitOf(`refs/heads/${branch}`)
  if (at !== head) throw new Error(`${branch} is at ${at ?? 'nothing'}, not at ${head}`)
  await repo.exec(['bundle', 'create', '--quiet', file, `refs/heads/${branch}`, `^${base}`])
}

/** Reads a bundle's header (v2 or v3) from its file; throws a one-line error for anything else. */
export function readBundleHeader(file: string): BundleHeader {
  const fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW)
  let text: string
  let packOffset: number
  try {
    if (!fstatSync(fd).isFile()) throw new Error('the bundle is not a regular file')
    const buffer = Buffer.alloc(MOST_HEADER_BYTES)
    const read = readSync(fd, buffer, 0, buffer.length, 0)
    const end = buffer.subarray(0, read).indexOf('\n\n')
    if (end < 0) throw new Error('the bundle has no header git can read')
    text = buffer.subarray(0, end).toString('utf8')
    packOffset = end + 2
  } finally {
    closeSync(fd)
  }
  const [signature, ...lines] = text.split('\n')
  if (signature !== '# v2 git bundle' && signature !== '# v3 git bundle')
    throw new Error('the bundle is not a git bundle (v2 or v3)')
  const header: BundleHeader = { prerequisites: [], refs: [], packOffset }
  for (const line of lines) {
    if (line.startsWith('@')) {
      // v3 capabilities: only the object format is one git knows.
      if (!/^@object-format=sha(?:1|256)$/.test(line)) throw new Error(`the bundle asks for ${line.slice(1)}`)
      continue
    }
    const prerequisite = line.startsWith('-')
    const [oid, ...rest] = (prerequisite ? line.slice(1) : line).split(' ')
    if (!OID.test(oid)) throw new Error('the bundle has a malformed header line')
    if (prerequisite) header.prerequisites.push(oid)
    else header.refs.push({ oid, name: rest.join(' ') })
  }
  return header
}

/**
 * Takes the bundle's pack into the object store through `index-pack --strict`: every object is checked as fsck
 * checks it (a tree naming `..` or `.git`, a malformed commit) before it is kept, which `git fetch` of a bundle
 * does not do whatever fsckObjects says. Then `head` must be a commit there.
 */
export async function unbundleStrict(
  workTree: string,
  file: string,
  header: BundleHeader,
  head: string
): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const child = spawn(trustedProgram('git'), ['index-pack', '--strict', '--fix-thin', '--stdin'], {
      cwd: workTree,
      env: { ...process.env, ...hermeticGitEnvironment() },
      stdio: ['pipe', 'ignore', 'pipe']
    })
    let stderr = ''
    child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString('utf8')).slice(-4096)))
    child.on('error', reject)
    child.on('close', code =>
      code === 0
        ? resolve()
        : reject(new Error(stderr.trim().split('\n').at(-1) ?? `index-pack exited ${code}`))
    )
    child.stdin.on('error', () => undefined)
    createReadStream(file, { start: header.packOffset }).on('error', reject).pipe(child.stdin)
  })
  const made = await new GitRepo(workTree).exec(['cat-file', '-t', head], { probe: true })
  if (made.stdout.trim() !== 'commit') throw new Error(`the bundle holds no commit ${head}`)
}

/** One commit of the range with each file it changes: the raw diff against its parent. */
export interface RangeCommit {
  sha: string
  parents: string[]
  /** `path` is a path string (text/tree-path.ts): a name need not be UTF-8; show it with showPath. */
  changes: { path: string; mode: string; oid: string; status: string }[]
}

/** The commits of `base..head`, oldest first, with their parents and changes (at most MOST_DELIVERED_COMMITS + 1). */
export async function rangeCommits(workTree: string, base: string, head: string): Promise<RangeCommit[]> {
  const repo = new GitRepo(workTree)
  const listed = await repo.bytes([
    'rev-list',
    '--reverse',
    '--parents',
    `--max-count=${MOST_DELIVERED_COMMITS + 1}`,
    head,
    `^${base}`,
    '--'
  ])
  const commits: RangeCommit[] = []
  for (const line of listed.toString('utf8').split('\n').filter(Boolean)) {
    const [sha, ...parents] = line.split(' ')
    commits.push({ sha, parents, changes: [] })
  }
  for (const commit of commits) {
    const parent = commit.parents[0]
    if (parent === undefined || commit.parents.length > 1) continue
    // :<old mode> <new mode> <old oid> <new oid> <status>\0<path>\0, one pair a changed file.
    const raw = await repo.bytes(['diff-tree', '-r', '-z', '--no-renames', '--raw', parent, commit.sha])
    const fields = splitNul(raw)
    for (let i = 0; i + 1 < fields.length; i += 2) {
      const [, mode, , oid, status] = fields[i].replace(/^:/, '').split(' ')
      commit.changes.push({ path: fields[i + 1], mode, oid, status })
    }
  }
  return commits
}

/** Each blob's size in bytes, by id (from the object store, without reading the blobs). */
export async function blobSizes(workTree: string, oids: string[]): Promise<Map<string, number>> {
  const unique = [...new Set(oids)]
  const sizes = new Map<string, number>()
  if (unique.length === 0) return sizes
  const out = await new GitRepo(workTree).bytes(
    ['cat-file', '--batch-check=%(objectname) %(objectsize)'],
    unique.join('\n') + '\n'
  )
  for (const line of out.toString('utf8').split('\n')) {
    const [oid, size] = line.split(' ')
    if (oid && size && /^\d+$/.test(size)) sizes.set(oid, Number(size))
  }
  return sizes
}

/** Whether `ancestor` is `descendant` or one of its ancestors, in the object store as it is. */
export async function isAncestor(workTree: string, ancestor: string, descendant: string): Promise<boolean> {
  const result = await new GitRepo(workTree).exec(['merge-base', '--is-ancestor', ancestor, descendant], {
    probe: true
  })
  return result.exitCode === 0
}
