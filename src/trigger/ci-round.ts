// Whether a failed CI run starts a round on the action's own pull request, and what: Run, Skip or Refuse. A
// round starts for a `workflow_run` that completed in failure (or timed out), of a workflow `ci-fix` names, on
// this repository's branch of an open pull request the action opened, for the commit that pull request is at.
// One round per commit (a second workflow failing on it, or a re-run, counts once), up to max-fix-rounds. No
// one is asked: the repository's own CI reported on the action's own branch. Each decision is a pure function
// of what was read before it; admitCiFailure reads only what the next decision needs.
import path from 'node:path'
import { failedJobs, jobLogTail, type FailedJob, type LogTail } from '../github/ci-jobs.js'
import type { Octokit } from '../github/client.js'
import { isOwnWork } from '../github/own-work.js'
import { findOpenPullRequest, type OpenPullRequest } from '../github/pulls.js'
import { PULL_REQUEST_MARKER } from '../report/pr-body.js'
import { renderCiTask } from './ci-task.js'
import type { WorkflowRunTrigger } from './event.js'
import { ciKey, nextRound, roundBranch, type FixRoundSettings } from './fix-rounds.js'
import { resolveRalph } from './ralph-choice.js'
import type { Admission, Refuse, Skip } from './types.js'

const skip = (reason: string): Skip => ({ kind: 'skip', reason })
const unchecked = (reason: string): Refuse => ({ kind: 'refuse', reason, unchecked: true })

/** Whether `ci-fix` names the run's workflow: by its name, its file's name, or its path. */
export function watches(ciFix: string[], run: { workflow: string; path: string }): boolean {
  const file = path.posix.basename(run.path)
  return ciFix.some(entry => {
    const wanted = entry.trim()
    if (!wanted) return false
    return wanted.toLowerCase() === run.workflow.toLowerCase() || wanted === run.path || wanted === file
  })
}

/** Whether the run asks for a round at all (no API): completed in failure, watched, on this repository's branch. */
export function ciAsks(
  trigger: WorkflowRunTrigger,
  settings: { owner: string; repo: string; ciFix: string[] }
): Skip | undefined {
  const { run } = trigger
  const shown = `the workflow ${JSON.stringify(run.workflow || run.path)}`
  if (trigger.action !== 'completed')
    return skip(`${shown} is ${trigger.action || 'not completed'}; only a completed run can start a round`)
  if (run.conclusion !== 'failure' && run.conclusion !== 'timed_out')
    return skip(
      `${shown} ended in ${run.conclusion || 'no conclusion'}; only a failure or a time-out starts a round`
    )
  if (settings.ciFix.length === 0) return skip('ci-fix names no workflow, so CI failures start no round')
  if (!watches(settings.ciFix, run)) return skip(`ci-fix does not name ${shown}`)
  const repository = `${settings.owner}/${settings.repo}`
  if (run.headRepo.toLowerCase() !== repository.toLowerCase())
    return skip(
      `${shown} ran on a fork's commit (${run.headRepo || 'a deleted repository'}); rounds run only on branches of ${repository}`
    )
  if (!run.headBranch) return skip(`${shown} ran on no branch (a tag, or a detached commit)`)
  return undefined
}

/**
 * Whether the branch's open pull request is one a CI round continues: the action's own, still at the commit
 * that failed (a newer push is CI's to judge again, not this failure).
 */
export function pullVerdict(
  pull: OpenPullRequest | undefined,
  facts: { ours: boolean; headBranch: string; headSha: string }
): OpenPullRequest | Skip {
  if (!pull) return skip(`no open pull request of this repository has ${facts.headBranch} as its branch`)
  if (!facts.ours)
    return skip(
      `pull request #${pull.number} on ${facts.headBranch} is not the action's own (it is ${pull.user?.login ?? 'an unknown account'}'s): CI failures continue only the action's pull requests`
    )
  if (pull.headSha.toLowerCase() !== facts.headSha.toLowerCase())
    return skip(
      `pull request #${pull.number} has moved on to ${pull.headSha.slice(0, 12)} since this run's commit ${facts.headSha.slice(0, 12)}: its CI will judge the new commit`
    )
  return pull
}

