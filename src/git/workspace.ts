// The loop's work tree as git sees it: what it looks like now (a tree hash that includes uncommitted and
// untracked changes), what changed since the loop started, and a commit of what the agent left. Which of its
// paths may go into those trees and commits is deliverable.ts's.
import {
  accessSync,
  chmodSync,
  constants,
  copyFileSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync
} from 'node:fs'
import { copyFile, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { GitError, gitOutput, runGit, type GitOutput, type GitResult } from './git.js'
import { pathBytes } from '../text/tree-path.js'
import { readCommitSettings, type CommitSettings } from './commit-settings.js'
import { deliverable, gitlinks, type GitCall, type Gitlink, type ListedTree } from './deliverable.js'

/** The change since a starting tree, ready for `{{ ralph.diff }}`. */
export interface WorkspaceDiff {
  /** `git diff --stat` between the two trees ('' when nothing changed). */
  stat: string
  /** The start of the patch, at most `maxPatchChars` characters. */
  patch: string
  /** True when the patch was longer than what `patch` holds. */
  patchTruncated: boolean
}

/** What the loop needs from its work tree. GitWorkspace is the real one; unit tests may pass a fake. */
export interface Workspace {
  /** The work tree's top folder. */
  readonly root: string
  isRepo(): Promise<boolean>
  /** The commit HEAD points at; undefined in a repository without commits. */
  headSha(): Promise<string | undefined>
  /**
   * A hash of the work tree as it is on disk (tracked, modified and untracked files; .gitignore respected).
   * `signal`: the run's time is over (a git still running then is stopped, after a grace).
   */
  treeHash(signal?: AbortSignal): Promise<string>
  /** The change from `start` (a commit or tree) to `current` (default: the work tree now). */
  diffSinceStart(
    start: string,
    current?: string,
    maxPatchChars?: number,
    signal?: AbortSignal
  ): Promise<WorkspaceDiff>
  /**
   * Commits everything in the work tree; answers the new commit, or undefined when nothing changed.
   * `tree`, the work tree's hash when known, lets an unchanged tree skip git altogether.
   */
  commitAll(message: string, tree?: string, signal?: AbortSignal): Promise<string | undefined>
  /** Removes the temporary files the workspace made (its scratch index). */
  dispose(): Promise<void>
  /**
   * What of the work tree was left out of the trees and commits so far, one line each (a nested repository,
   * a change to `.gitmodules` or to a submodule, a file over the size limit): the loop warns of each once.
   */
  refused?(): readonly string[]
  /** `file` (relative to the top folder) as `commit` holds it, never the tree's; undefined when it has none. */
  fileAt?(commit: string, file: string): Promise<string | undefined>
}

export const DIFF_PATCH_CHARS = 5000
/** Bytes read of a file at a commit (package.json's scripts). */
const FILE_AT_BYTES = 1024 * 1024
/** The longest a git of the workspace may run (it reads the tree: see GitOptions.timeoutMs). */
export const TREE_GIT_MS = 10 * 60 * 1000
/** Bytes kept for `git diff --stat` (a line per file). */
const STAT_BYTES = 256 * 1024

/** Hooks `git commit --no-verify` still runs: with one of them, commits take git's own path. */
const COMMIT_HOOKS = ['prepare-commit-msg', 'post-commit']
/** A merge, cherry-pick or revert in progress: `git commit` would finish it, so it gets to. */
const SEQUENCER_STATES = ['MERGE_HEAD', 'CHERRY_PICK_HEAD', 'REVERT_HEAD']

/** Files of the repository the workspace looks at itself (resolved by git once). */
interface GitPaths {
  index: string
  hooks: string
  /** HEAD's reflog: it grows whenever anyone moves HEAD. */
  headLog: string
  states: string[]
}

/** HEAD as this workspace last saw it ('' commit: no commit yet), and what its reflog looked like then. */
interface KnownHead {
  commit: string
  tree: string
  /** HEAD's reflog mark when read (undefined without a reflog: then HEAD is re-read every time). */
  log: string | undefined
}

export class GitWorkspace implements Workspace {
  private scratch: { dir: string; index: string } | undefined
  /** The tree the scratch index held at its last write-tree. */
  private scratchTree: string | undefined
  private paths?: GitPaths
  private settings?: CommitSettings
  private head: KnownHead | undefined
  /** The scratch index's gitlinks (those of the start: no new one ever enters it). */
  private scratchGitlinks: Gitlink[] | undefined
  /** This workspace as the listing of what may be delivered sees it (deliverable.ts); it keeps the refusals. */
  private readonly listed: ListedTree

  private constructor(
    readonly root: string,
    /** Variables every git command of this workspace gets (the action's hermetic git environment). */
    private readonly env: NodeJS.ProcessEnv = {},
    /** A file larger than this is left out of every tree and commit; undefined: no limit. */
    maxFileBytes?: number
  ) {
    this.listed = {
      root,
      env,
      maxFileBytes,
      git: (args, call) => this.gitOrThrow(args, call),
      scratchDir: () => this.scratchDir(),
      realIndex: async () => (await this.gitPaths()).index,
      refusals: new Set<string>(),
      leftOut: new Set<string>()
    }
  }

  /** Opens the work tree that contains `dir` (or `dir` itself when it is not inside a repository). */
  static async open(
    dir: string,
    options: { env?: NodeJS.ProcessEnv; maxFileBytes?: number | undefined } = {}
  ): Promise<GitWorkspace> {
    const top = await runGit(['rev-parse', '--show-toplevel'], { cwd: dir, env: options.env })
    return new GitWorkspace(top.exitCode === 0 ? top.stdout.trim() : dir, options.env, options.maxFileBytes)
  }

  git(args: string[], env?: NodeJS.ProcessEnv, maxStdoutBytes?: number): Promise<GitResult> {
    return this.call(args, { env, ...(maxStdoutBytes !== undefined ? { maxStdoutBytes } : {}) }).then(
      result => ({ ...result, stdout: result.stdout.toString('utf8') })
    )
  }

  /** git in the work tree, bounded in time; stdout as bytes. */
  private call(args: string[], call: GitCall = {}): Promise<GitOutput> {
    return gitOutput(args, {
      cwd: this.root,
      env: { ...this.env, ...call.env },
      maxStdoutBytes: call.maxStdoutBytes,
      input: call.input,
      timeoutMs: TREE_GIT_MS,
      signal: call.signal
    })
  }

  /** git that must succeed (throws GitError). */
  private async gitOrThrow(args: string[], call: GitCall = {}): Promise<GitOutput> {
    const result = await this.call(args, call)
    if (result.exitCode !== 0) throw new GitError(args, result)
    return result
  }

  async fileAt(commit: string, file: string): Promise<string | undefined> {
    const result = await this.git(['cat-file', 'blob', `${commit}:${file}`], undefined, FILE_AT_BYTES)
    return result.exitCode === 0 && !result.stdoutTruncated ? result.stdout : undefined
  }

  async isRepo(): Promise<boolean> {
    const result = await this.git(['rev-parse', '--is-inside-work-tree'])
    return result.exitCode === 0 && result.stdout.trim() === 'true'
  }

  async headSha(): Promise<string | undefined> {
    const result = await this.git(['rev-parse', '--verify', '--quiet', 'HEAD^{commit}'])
    return result.exitCode === 0 ? result.stdout.trim() : undefined
  }

  // A scratch index outside the work tree, seeded from the real one so `add -A` only rehashes changed
  // files; the user's staging area is never touched.
  async treeHash(signal?: AbortSignal): Promise<string> {
    const env = { GIT_INDEX_FILE: await this.scratchIndex() }
    this.scratchTree = undefined
    this.scratchGitlinks ??= await gitlinks(this.listed, env)
    await this.addAll(env, this.scratchGitlinks, signal)
    const tree = (await this.gitOrThrow(['write-tree'], { env, signal })).stdout.toString('utf8').trim()
    this.scratchTree = tree
    return tree
  }

  refused(): readonly string[] {
    return [...this.listed.refusals]
  }

  /** `git add -A` of what may be delivered (see deliverable), its pathspec given on stdin as bytes. */
  private async addAll(
    env: NodeJS.ProcessEnv | undefined,
    links: readonly Gitlink[],
    signal: AbortSignal | undefined
  ): Promise<void> {
    const pathspec = await deliverable(this.listed, env, links, signal)
    await this.gitOrThrow(['add', '-A', '--pathspec-from-file=-', '--pathspec-file-nul'], {
      env,
      signal,
      input: Buffer.concat(pathspec.map(p => Buffer.concat([pathBytes(p), Buffer.of(0)])))
    })
  }

  async diffSinceStart(
    start: string,
    current?: string,
    maxPatchChars = DIFF_PATCH_CHARS,
    signal?: AbortSignal
  ): Promise<WorkspaceDiff> {
    const to = current ?? (await this.treeHash(signal))
    // One call: the stat, a blank line, then the patch. Enough bytes for a long stat and maxPatchChars of
    // patch (four bytes a character at most); the rest of git's output is read and dropped.
    const out = await this.gitOrThrow(
      ['diff', '--no-color', '--no-ext-diff', '--no-textconv', '--patch-with-stat', start, to],
      { maxStdoutBytes: STAT_BYTES + maxPatchChars * 4 + 4, signal }
    )
    const text = out.stdout.toString('utf8')
    const split = text.indexOf('\n\ndiff --git ')
    const stat = split === -1 ? text : text.slice(0, split + 1)
    const patch = split === -1 ? '' : text.slice(split + 2)
    const truncated = (out.stdoutTruncated && split !== -1) || patch.length > maxPatchChars
    return { stat, patch: patch.slice(0, maxPatchChars), patchTruncated: truncated }
  }

  async commitAll(message: string, tree?: string, signal?: AbortSignal): Promise<string | undefined> {
    const head = await this.knownHead()
    if (tree !== undefined && tree === head.tree) return undefined
    tree ??= await this.treeHash(signal)
    if (tree === head.tree) return undefined
    const fast = await this.commitTree(message, tree, head)
    if (fast !== undefined) return fast
    // git's own path: stage everything in the real index, commit what differs from HEAD.
    this.head = undefined
    await this.addAll(undefined, await gitlinks(this.listed), signal)
    const staged = await this.call(['diff', '--cached', '--quiet', '--no-ext-diff', '--no-textconv'], {
      signal
    })
    if (staged.exitCode === 0) return undefined
    // --no-verify: the gates are the loop's verification; a hook must not stall the loop.
    await this.gitOrThrow(['commit', '--quiet', '--no-verify', '-m', message], {
      env: (await this.commitSettings()).env,
      signal
    })
    return this.headSha()
  }

  /**
   * The commit `git commit --no-verify` would make, in two processes instead of five: the scratch index
   * already holds `tree`, so it is written as a commit on HEAD, HEAD is moved only if it is still where we
   * saw it, and the scratch index becomes the real one under git's index.lock (as `git commit` leaves it:
   * everything staged). Answers undefined, having changed nothing, whenever git's own path must decide:
   * a hook that would run, signing, a merge in progress, a multi-line message, HEAD moved, a busy index.
   */
  private async commitTree(message: string, tree: string, head: KnownHead): Promise<string | undefined> {
    const paths = await this.gitPaths()
    const settings = await this.commitSettings()
    if (settings.sign || !this.scratch || this.scratchTree !== tree || !/^[^\s#](.*\S)?$/.test(message))
      return undefined
    // Metadata calls, synchronous: a few microseconds each, where a promise round trip costs more.
    const present = (file: string, mode: number): boolean => {
      try {
        accessSync(file, mode)
        return true
      } catch {
        return false
      }
    }
    if (COMMIT_HOOKS.some(hook => present(path.join(paths.hooks, hook), constants.X_OK))) return undefined
    if (paths.states.some(state => present(state, constants.F_OK))) return undefined

    const lock = `${paths.index}.lock`
    try {
      copyFileSync(this.scratch.index, lock, constants.COPYFILE_EXCL)
    } catch {
      return undefined
    }
    let committed: string | undefined
    try {
      const parent = head.commit ? ['-p', head.commit] : []
      const made = await this.git(['commit-tree', tree, ...parent, '-m', message], settings.env)
      if (made.exitCode !== 0) return undefined
      const sha = made.stdout.trim()
      const reflog = `commit${head.commit ? '' : ' (initial)'}: ${message}`
      // The old value '' means "HEAD has no commit yet".
      const moved = await this.git(['update-ref', '-m', reflog, 'HEAD', sha, head.commit])
      if (moved.exitCode !== 0) return undefined
      committed = sha
      this.head = { commit: sha, tree, log: this.headLogMark(paths) }
      await this.installIndex(paths.index, lock, this.scratch.index)
      return sha
    } finally {
      if (committed === undefined) rmSync(lock, { force: true })
    }
  }

  /** Renames the locked copy of the scratch index over the real one, with the real one's mode. */
  private async installIndex(index: string, lock: string, scratch: string): Promise<void> {
    try {
      const made = statSync(scratch)
      const real = statSync(index, { throwIfNoEntry: false })
      if (real) chmodSync(lock, real.mode & 0o7777)
      // A hair older than the scratch index: git's racy-entry check then re-reads, rather than trusts, a file
      // changed while the index was written (a plain copy would look newer than every entry in it).
      utimesSync(lock, made.atime, new Date(made.mtime.getTime() - 1))
      renameSync(lock, index)
    } catch {
      rmSync(lock, { force: true })
      // The commit is made: bring the index to it the slow way (or say why that failed too).
      await this.gitOrThrow(['reset', '--quiet'])
    }
  }

  /** HEAD and its tree, re-read only when HEAD's reflog shows that someone (an agent) moved it. */
  private async knownHead(): Promise<KnownHead> {
    const paths = await this.gitPaths()
    const log = this.headLogMark(paths)
    if (this.head && log !== undefined && this.head.log === log) return this.head
    // Both in one call; it fails only when HEAD has no commit yet.
    const read = await this.git(['rev-parse', 'HEAD^{commit}', 'HEAD^{tree}'])
    const [commit, tree] = read.exitCode === 0 ? read.stdout.trim().split('\n') : ['', '']
    this.head = { commit, tree, log }
    return this.head
  }

  /** Size and time of HEAD's reflog; undefined without one (then HEAD is re-read at every commit). */
  private headLogMark(paths: GitPaths): string | undefined {
    try {
      const log = statSync(paths.headLog)
      return `${log.size}:${log.mtimeMs}`
    } catch {
      return undefined
    }
  }

  async dispose(): Promise<void> {
    if (this.scratch) await rm(this.scratch.dir, { recursive: true, force: true })
    this.scratch = undefined
    this.scratchGitlinks = undefined
  }

  /** The workspace's own folder outside the tree (its scratch index, the listing's files). */
  private async scratchDir(): Promise<string> {
    return path.dirname(await this.scratchIndex())
  }

  private async scratchIndex(): Promise<string> {
    if (this.scratch) return this.scratch.index
    const dir = await mkdtemp(path.join(tmpdir(), 'ralph-index-'))
    const index = path.join(dir, 'index')
    const real = await this.gitPaths().catch(() => undefined)
    if (real) await copyFile(real.index, index).catch(() => undefined)
    this.scratch = { dir, index }
    return index
  }

  /** Where git keeps the index, the hooks, HEAD's reflog and the merge/cherry-pick states (one call). */
  private async gitPaths(): Promise<GitPaths> {
    if (this.paths) return this.paths
    const names = ['index', 'hooks', 'logs/HEAD', ...SEQUENCER_STATES]
    const out = await this.gitOrThrow(['rev-parse', ...names.flatMap(name => ['--git-path', name])])
    const [index, hooks, headLog, ...states] = out.stdout
      .toString('utf8')
      .split('\n')
      .slice(0, names.length)
      .map(line => path.resolve(this.root, line))
    this.paths = { index, hooks, headLog, states }
    return this.paths
  }

  /** The identity fallback and whether commits are signed, read from git's config once (one call). */
  private async commitSettings(): Promise<CommitSettings> {
    this.settings ??= await readCommitSettings(args => this.git(args))
    return this.settings
  }
}
