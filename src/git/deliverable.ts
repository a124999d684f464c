// What of the work tree may be delivered: the pathspec the workspace's `git add -A` takes, which keeps git out
// of every folder it would enter (a nested repository, a gitlink) and keeps back `.gitmodules`, files over
// the size limit and special files, each refusal noted once. The tree hash and the commit are workspace.ts's.
import { lstatSync } from 'node:fs'
import { copyFile, writeFile } from 'node:fs/promises'
import path from 'node:path'
import type { GitOutput } from './git.js'
import { onDisk, pathBytes, showPath, splitNul } from '../text/tree-path.js'
import { excludePattern, gitlinkMoved, ignoreOracle, scanTree, TreeHazardError } from './tree-scan.js'
import { megabytes } from './file-size.js'

/** Bytes kept of `git ls-files` (a line per untracked or modified file, a line per index entry). */
const LIST_BYTES = 64 * 1024 * 1024
/** A gitlink's mode in the index: git enters such a folder (`git status` in it, with its own config). */
const GITLINK_MODE = '160000'

/** A gitlink of the index: its folder and the commit it records. */
export interface Gitlink {
  path: string
  oid: string
}

/** One git call of the workspace: what it gets besides its arguments. */
export interface GitCall {
  env?: NodeJS.ProcessEnv | undefined
  maxStdoutBytes?: number
  input?: Buffer
  signal?: AbortSignal | undefined
}

/** What the listing needs of the workspace that asks: its tree, its git, its own folder, its notes. */
export interface ListedTree {
  /** The work tree's top folder. */
  root: string
  /** Variables every git command of the workspace gets. */
  env: NodeJS.ProcessEnv
  /** A file larger than this is left out; undefined: no limit. */
  maxFileBytes: number | undefined
  /** git in the work tree that must succeed (throws GitError). */
  git(args: string[], call?: GitCall): Promise<GitOutput>
  /** The workspace's own folder outside the tree. */
  scratchDir(): Promise<string>
  /** The real index's file. */
  realIndex(): Promise<string>
  /** What was left out of the trees and commits so far, one line each: added to. */
  refusals: Set<string>
  /** Files refused for their size or kind (each named once, whatever size it grows to): added to. */
  leftOut: Set<string>
}

/** The index's gitlinks (the folders git would enter to ask their status). */
export async function gitlinks(tree: ListedTree, env?: NodeJS.ProcessEnv): Promise<Gitlink[]> {
  const out = await tree.git(['ls-files', '-z', '--stage'], { env, maxStdoutBytes: LIST_BYTES })
  // `<mode> <oid> <stage>\t<path>`
  return splitNul(out.stdout)
    .filter(line => line.startsWith(`${GITLINK_MODE} `))
    .map(line => ({ path: line.slice(line.indexOf('\t') + 1), oid: line.split(' ')[1] }))
}

/**
 * The pathspec for `git add -A`: the whole tree but what git would enter or what would wire a submodule.
 * A nested repository becomes a gitlink, and git then runs `git status` inside it, as the action, with
 * that repository's own config: its filters, fsmonitor and hooks, the agent's. So nested repositories
 * (found by the action's own look at the tree, scanTree, before git reads any of it) and the index's
 * gitlinks are never looked into, and `.gitmodules` keeps the start's content. A new or changed file over
 * the size limit, or one now a special file, keeps what the index holds (nothing, or the start's). Each
 * refusal is noted once. Paths are path strings (text/tree-path.ts): a name need not be UTF-8.
 */
