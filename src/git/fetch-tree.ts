// The files of one ref of the repository, fetched by the action's own git (hermetic, its credentials for this one
// command) into a new private repository, and written out from the object store (write-tree.ts: no checkout, so
// no filter, attribute or hook of that tree runs). Held-out gates (#37) take their files from here.
import { mkdirSync } from 'node:fs'
import path from 'node:path'
import { hermeticGitEnvironment } from '../security/index.js'
import { authConfig, repositoryUrl, type GitAuth } from './auth.js'
import { GitRepo } from './repo.js'
import { writeCommitTree } from './write-tree.js'

export interface TreeSource {
  auth: GitAuth
  /** owner/repo on auth.serverUrl. */
  repository: string
  /** A full ref name, e.g. refs/ralph/holdout. */
  ref: string
}

/**
 * Writes the files of `source.ref`'s commit into `into`/files (`into`: an empty folder of the action's user's);
 * answers that folder, or the problem in one line.
 */
export async function fetchTree(
  source: TreeSource,
  into: string
): Promise<{ dir: string } | { problem: string }> {
  const gitDir = path.join(into, 'git')
  const dir = path.join(into, 'files')
  mkdirSync(gitDir, { mode: 0o700 })
  mkdirSync(dir, { mode: 0o700 })
  const repo = new GitRepo(gitDir)
  await repo.exec(['init', '--quiet', '--bare'])
  const fetched = await repo.exec(
    [
      'fetch',
      '--quiet',
      '--no-tags',
      '--no-write-fetch-head',
      '--depth=1',
      '--end-of-options',
      repositoryUrl(source.auth.serverUrl, source.repository),
      `+${source.ref}:refs/fetched`
    ],
    { probe: true, config: authConfig(source.auth) }
  )
  if (fetched.exitCode !== 0) {
    const why = fetched.stderr.trim().split('\n').pop() ?? `git exited ${fetched.exitCode}`
    return {
      problem: `could not fetch ${source.ref} from ${source.repository} (${why}): push it there first`
    }
  }
  await writeCommitTree(gitDir, 'refs/fetched', dir, hermeticGitEnvironment())
  return { dir }
}
