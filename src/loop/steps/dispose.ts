// The work tree given up at the end of a run, or when it cannot start.
import type { Workspace } from '../../git/workspace.js'

/** The loop's answer is already decided: a workspace that will not close is not worth a failed run. */
export async function disposeQuietly(workspace: Workspace): Promise<void> {
  await workspace.dispose().catch(() => undefined)
}
