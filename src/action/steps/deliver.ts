// Step 5, deliver: what the inputs say to do with the work for this outcome (delivery-decision.ts, a pure
// decision tested with a table), then the push and the pull request. Known failures come back as sentences with their fix (for
// setFailed and the summary), never as stack traces. The checkout is given back whatever happened.
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import * as core from '@actions/core'
import { formatPatch, GitRepo, hasDiff, pushWithRetry, PUSH_FAILURE } from '../../git/index.js'
import { GITHUB_TOKEN_TRIGGERS_NO_CI } from '../../github/errors.js'
import { openOrUpdatePullRequest } from '../../github/pulls.js'
import type { LoopResult } from '../../loop/index.js'
import { protectedInCommit, revertsLine } from '../../loop/protect/index.js'
import { undelivered, type DeliveryReport } from '../../report/run-report.js'
import { pullRequestText } from '../../report/pr-body.js'
import { reviewTheseSection } from './evidence.js'
import { backoffMs, retryTiming } from '../../github/retry.js'
import { decideDelivery, type DeliveryDecision } from '../delivery-decision.js'
import { REMOTE, restoreCheckout, restoreIdentity } from './checkout.js'
import type { Prepared } from './types.js'

/**
 * The branch must hold what the loop verified: the tree its last iteration left (a process of the loop that
 * moved the branch, possible only as the job's own user, delivers nothing). Answers the problem, if any.
 */
export async function branchMovedDuringLoop(
  workTree: string,
  branch: string,
  result: LoopResult
): Promise<string | undefined> {
  const verified = [...result.iterations].reverse().find(it => it.treeHash)?.treeHash ?? result.start.tree
  if (!verified) return undefined
  const tree = await new GitRepo(workTree).exec(
    ['rev-parse', '--verify', '--quiet', `refs/heads/${branch}^{tree}`],
    { probe: true }
  )
  if (tree.stdout.trim() === verified) return undefined
  return `'${branch}' no longer holds the tree the loop verified (${verified.slice(0, 12)}): something moved it during the loop, so nothing was pushed`
}

/** The delivered commit may change no protected path (the restore before each gate run guarantees it): the problem, if any. */
export async function protectedPathsDelivered(
  workTree: string,
  result: LoopResult
): Promise<string | undefined> {
  const base = result.start.commit
  if (!result.protected || !base) return undefined
  const head = await new GitRepo(workTree).commitOf('HEAD')
  if (!head) return undefined
  const changed = await protectedInCommit(
    workTree,
    base,
    head,
    result.protected.rules,
    result.protected.guardrails
  )
  if (changed.length === 0) return undefined
  return `the commit to deliver changes protected paths (${revertsLine(changed)}), so nothing was pushed`
}

/**
 * Push and open or update the pull request, as the inputs say for this outcome. `head` is the commit to
 * deliver when it is not the work tree's HEAD (the deliver job of two-job mode, whose tree stays on the base).
 */
