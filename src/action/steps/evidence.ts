// The pull request's "Review these" (#37): the lines the delivered commit adds that touch what a test runner judges
// by, flagged with file and line for a reviewer (verdict/evidence.ts decides what is flagged; never a refusal).
import { gitBytes } from '../../git/git.js'
import { hermeticGitEnvironment } from '../../security/index.js'
import { reviewSection, scanDiff } from '../../verdict/index.js'

/** The section for the diff from `base` to `commit` in `workTree` (empty: nothing to flag, or no diff to read). */
export async function reviewTheseSection(workTree: string, base: string, commit: string): Promise<string> {
  try {
    // No textconv or external diff of the tree's: git's own diff of the two commits' blobs.
    const diff = await gitBytes(
      workTree,
      ['diff', '--no-ext-diff', '--no-textconv', '-U0', base, commit, '--'],
      // The action's hermetic git: under isolation none the job's ~/.gitconfig is the agent's (trace2 into the record).
      { env: hermeticGitEnvironment() }
    )
    return reviewSection(scanDiff(diff.toString('utf8')))
  } catch (error) {
    return `### Review these\n\nThe delivered diff could not be read for review flags: ${(error as Error).message}\n`
  }
}