/** Each failing job with the end of its log, or why it could not be read (the round runs either way). */
async function readFailures(
  octokit: Octokit,
  target: { owner: string; repo: string },
  runId: number,
  maxJobs: number
): Promise<{ job: FailedJob; log?: LogTail; logProblem?: string }[]> {
  const { failed } = await failedJobs(octokit, target, runId)
  const entries: { job: FailedJob; log?: LogTail; logProblem?: string }[] = []
  for (const [i, job] of failed.entries()) {
    if (i >= maxJobs) {
      entries.push({ job, logProblem: 'not read: too many failing jobs' })
      continue
    }
    try {
      entries.push({ job, log: await jobLogTail(octokit, target, job.id) })
    } catch (error) {
      const status = (error as { status?: number }).status
      entries.push({
        job,
        logProblem: status
          ? `HTTP ${status}${status === 403 ? ' (the job token needs `actions: read`)' : ''}`
          : String((error as Error).message ?? error)
      })
    }
  }
  return entries
}

/** Decides whether this failed run starts a round; reads the API only as far as the decisions need. */
export async function admitCiFailure(
  trigger: WorkflowRunTrigger,
  settings: FixRoundSettings,
  octokit: Octokit
): Promise<Admission> {
  const asked = ciAsks(trigger, settings)
  if (asked) return asked
  const { run } = trigger
  const repo = { owner: settings.owner, repo: settings.repo }
  let found: OpenPullRequest | undefined
  try {
    found = await findOpenPullRequest(octokit, { ...repo, head: run.headBranch })
  } catch (error) {
    const status = (error as { status?: number }).status
    return unchecked(
      `the pull requests of ${run.headBranch} could not be read${status ? ` (HTTP ${status})` : ''}`
    )
  }
  const ours =
    found !== undefined &&
    settings.delivery !== undefined &&
    isOwnWork(found, await settings.delivery.actor(), PULL_REQUEST_MARKER)
  const pull = pullVerdict(found, { ours, headBranch: run.headBranch, headSha: run.headSha })
  if ('kind' in pull) return pull

  const key = ciKey(run.headSha)
  const allowed = await nextRound(octokit, settings, {
    key,
    pullNumber: pull.number,
    what: `the CI failure on commit ${run.headSha.slice(0, 12)}`
  })
  if ('kind' in allowed) return allowed
  const choice = resolveRalph(undefined, settings)
  if ('problem' in choice) return { kind: 'refuse', reason: choice.problem }
  const author = { login: pull.user?.login ?? '', ...(pull.user?.type ? { type: pull.user.type } : {}) }
  const placed = await roundBranch(octokit, settings, {
    number: pull.number,
    headRef: pull.head,
    author,
    body: pull.body ?? ''
  })
  if (placed) return placed

  let jobs
  try {
    jobs = await readFailures(octokit, repo, run.id, 6)
  } catch (error) {
    const status = (error as { status?: number }).status
    return unchecked(
      `the jobs of run ${run.id} could not be read${status ? ` (HTTP ${status}${status === 403 ? ': the job token needs `actions: read`' : ''})` : ''}`
    )
  }
  return {
    kind: 'run',
    event: 'workflow_run',
    ...choice,
    args: {},
    task: renderCiTask({
      pullNumber: pull.number,
      run: {
        id: run.id,
        workflow: run.workflow || run.path,
        runNumber: run.runNumber,
        runAttempt: run.runAttempt,
        conclusion: run.conclusion,
        headSha: run.headSha,
        event: run.event,
        url: run.url
      },
      jobs
    }),
    taskSource: `CI run ${run.id} on pull request #${pull.number}`,
    issueNumber: pull.number,
    pr: {
      number: pull.number,
      headRef: pull.head,
      headSha: pull.headSha,
      baseRef: pull.base,
      sameRepo: true
    },
    branch: pull.head,
    continueBranch: true,
    tracking: false,
    round: {
      kind: 'ci',
      key,
      number: allowed.number,
      said: allowed.said,
      max: settings.maxFixRounds,
      pullNumber: pull.number,
      runId: run.id,
      runUrl: run.url,
      workflow: run.workflow || run.path,
      conclusion: run.conclusion,
      headSha: run.headSha,
      failedJobs: jobs.map(({ job }) => ({ id: job.id, name: job.name, url: job.url }))
    }
  }
}