export async function deliverWork(
  prepared: Prepared,
  result: LoopResult,
  head?: string,
  decided?: DeliveryDecision
): Promise<DeliveryReport> {
  const { plan, workTree, branch, clients } = prepared
  const { inputs } = plan
  const delivery: DeliveryReport = {
    branch: branch.branch,
    pushed: false,
    problems: [],
    notes: [...(plan.trigger?.notes ?? [])]
  }
  const commit = head ?? (await new GitRepo(workTree).commitOf('HEAD'))
  if (commit) delivery.commit = commit
  const decision =
    decided ??
    decideDelivery({
      stopReason: result.stopReason,
      success: result.success,
      ...(plan.pr ? { pr: plan.pr.number } : {}),
      addedNoCommits: commit !== undefined && commit === branch.remoteSha,
      openPr: inputs.openPr,
      onFailure: inputs.onFailure,
      draft: inputs.draft,
      branch: branch.branch
    })
  if (!decision.push) {
    delivery.skipped = decision.skipped
    return delivery
  }
  // Verified on a clean checkout (loop/verify.ts): exactly that commit is pushed, and only while HEAD is it.
  const verified = result.verification?.verdict === 'passed' ? result.verification.commit : undefined
  if (result.success && verified !== undefined && commit !== verified) {
    delivery.problems.push(
      `${branch.branch} is at ${commit?.slice(0, 12) ?? 'no commit'}, not at ${verified.slice(0, 12)}, the commit verified on a clean checkout: nothing was pushed`
    )
    return delivery
  }
  if (!(await hasDiff(workTree, branch.baseSha, commit))) {
    delivery.skipped = `the loop left no change against ${branch.base}, so there is nothing to push and no pull request`
    core.info(`Branch ${branch.branch} has no change against ${branch.base}: nothing to push.`)
    return delivery
  }

  const token = inputs.pushToken ?? inputs.githubToken
  const serverUrl = plan.context.serverUrl
  const repository = `${plan.context.repo.owner}/${plan.context.repo.repo}`
  core.startGroup(`Pushing ${branch.branch}`)
  try {
    const timing = retryTiming()
    const pushed = await pushWithRetry(
      workTree,
      {
        branch: branch.branch,
        remote: REMOTE,
        token,
        serverUrl,
        repository,
        leaseSha: branch.remoteSha,
        ...(result.success && verified !== undefined ? { ref: verified } : head ? { ref: head } : {}),
        stallSeconds: timing.pushStallSeconds,
        log: message => core.info(message)
      },
      {
        attempts: 3,
        waitMs: attempt => backoffMs(timing, attempt + 1),
        ...(clients.budget.deadline !== undefined ? { deadline: clients.budget.deadline } : {})
      }
    )
    if (!pushed.pushed) {
      const failure = pushed.error
      delivery.problems.push(failure?.message ?? `the push of ${branch.branch} failed`)
      if (failure?.detail) core.info(failure.detail)
      if (failure?.kind === PUSH_FAILURE.workflowsPermission) {
        const patch = await formatPatch(workTree, branch.baseSha, commit)
        const file = path.join(plan.config.recordDir, 'ralph.patch')
        writeFileSync(file, patch)
        delivery.patch = { file: 'ralph.patch', text: patch }
      }
      return delivery
    }
    delivery.pushed = true
    delivery.commit = pushed.sha
  } finally {
    core.endGroup()
  }

  if (decision.pullRequest === 'none') return delivery
  if (decision.pullRequest === 'onto-pr' && plan.pr) {
    // Its title, description, labels and reviewers are its author's: the push is the update, and the
    // tracking comment on it says what the loop did.
    const { owner, repo } = plan.context.repo
    const url = `${plan.context.serverUrl}/${owner}/${repo}/pull/${plan.pr.number}`
    delivery.pullRequest = { number: plan.pr.number, url, operation: 'updated' }
    if (inputs.pushToken === undefined)
      delivery.notes.push(`${GITHUB_TOKEN_TRIGGERS_NO_CI} Pass it as push-token.`)
    core.info(
      `Pushed onto pull request #${plan.pr.number}'s branch; its title and description are left as they are: ${url}`
    )
    return delivery
  }
  if (inputs.pushToken === undefined)
    delivery.notes.push(`${GITHUB_TOKEN_TRIGGERS_NO_CI} Pass it as push-token.`)
  const text = pullRequestText(
    {
      status: result,
      task: plan.task,
      links: { run: plan.context.runUrl, artifactName: plan.artifactName },
      base: branch.base,
      delivery
    },
    {
      ...(inputs.prTitle !== undefined ? { title: inputs.prTitle } : {}),
      ...(plan.closes !== undefined ? { closes: plan.closes } : {}),
      ...(plan.trigger?.proposeTo
        ? {
            note: `Proposed for pull request #${plan.trigger.proposeTo.number}: ${plan.trigger.proposeTo.reason}.`
          }
        : {}),
      failing: !result.success,
      review: await reviewTheseSection(workTree, branch.baseSha, delivery.commit ?? commit)
    }
  )
  core.startGroup('Opening or updating the pull request')
  try {
    const octokit = await clients.delivery()
    const pr = await openOrUpdatePullRequest(octokit, {
      owner: plan.context.repo.owner,
      repo: plan.context.repo.repo,
      head: branch.branch,
      base: branch.base,
      title: text.title,
      body: text.body,
      draft: decision.draft,
      labels: inputs.labels,
      reviewers: inputs.reviewers,
      assignees: inputs.assignees,
      ownedBy: await clients.deliveryActor(),
      log: message => core.info(message)
    })
    delivery.pullRequest = { number: pr.number, url: pr.url, operation: pr.operation }
    for (const warning of pr.warnings) {
      core.warning(warning)
      delivery.notes.push(warning)
    }
    core.info(`Pull request #${pr.number} ${pr.operation}: ${pr.url}`)
  } catch (error) {
    delivery.problems.push((error as Error).message)
  } finally {
    core.endGroup()
  }
  return delivery
}

/**
 * Delivers the loop's work (nothing when the run was cancelled), then gives the checkout back. `decided`
 * overrides what the inputs would decide (a loop that goes on in another run pushes, and opens no PR).
 */
export async function deliver(
  prepared: Prepared,
  result: LoopResult,
  cancelled: boolean,
  decided?: DeliveryDecision
): Promise<DeliveryReport> {
  const { workTree, branch, identity } = prepared
  let delivery: DeliveryReport
  if (cancelled)
    delivery = undelivered(branch.branch, { skipped: 'the run was cancelled, so nothing was pushed' })
  else {
    const moved = await branchMovedDuringLoop(workTree, branch.branch, result)
    try {
      if (moved) throw new Error(moved)
      const touched = await protectedPathsDelivered(workTree, result)
      if (touched) throw new Error(touched)
      delivery = await deliverWork(prepared, result, undefined, decided)
    } catch (error) {
      delivery = undelivered(branch.branch, { problem: `delivery failed: ${(error as Error).message}` })
    }
  }
  await restoreIdentity(identity)
  await restoreCheckout(workTree, branch)
  return delivery
}
