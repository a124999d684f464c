// The checkout as the job found it: the remote the action pushes to, and the checkout given back after the run.
import * as core from '@actions/core'
import {
  GitRepo,
  TREE_GIT_MS,
  treeHazard,
  type CommitIdentity,
  type PreparedBranch
} from '../../git/index.js'

export const REMOTE = 'origin'

/**
 * Checks out again what was checked out before the run (the loop's commits stay on its branch), so later
 * steps and a second ralph in the same job start from where the job was. A failure is a warning.
 */
export async function restoreCheckout(workTree: string, prepared: PreparedBranch): Promise<void> {
  const { branch, sha } = prepared.previous
  const args = branch
    ? ['checkout', '--quiet', branch]
    : sha
      ? ['checkout', '--quiet', '--detach', sha]
      : undefined
  if (!args) return
  // The tree is the agent's: a FIFO where git reads a file would hold the checkout, and the job, forever.
  const hazard = await treeHazard(workTree)
  // Hardened (no hooks, no secrets in the environment): the agent may have planted a post-checkout hook.
  const result = hazard
    ? { stderr: hazard, exitCode: 1 }
    : await new GitRepo(workTree).exec(args, { probe: true, timeoutMs: TREE_GIT_MS })
  if (result.exitCode !== 0)
    core.warning(
      `Could not check out ${branch ?? sha} again after the run (${result.stderr.trim()}); the work tree is left on ${prepared.branch}.`
    )
}

/** The commit identity as it was before the loop; a failure is said (later steps would commit as the action). */
export async function restoreIdentity(identity: CommitIdentity): Promise<void> {
  await identity
    .restore()
    .catch((error: Error) =>
      core.warning(
        `The git commit identity could not be put back after the run: ${error.message.split('\n')[0]}`
      )
    )
}
