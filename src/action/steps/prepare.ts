// Step 3, prepare: the loop's fresh branch from its base, the commit identity, whether its delivery can
// succeed (can-deliver.ts), who the loop's processes run as, and the issue's tracking comment. A failure here
// replies on the issue and ends the step.
import * as core from '@actions/core'
import {
  configureIdentity,
  GITHUB_ACTIONS_IDENTITY,
  GitRepo,
  prepareBranch,
  type CommitIdentity,
  type PreparedBranch
} from '../../git/index.js'
import { IsolationError, type AgentIsolation } from '../../security/index.js'
import { TrackingComment } from '../../github/tracking.js'
import { deliveryRefusal } from '../can-deliver.js'
import { holdoutRefRefusal } from '../holdout-ref.js'
import { replyCannotStart } from './cannot-start.js'
import { isolateLoop } from '../contain.js'
import type { Step } from './ending.js'
import { REMOTE, restoreCheckout, restoreIdentity } from './checkout.js'
import type { Planned, Prepared } from './types.js'
import { claimResume } from '../chain/resume.js'
import type { Resumed } from '../chain/format.js'
import type { RunPlan } from '../plan.js'
import { saveState } from '../state.js'
import { startingStatus } from '../../loop/index.js'
import { remoteGitRetry, retryTiming } from '../../github/retry.js'

/** The repository's top folder for the project root; throws a one-line error outside a repository. */
async function workTreeOf(projectRoot: string): Promise<string> {
  const top = await new GitRepo(projectRoot).exec(['rev-parse', '--show-toplevel'], { probe: true })
  if (top.exitCode !== 0)
    throw new Error(
      `${projectRoot} is not a git repository: run actions/checkout before ralph-action (and check working-directory).`
    )
  return top.stdout.trim()
}

/**
 * The base when something decides it: a proposal's pull request's branch, else the input, else the pull
 * request's base, else the hunt's open PR's.
 */
function baseOf(plan: RunPlan): { base?: string } {
  const base = plan.trigger?.proposeTo?.headRef ?? plan.inputs.base ?? plan.pr?.baseRef ?? plan.trigger?.base
  return base !== undefined ? { base } : {}
}

/** The issue's tracking comment, created when the loop starts; its id goes to the state for post at once. */
async function startTracking(
  planned: Planned,
  branch: string,
  resumed: Resumed | undefined
): Promise<TrackingComment | undefined> {
  const { plan, clients } = planned
  const issueNumber = plan.trigger?.issueNumber
  // The agent's job of two-job mode writes nothing: the deliver job posts the comment, finished.
  if (issueNumber === undefined || !clients.mayWrite || plan.trigger?.tracking === false) return undefined
  const info = {
    ralphName: plan.ralph.name,
    runId: plan.context.runId,
    runUrl: plan.context.runUrl,
    branch,
    ...(plan.trigger?.actor ? { actor: plan.trigger.actor.login } : {}),
    maxIterations: plan.inputs.maxIterations
  }
  // A chain keeps one comment: a resumed run edits the one its first run posted.
  const chained = resumed?.continuation.tracking
  const target = { ...plan.context.repo, issueNumber }
  const warn = (m: string): void => core.warning(m)
  const tracking =
    (chained && chained.issueNumber === issueNumber
      ? await TrackingComment.resume(await clients.octokit(), target, info, chained.commentId, warn)
      : undefined) ?? (await TrackingComment.create(await clients.octokit(), target, info, warn))
  if (tracking && chained) await tracking.update(startingStatus())
  if (tracking) saveState('tracking', JSON.stringify({ issueNumber, commentId: tracking.id, ...info }))
  return tracking
}

/** `resumed`: the chain's run this job goes on from (chain/resume.ts): its branch tip is checked, and it is claimed. */
export async function prepare(planned: Planned, resumed?: Resumed): Promise<Step<Prepared>> {
  const { plan, context, clients } = planned
  saveState('recordDir', plan.config.recordDir)
  saveState('artifactName', plan.artifactName)
  saveState('ralphName', plan.ralph.name)
  saveState('branch', plan.branch)
  const cannotStart = async (
    message: string
  ): Promise<{ end: { failure: { message: string }; finished: true } }> => {
    // 👀 is already on the request: say it will not run.
    await replyCannotStart(plan.trigger, context, clients, message)
    return { end: { failure: { message }, finished: true } }
  }

  let workTree: string
  let branch: PreparedBranch
  let identity: CommitIdentity
  core.startGroup(`Preparing branch ${plan.branch}`)
  try {
    workTree = await workTreeOf(plan.projectRoot)
    const timing = retryTiming()
    branch = await prepareBranch(workTree, {
      branch: plan.branch,
      remote: REMOTE,
      ...(plan.continueBranch ? { continueExisting: true } : {}),
      // Nothing is pushed whatever the gates say: a repository without the remote is a local trial.
      ...(!plan.inputs.openPr && plan.inputs.onFailure === 'none' ? { localOnly: true } : {}),
      ...baseOf(plan),
      retry: remoteGitRetry(timing, clients.budget),
      stallSeconds: timing.pushStallSeconds,
      log: message => core.info(message)
    })
    // A chain goes on from exactly the commit its previous run pushed: anything else is someone else's.
    const handed = resumed?.continuation
    if (handed && branch.remoteSha !== handed.head) {
      await restoreCheckout(workTree, branch)
      throw new Error(
        `${branch.branch} moved since run ${handed.runId} handed it over: its tip is ${branch.remoteSha?.slice(0, 12) ?? 'gone'}, not ${handed.head.slice(0, 12)}, so the chain stops here (no agent ran)`
      )
    }
    // The identity GitHub shows for commits made by GITHUB_TOKEN; create-pull-request uses it too.
    identity = await configureIdentity(workTree, GITHUB_ACTIONS_IDENTITY)
    core.info(
      `${branch.continued ? 'Continuing' : 'Created'} branch ${branch.branch} from ${branch.base} (${branch.baseSha.slice(0, 12)}).`
    )
  } catch (error) {
    core.endGroup()
    return cannotStart(`Preparing the branch failed: ${(error as Error).message}`)
  }
  core.endGroup()

  // A chain never forks: the run it goes on from is claimed now, once its branch is checked, before the loop.
  const refused = resumed && (await claimResume(clients.octokit, context, resumed.continuation))
  if (refused) {
    await restoreIdentity(identity)
    await restoreCheckout(workTree, branch)
    return cannotStart(`Cannot resume run ${resumed.continuation.runId}: ${refused}. No agent ran.`)
  }

  // What delivery will need is asked now, while a refusal costs no agent's run.
  const undeliverable =
    (await deliveryRefusal(plan, workTree, branch, clients)) ?? (await holdoutRefRefusal(plan, workTree))
  if (undeliverable) {
    await restoreIdentity(identity)
    await restoreCheckout(workTree, branch)
    return cannotStart(undeliverable)
  }

  let isolated: AgentIsolation | undefined
  try {
    isolated = await isolateLoop(plan, workTree)
  } catch (error) {
    if (!(error instanceof IsolationError)) throw error
    await restoreIdentity(identity)
    await restoreCheckout(workTree, branch)
    return cannotStart(error.message)
  }
  const tracking = await startTracking(planned, branch.branch, resumed)
  return { ...planned, workTree, branch, identity, isolated, tracking }
}
