// A separate git worktree for an isolated run (`--worktree`): its own folder and branch.
import { mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { gitOrThrow } from './git.js'

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
  options: { branch: string; dir?: string | undefined; base?: string }
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
