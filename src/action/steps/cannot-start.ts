// The reply on the issue when a requested loop cannot start: the problem is the workflow's or the ralph's.
import * as core from '@actions/core'
import type { Clients } from './types.js'
import type { RunContext } from '../../trigger/context.js'
import { postRefusal } from '../../github/tracking.js'
import type { Run } from '../../trigger/types.js'
import { startFailureReply } from '../../trigger/replies.js'

/**
 * Tells whoever asked on an issue that the loop could not start, and that their request is not at fault.
 * Paths are shown relative to the workspace.
 */
export async function replyCannotStart(
  trigger: Run | undefined,
  context: RunContext,
  clients: Pick<Clients, 'octokit' | 'mayWrite'>,
  problem: string
): Promise<void> {
  // In the agent's job of two-job mode the deliver job answers: it meets the same problem.
  if (trigger?.issueNumber === undefined || !clients.mayWrite) return
  const relative = problem.split(`${context.workspace}/`).join('').split(context.workspace).join('.')
  await postRefusal(
    await clients.octokit(),
    { ...context.repo, issueNumber: trigger.issueNumber },
    startFailureReply(trigger.actor?.login, relative, context.runUrl),
    m => core.warning(m)
  )
}
