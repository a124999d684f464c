// Intent-named git commands for delivery (branch, fetch, push), over runGit. Every call answers
// {exitCode, stdout, stderr}; `probe` calls allow any exit code, the rest throw GitError.
import path from 'node:path'
import { hermeticGitEnvironment, type ConfigEntries } from '../security/index.js'
import { GitError, gitBytes, runGit, type GitResult } from './git.js'
import { splitNul } from '../text/tree-path.js'

export { configEnv, type ConfigEntries } from '../security/index.js'

export interface ExecOptions {
  /** Answer a failing call instead of throwing (probes). */
  probe?: boolean
  /** Extra config for this call only (e.g. the auth header), through the environment; undefined: none. */
  config?: ConfigEntries | undefined
  env?: NodeJS.ProcessEnv
  maxStdoutBytes?: number | undefined
  /** Stopped after this long: for a command that reads the work tree (see GitOptions.timeoutMs). */
  timeoutMs?: number | undefined
}

export class GitRepo {
  constructor(readonly dir: string) {}

  /** Hermetic (no system or global config, no hooks, no secret, no prompt): see hermeticGitEnvironment. */
  async exec(args: string[], options: ExecOptions = {}): Promise<GitResult> {
    const env = { ...options.env, ...hermeticGitEnvironment(options.config) }
    const result = await runGit(args, {
      cwd: this.dir,
      env,
      maxStdoutBytes: options.maxStdoutBytes,
      timeoutMs: options.timeoutMs
    })
    if (!options.probe && result.exitCode !== 0) throw new GitError(args, result)
    return result
  }

  /** Hermetic, like exec: stdout whole as bytes (blobs, -z listings), `input` on stdin; a failure rejects. */
  bytes(args: string[], input?: string | Buffer): Promise<Buffer> {
    return gitBytes(this.dir, args, {
      env: hermeticGitEnvironment(),
      ...(input !== undefined ? { input } : {})
    })
  }

  /** The branch HEAD is on, or undefined when HEAD is detached (actions/checkout of a SHA or a PR merge). */
  async currentBranch(): Promise<string | undefined> {
    const result = await this.exec(['symbolic-ref', '--quiet', '--short', 'HEAD'], { probe: true })
    return result.exitCode === 0 ? result.stdout.trim() : undefined
  }

  /** The commit a ref names, or undefined when it names none. */
  async commitOf(ref: string): Promise<string | undefined> {
    const result = await this.exec(
      ['rev-parse', '--verify', '--quiet', '--end-of-options', `${ref}^{commit}`],
      {
        probe: true
      }
    )
    return result.exitCode === 0 ? result.stdout.trim() : undefined
  }

  async headSha(): Promise<string> {
    const sha = await this.commitOf('HEAD')
    if (!sha) throw new Error(`${this.dir} has no commit checked out`)
    return sha
  }

  async isShallow(): Promise<boolean> {
    const result = await this.exec(['rev-parse', '--is-shallow-repository'])
    return result.stdout.trim() === 'true'
  }

  /** An absolute path inside the git directory (`config`, `objects`, `shallow`), worktrees included. */
  async gitPath(name: string): Promise<string> {
    const result = await this.exec(['rev-parse', '--git-path', name])
    return path.resolve(this.dir, result.stdout.trim())
  }

  /** The git directory shared by all worktrees (where `config` and `modules/` live). */
  async commonDir(): Promise<string> {
    const result = await this.exec(['rev-parse', '--git-common-dir'])
    return path.resolve(this.dir, result.stdout.trim())
  }

  async objectFormat(): Promise<string> {
    const result = await this.exec(['rev-parse', '--show-object-format'], { probe: true })
    return result.exitCode === 0 && result.stdout.trim() ? result.stdout.trim() : 'sha1'
  }

  /** The branch's commit on the remote (asked over the network), or null when the remote has no such branch. */
  async remoteBranchSha(remote: string, branch: string, config?: ConfigEntries): Promise<string | null> {
    const ref = `refs/heads/${branch}`
    const result = await this.exec(['ls-remote', '--heads', '--end-of-options', remote, ref], { config })
    for (const line of result.stdout.split('\n')) {
      const [sha, name] = line.split('\t')
      if (name === ref) return sha
    }
    return null
  }

  /** The remote's default branch (its HEAD), or undefined when it cannot be learnt. */
  async remoteDefaultBranch(remote: string, config?: ConfigEntries): Promise<string | undefined> {
    const result = await this.exec(['ls-remote', '--symref', '--end-of-options', remote, 'HEAD'], {
      probe: true,
      config
    })
    const m = /^ref: refs\/heads\/(\S+)\tHEAD$/m.exec(result.stdout)
    if (m) return m[1]
    const local = await this.exec(['symbolic-ref', '--quiet', '--short', `refs/remotes/${remote}/HEAD`], {
      probe: true
    })
    return local.exitCode === 0 ? local.stdout.trim().replace(`${remote}/`, '') : undefined
  }

  /**
   * Fetches branches into their remote-tracking refs (`+refs/heads/B:refs/remotes/<remote>/B`).
   * `depth`/`deepen`/`unshallow` only make sense in a shallow repository.
   */
  async fetchBranches(
    remote: string,
    branches: string[],
    options: { depth?: number; deepen?: number; unshallow?: boolean; config?: ConfigEntries | undefined } = {}
  ): Promise<GitResult> {
    const args = ['fetch', '--no-tags', '--quiet', '--no-recurse-submodules']
    if (options.depth !== undefined) args.push(`--depth=${options.depth}`)
    if (options.deepen !== undefined) args.push(`--deepen=${options.deepen}`)
    if (options.unshallow) args.push('--unshallow')
    args.push(
      '--end-of-options',
      remote,
      ...branches.map(b => `+refs/heads/${b}:refs/remotes/${remote}/${b}`)
    )
    return this.exec(args, { probe: true, config: options.config })
  }

  async mergeBase(a: string, b: string): Promise<string | undefined> {
    const result = await this.exec(['merge-base', '--end-of-options', a, b], { probe: true })
    return result.exitCode === 0 ? result.stdout.trim() : undefined
  }

  /** Whether the trees of two commits differ (what a pull request would show). */
  async hasDiff(from: string, to: string): Promise<boolean> {
    const result = await this.exec(
      ['diff', '--quiet', '--no-ext-diff', '--no-textconv', '--end-of-options', from, to],
      { probe: true }
    )
    if (result.exitCode === 0) return false
    if (result.exitCode === 1) return true
    throw new GitError(['diff', '--quiet', from, to], result)
  }

  /** Commits reachable from `to` but not from `from`. */
  async countCommits(from: string, to: string): Promise<number> {
    const result = await this.exec(['rev-list', '--count', `${from}..${to}`, '--'])
    return Number(result.stdout.trim())
  }

  /** Paths that differ between two commits (path strings: see text/tree-path.ts). */
  async changedPaths(from: string, to: string): Promise<string[]> {
    const out = await this.bytes([
      'diff',
      '--name-only',
      '-z',
      '--no-ext-diff',
      '--no-renames',
      '--end-of-options',
      from,
      to
    ])
    return splitNul(out).filter(Boolean)
  }

  /** One local config value, or undefined when unset. */
  async localConfig(key: string): Promise<string | undefined> {
    const result = await this.exec(['config', '--local', '--get', key], { probe: true })
    return result.exitCode === 0 ? result.stdout.replace(/\n$/, '') : undefined
  }
}
