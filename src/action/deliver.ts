// The git and GitHub half of a run, as the action uses it: prepare the fresh branch before the loop, and
// after it push and open or update the pull request as the inputs say. Known failures come back as
// sentences with their fix (for setFailed and the summary), never as stack traces.
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import * as core from '@actions/core'
import {
  configureIdentity,
  GITHUB_ACTIONS_IDENTITY,
  formatPatch,
  hasDiff,
  prepareBranch,
  pushWithRetry,
  PUSH_FAILURE,
  GitRepo,
  type CommitIdentity,
  type PreparedBranch
} from '../git/index.js'
import { GITHUB_TOKEN_TRIGGERS_NO_CI } from '../github/errors.js'
import { openOrUpdatePullRequest, type GitHubClient } from '../github/pulls.js'
import type { LoopResult } from '../loop/index.js'
import type { DeliveryReport, RunReport } from '../github/run-report.js'
import { pullRequestText } from '../github/pr-body.js'
import { backoffMs, retryTiming } from '../github/retry.js'
import type { RunPlan } from './plan.js'

const REMOTE = 'origin'
/** The identity GitHub shows for commits made by GITHUB_TOKEN; create-pull-request uses it too. */
const BOT_IDENTITY = GITHUB_ACTIONS_IDENTITY

/** The repository's top folder for the project root; throws a one-line error outside a repository. */
export async function workTreeOf(projectRoot: string): Promise<string> {
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

/**
 * Creates the loop's fresh branch from the base (the input, else the checked-out branch, the pull request's
 * base, GITHUB_REF or the remote's default, as prepareBranch decides) and sets the commit identity.
 */
export async function prepare(
  plan: RunPlan,
  workTree: string
): Promise<{ prepared: PreparedBranch; identity: CommitIdentity }> {
  const prepared = await prepareBranch(workTree, {
    branch: plan.branch,
    remote: REMOTE,
    ...(plan.continueBranch ? { continueExisting: true } : {}),
    ...baseOf(plan),
    log: message => core.info(message)
  })
  const identity = await configureIdentity(workTree, BOT_IDENTITY)
  return { prepared, identity }
}

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
  // Hardened (no hooks, no secrets in the environment): the agent may have planted a post-checkout hook.
  const result = await new GitRepo(workTree).exec(args, { probe: true })
  if (result.exitCode !== 0)
    core.warning(
      `Could not check out ${branch ?? sha} again after the run (${result.stderr.trim()}); the work tree is left on ${prepared.branch}.`
    )
}

export interface DeliverOptions {
  plan: RunPlan
  workTree: string
  prepared: PreparedBranch
  result: LoopResult
  /** The report so far (for the pull request body). */
  report: Omit<RunReport, 'delivery'>
  octokit: () => Promise<GitHubClient>
  /** No retry of the push starts past this (max-time). */
  deadline?: number
}

/** The last commit on the branch now. */
async function headSha(workTree: string): Promise<string | undefined> {
  return new GitRepo(workTree).commitOf('HEAD')
}

/** Push and open or update the pull request, as the inputs say for this outcome. */
export async function deliver(options: DeliverOptions): Promise<DeliveryReport> {
  const { plan, workTree, prepared, result } = options
  const { inputs } = plan
  const delivery: DeliveryReport = {
    branch: prepared.branch,
    pushed: false,
    problems: [],
    notes: []
  }
  const commit = await headSha(workTree)
  if (commit) delivery.commit = commit

  if (result.stopReason === 'cancelled') {
    delivery.skipped = 'the run was cancelled, so nothing was pushed'
    return delivery
  }
  if (result.stopReason === 'already_green') {
    delivery.skipped =
      'every gate passed before any agent ran, so there was nothing to do and nothing was pushed'
    return delivery
  }
  // A person's pull request (a /ralph comment on it, or a pull_request run) gets verified work only.
  if (plan.pr && !result.success) {
    delivery.skipped = `the gates did not pass, so nothing was pushed onto pull request #${plan.pr.number}'s branch (on-failure applies to the action's own branches only)`
    return delivery
  }
  if (plan.pr && commit !== undefined && commit === prepared.remoteSha) {
    delivery.skipped = `the loop added no commits, so pull request #${plan.pr.number} is left as it was`
    return delivery
  }
  // Success delivers when open-pr says so; a failure as on-failure says (push, or push and a draft).
  const wantPush = result.success ? inputs.openPr : inputs.onFailure !== 'none'
  const wantPr = result.success ? inputs.openPr : inputs.onFailure === 'draft-pr'
  if (!wantPush) {
    delivery.skipped = result.success
      ? `open-pr is false, so nothing was pushed: the work is on the local branch ${prepared.branch} and in the run record`
      : 'on-failure is none, so nothing was pushed: the work is on the local branch and in the run record'
    return delivery
  }
  if (!(await hasDiff(workTree, prepared.baseSha))) {
    delivery.skipped = `the loop left no change against ${prepared.base}, so there is nothing to push and no pull request`
    core.info(`Branch ${prepared.branch} has no change against ${prepared.base}: nothing to push.`)
    return delivery
  }

  const token = inputs.pushToken ?? inputs.githubToken
  const serverUrl = plan.context.serverUrl
  const repository = `${plan.context.repo.owner}/${plan.context.repo.repo}`
  core.startGroup(`Pushing ${prepared.branch}`)
  try {
    const timing = retryTiming()
    const pushed = await pushWithRetry(
      workTree,
      {
        branch: prepared.branch,
        remote: REMOTE,
        token,
        serverUrl,
        repository,
        leaseSha: prepared.remoteSha,
        stallSeconds: timing.pushStallSeconds,
        log: message => core.info(message)
      },
      {
        attempts: 3,
        waitMs: attempt => backoffMs(timing, attempt + 1),
        ...(options.deadline !== undefined ? { deadline: options.deadline } : {})
      }
    )
    if (!pushed.pushed) {
      const failure = pushed.error
      delivery.problems.push(failure?.message ?? `the push of ${prepared.branch} failed`)
      if (failure?.detail) core.info(failure.detail)
      if (failure?.kind === PUSH_FAILURE.workflowsPermission) {
        const patch = await formatPatch(workTree, prepared.baseSha)
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

  if (!wantPr) return delivery
  if (plan.pr) {
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
    { ...options.report, delivery },
    {
      ...(inputs.prTitle !== undefined ? { title: inputs.prTitle } : {}),
      ...(plan.closes !== undefined ? { closes: plan.closes } : {}),
      ...(plan.trigger?.proposeTo
        ? {
            note: `Proposed for pull request #${plan.trigger.proposeTo.number}: ${plan.trigger.proposeTo.reason}.`
          }
        : {}),
      failing: !result.success
    }
  )
  core.startGroup('Opening or updating the pull request')
  try {
    const octokit = await options.octokit()
    const pr = await openOrUpdatePullRequest(octokit, {
      owner: plan.context.repo.owner,
      repo: plan.context.repo.repo,
      head: prepared.branch,
      base: prepared.base,
      title: text.title,
      body: text.body,
      draft: inputs.draft || !result.success,
      labels: inputs.labels,
      reviewers: inputs.reviewers,
      assignees: inputs.assignees,
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
