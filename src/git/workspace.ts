// The loop's work tree as git sees it: what it looks like now (a tree hash that includes uncommitted and
// untracked changes), what changed since the loop started, and a commit of what the agent left.
import { copyFile, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { gitOrThrow, runGit, type GitResult } from './git.js'

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
  /** A hash of the work tree as it is on disk (tracked, modified and untracked files; .gitignore respected). */
  treeHash(): Promise<string>
  /** The change from `start` (a commit or tree) to `current` (default: the work tree now). */
  diffSinceStart(start: string, current?: string, maxPatchChars?: number): Promise<WorkspaceDiff>
  /**
   * Commits everything in the work tree; answers the new commit, or undefined when nothing changed.
   * `tree`, the work tree's hash when known, lets an unchanged tree skip git altogether.
   */
  commitAll(message: string, tree?: string): Promise<string | undefined>
  /** Removes the temporary files the workspace made (its scratch index). */
  dispose(): Promise<void>
}

export const DIFF_PATCH_CHARS = 5000
/** Bytes kept for `git diff --stat` (a line per file). */
const STAT_BYTES = 256 * 1024

// Used when git has no identity configured (fresh CI runners): the commit must not fail for that.
const FALLBACK_IDENTITY = { name: 'ralph-action', email: 'ralph-action@users.noreply.github.com' }

export class GitWorkspace implements Workspace {
  private scratch?: { dir: string; index: string }
  private identityEnv?: NodeJS.ProcessEnv
  /** The tree of the last commit this workspace made (or of HEAD, once asked). */
  private committedTree?: string

  private constructor(readonly root: string) {}

  /** Opens the work tree that contains `dir` (or `dir` itself when it is not inside a repository). */
  static async open(dir: string): Promise<GitWorkspace> {
    const top = await runGit(['rev-parse', '--show-toplevel'], { cwd: dir })
    return new GitWorkspace(top.exitCode === 0 ? top.stdout.trim() : dir)
  }

  git(args: string[], env?: NodeJS.ProcessEnv, maxStdoutBytes?: number): Promise<GitResult> {
    return runGit(args, { cwd: this.root, env, maxStdoutBytes })
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
  async treeHash(): Promise<string> {
    const env = { GIT_INDEX_FILE: await this.scratchIndex() }
    await gitOrThrow(['add', '-A'], { cwd: this.root, env })
    const tree = await gitOrThrow(['write-tree'], { cwd: this.root, env })
    return tree.stdout.trim()
  }

  async diffSinceStart(
    start: string,
    current?: string,
    maxPatchChars = DIFF_PATCH_CHARS
  ): Promise<WorkspaceDiff> {
    const to = current ?? (await this.treeHash())
    // One call: the stat, a blank line, then the patch. Enough bytes for a long stat and maxPatchChars of
    // patch (four bytes a character at most); the rest of git's output is read and dropped.
    const out = await gitOrThrow(['diff', '--no-color', '--no-ext-diff', '--patch-with-stat', start, to], {
      cwd: this.root,
      maxStdoutBytes: STAT_BYTES + maxPatchChars * 4 + 4
    })
    const text = out.stdout
    const split = text.indexOf('\n\ndiff --git ')
    const stat = split === -1 ? text : text.slice(0, split + 1)
    const patch = split === -1 ? '' : text.slice(split + 2)
    const truncated = (out.stdoutTruncated && split !== -1) || patch.length > maxPatchChars
    return { stat, patch: patch.slice(0, maxPatchChars), patchTruncated: truncated }
  }

  async commitAll(message: string, tree?: string): Promise<string | undefined> {
    if (tree !== undefined) {
      this.committedTree ??= (
        await this.git(['rev-parse', '--verify', '--quiet', 'HEAD^{tree}'])
      ).stdout.trim()
      if (tree === this.committedTree) return undefined
    }
    await gitOrThrow(['add', '-A'], { cwd: this.root })
    const staged = await this.git(['diff', '--cached', '--quiet'])
    if (staged.exitCode === 0) return undefined
    // --no-verify: the gates are the loop's verification; a hook must not stall the loop.
    await gitOrThrow(['commit', '--quiet', '--no-verify', '-m', message], {
      cwd: this.root,
      env: await this.commitIdentity()
    })
    this.committedTree = tree
    return this.headSha()
  }

  async dispose(): Promise<void> {
    if (this.scratch) await rm(this.scratch.dir, { recursive: true, force: true })
    this.scratch = undefined
  }

  private async scratchIndex(): Promise<string> {
    if (this.scratch) return this.scratch.index
    const dir = await mkdtemp(path.join(tmpdir(), 'ralph-index-'))
    const index = path.join(dir, 'index')
    const real = await this.git(['rev-parse', '--git-path', 'index'])
    if (real.exitCode === 0)
      await copyFile(path.resolve(this.root, real.stdout.trim()), index).catch(() => undefined)
    this.scratch = { dir, index }
    return index
  }

  private async commitIdentity(): Promise<NodeJS.ProcessEnv> {
    if (this.identityEnv) return this.identityEnv
    const email = await this.git(['config', 'user.email'])
    const name = await this.git(['config', 'user.name'])
    const env: NodeJS.ProcessEnv = {}
    if (name.exitCode !== 0 || !name.stdout.trim()) {
      env.GIT_AUTHOR_NAME = process.env.GIT_AUTHOR_NAME ?? FALLBACK_IDENTITY.name
      env.GIT_COMMITTER_NAME = process.env.GIT_COMMITTER_NAME ?? FALLBACK_IDENTITY.name
    }
    if (email.exitCode !== 0 || !email.stdout.trim()) {
      env.GIT_AUTHOR_EMAIL = process.env.GIT_AUTHOR_EMAIL ?? FALLBACK_IDENTITY.email
      env.GIT_COMMITTER_EMAIL = process.env.GIT_COMMITTER_EMAIL ?? FALLBACK_IDENTITY.email
    }
    this.identityEnv = env
    return env
  }
}

/** A fresh worktree for an isolated run: its own folder and branch, left in place for inspection. */
export interface Worktree {
  dir: string
  branch: string
  /** The commit the branch starts from. */
  base: string
}

/**
 * Creates a git worktree of the repository containing `repoDir` on a new branch (from `base`, default HEAD).
 * `dir` defaults to a new folder under the system temp dir, outside the repository.
 */
export async function createWorktree(
  repoDir: string,
  options: { branch: string; dir?: string; base?: string }
): Promise<Worktree> {
  const base = await gitOrThrow(['rev-parse', '--verify', `${options.base ?? 'HEAD'}^{commit}`], {
    cwd: repoDir
  }).catch(() => {
    throw new Error(
      `--worktree needs a commit to start from: '${options.base ?? 'HEAD'}' is not one in ${repoDir}`
    )
  })
  const dir = options.dir ?? path.join(await mkdtemp(path.join(tmpdir(), 'ralph-worktree-')), 'work')
  await gitOrThrow(['worktree', 'add', '--quiet', '-b', options.branch, dir, base.stdout.trim()], {
    cwd: repoDir
  })
  return { dir, branch: options.branch, base: base.stdout.trim() }
}
