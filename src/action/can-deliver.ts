// Before any agent runs, what the run's delivery will need, asked of GitHub while a refusal still costs nothing
// (after the loop it cost the agent's run): that the token can push the loop's branch, by a push dry run with
// the lease (nothing is sent, no ref made), and, where the pull request is opened with the job's GITHUB_TOKEN,
// the repository setting that lets GitHub Actions create one (off by default).
import * as core from '@actions/core'
import { failedInTransit, pushWithRetry, type PreparedBranch } from '../git/index.js'
import { ACTIONS_PULL_REQUEST_SETTING } from '../github/errors.js'
import type { Octokit } from '../github/client.js'
import { actionsMayCreatePullRequests } from '../github/pulls.js'
import { backoffMs, retryTiming } from '../github/retry.js'
import { decideDelivery } from './delivery-decision.js'
import type { ActionInputs } from './inputs.js'
import { jobKind } from './jobs/kind.js'
import type { RunPlan } from './plan.js'

export interface DeliveryNeeds {
  /** The run may push its branch: its work, a draft, or a chain's hand-over to its next run. */
  push: boolean
  /** The run may open a pull request with the job's GITHUB_TOKEN (no push-token). */
  pullRequestAsActions: boolean
}

type NeedsInputs = Pick<ActionInputs, 'mode' | 'openPr' | 'onFailure' | 'draft' | 'continueJobs'> & {
  pushToken?: string | undefined
}

/** What the delivery may need, whatever the loop's outcome: decideDelivery's decisions for a success and a failure. */
export function deliveryNeeds(inputs: NeedsInputs, pr: number | undefined): DeliveryNeeds {
  // The agent job of two-job mode pushes nothing; the deliver job runs no agent to spare.
  if (!jobKind(inputs).delivers) return { push: false, pullRequestAsActions: false }
  const decisions = [true, false].map(success =>
    decideDelivery({
      stopReason: success ? 'all_checks_passed' : 'max_iterations',
      success,
      ...(pr !== undefined ? { pr } : {}),
      addedNoCommits: false,
      openPr: inputs.openPr,
      onFailure: inputs.onFailure,
      draft: inputs.draft,
      branch: ''
    })
  )
  const opens = decisions.some(decision => decision.push && decision.pullRequest === 'open')
  return {
    push: inputs.continueJobs > 1 || decisions.some(decision => decision.push),
    pullRequestAsActions: opens && inputs.pushToken === undefined
  }
}

/**
 * The one line that ends the step before any agent runs when the delivery cannot succeed, or undefined. What
 * cannot be known (GitHub did not answer, the token may not read the setting) is said in an info line, and the
 * run goes on.
 */
export async function deliveryRefusal(
  plan: RunPlan,
  workTree: string,
  branch: PreparedBranch,
  clients: { delivery: () => Promise<Octokit> }
): Promise<string | undefined> {
  const needs = deliveryNeeds(plan.inputs, plan.pr?.number)
  const { owner, repo } = plan.context.repo
  const repository = `${owner}/${repo}`
  if (needs.push) {
    const timing = retryTiming()
    const logged: string[] = []
    const dry = await pushWithRetry(
      workTree,
      {
        branch: branch.branch,
        token: plan.inputs.pushToken ?? plan.inputs.githubToken,
        serverUrl: plan.context.serverUrl,
        repository,
        leaseSha: branch.remoteSha,
        dryRun: true,
        stallSeconds: timing.pushStallSeconds,
        log: message => logged.push(message)
      },
      { attempts: 3, waitMs: attempt => backoffMs(timing, attempt + 1) }
    )
    if (dry.error && !failedInTransit(dry))
      return `A push dry run of ${branch.branch} was refused, so the loop would not be delivered: ${dry.error.message} No agent ran.`
    if (dry.error)
      core.info(
        `Whether ${branch.branch} can be pushed is not known (a push dry run did not get through: ${dry.error.message}); the loop goes on.`
      )
    else for (const line of logged) core.info(line)
  }
  if (needs.pullRequestAsActions) {
    const setting = await actionsMayCreatePullRequests(await clients.delivery(), { owner, repo })
    if ('allowed' in setting && !setting.allowed)
      return `GitHub Actions may not create pull requests in ${repository}, and this run would open one with the job's GITHUB_TOKEN: allow it in the repository's ${ACTIONS_PULL_REQUEST_SETTING}, or pass a push-token (a PAT or GitHub App token). No agent ran.`
    if ('unknown' in setting)
      core.info(
        `Whether GitHub Actions may create pull requests in ${repository} is not known (${setting.unknown}: the token may not read the repository's Actions settings); if the pull request is refused, allow it in the repository's ${ACTIONS_PULL_REQUEST_SETTING}.`
      )
  }
  return undefined
}