export async function deliverable(
  tree: ListedTree,
  env: NodeJS.ProcessEnv | undefined,
  links: readonly Gitlink[],
  signal: AbortSignal | undefined
): Promise<string[]> {
  const linked = new Set(links.map(link => link.path))
  // Folders git ignores are not looked into either (node_modules): git never reads them. Asked of the index
  // being added to, so a folder holding tracked files counts as not ignored, and is looked into.
  const oracle = ignoreOracle(tree.root, { ...tree.env, ...env })
  const kept = await scanTree(tree.root, { skip: linked, ignored: oracle.ask }).finally(oracle.close)
  const outside = new Set([...kept.map(k => k.path), ...linked])
  const under = (name: string): boolean => {
    for (let dir = name; dir !== '.' && dir !== ''; dir = path.posix.dirname(dir))
      if (outside.has(dir)) return true
    return false
  }
  // Untracked (`?`) and changed (`C`) paths; git is kept out of the folders above (an exclude file) and
  // out of the gitlinks (an index without them), so it neither enters nor lists them.
  const out = await tree.git(
    [
      'ls-files',
      '-z',
      '-t',
      '--others',
      '--modified',
      '--exclude-standard',
      ...(await keptOut(tree, outside))
    ],
    { env: await listingIndex(tree, env, links), maxStdoutBytes: LIST_BYTES, signal }
  )
  if (out.stdoutTruncated)
    throw new Error('the work tree lists more files than the action reads (64 MB of names)')
  const nested: string[] = []
  const left: string[] = []
  for (const entry of splitNul(out.stdout)) {
    const tag = entry.slice(0, 1)
    const name = entry.slice(2)
    if (!name || under(name.replace(/\/$/, ''))) continue
    if (tag === '?' && name.endsWith('/')) {
      // A repository the look at the tree did not see (made since): git lists it as one entry.
      nested.push(name.slice(0, -1))
      tree.refusals.add(
        `${showPath(`${name}.git`)}: a git repository inside the work tree is not delivered (git would run its filters and hooks as the action); the run goes on without ${showPath(name)}`
      )
    } else if (name === '.gitmodules')
      tree.refusals.add(
        '.gitmodules: a change to it is not delivered (submodules are never entered); the run goes on with the one it started with'
      )
    else {
      const why = notDelivered(tree, name)
      if (why === undefined) continue
      left.push(name)
      if (tree.leftOut.has(name)) continue
      tree.leftOut.add(name)
      tree.refusals.add(
        `${showPath(name)}: ${why}: it is not delivered; the run goes on without ${tag === 'C' ? 'this change to it' : 'it'}`
      )
    }
  }
  for (const link of links)
    if (gitlinkMoved(tree.root, link.path, link.oid))
      tree.refusals.add(
        `${showPath(link.path)}: a change to a submodule (a gitlink) is not delivered; the run goes on with the commit it started with`
      )
  for (const k of kept) tree.refusals.add(k.line)
  return [
    '.',
    ...[...outside, ...nested, '.gitmodules', ...left].map(name => `:(exclude,literal,top)${name}`)
  ]
}

/** Why a listed file is not delivered (over max-file-size, a special file), or undefined. */
function notDelivered(tree: ListedTree, name: string): string | undefined {
  // lstat: a link is its own few bytes, never what it points at.
  const stat = lstatSync(onDisk(tree.root, name), { throwIfNoEntry: false })
  if (!stat || stat.isFile() || stat.isSymbolicLink() || stat.isDirectory())
    return tree.maxFileBytes !== undefined && (stat?.size ?? 0) > tree.maxFileBytes
      ? `${megabytes(stat?.size ?? 0)} is over max-file-size (${megabytes(tree.maxFileBytes)})`
      : undefined
  return `a ${stat.isFIFO() ? 'FIFO' : stat.isSocket() ? 'socket' : 'device'} is not a file git keeps`
}

/** `--exclude-from` a file naming `folders` (bytes: a name need not be UTF-8); none when there are none. */
async function keptOut(tree: ListedTree, folders: ReadonlySet<string>): Promise<string[]> {
  if (folders.size === 0) return []
  const patterns = [...folders].map(dir => {
    const pattern = excludePattern(dir)
    if (pattern === undefined)
      throw new TreeHazardError(
        `${showPath(dir)}: git must be kept out of this folder, and its name holds a line break, which no exclude pattern can name; rename it`
      )
    return pathBytes(`${pattern}\n`)
  })
  const file = path.join(await tree.scratchDir(), 'kept-out')
  await writeFile(file, Buffer.concat(patterns))
  return [`--exclude-from=${file}`]
}

/**
 * The environment of the listing: an index without the gitlinks, so `ls-files --modified` never enters one
 * to read its HEAD (a FIFO there would hold it). `env` unchanged when there are none.
 */
async function listingIndex(
  tree: ListedTree,
  env: NodeJS.ProcessEnv | undefined,
  links: readonly Gitlink[]
): Promise<NodeJS.ProcessEnv | undefined> {
  if (links.length === 0) return env
  const listing = path.join(await tree.scratchDir(), 'listing-index')
  await copyFile(env?.GIT_INDEX_FILE ?? (await tree.realIndex()), listing)
  const listed = { ...env, GIT_INDEX_FILE: listing }
  await tree.git(['update-index', '--force-remove', '-z', '--stdin'], {
    env: listed,
    input: Buffer.concat(links.map(link => Buffer.concat([pathBytes(link.path), Buffer.of(0)])))
  })
  return listed
}
