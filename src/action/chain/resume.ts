// The chain, the next run's side: the run `resume` names is checked and read (resumeFrom), claimed once its branch
// is checked (claimResume, from prepare), and its state carried into this job's loop as an argument.
import { readdirSync, rmSync } from 'node:fs'
import { createHash } from 'node:crypto'
import path from 'node:path'
import * as core from '@actions/core'
import { STATUS_FILE, type LoopResult, type LoopStart } from '../../loop/index.js'
import { readRegularFile } from '../../ralph/index.js'
import type { RunContext } from '../../trigger/context.js'
import type { Octokit } from '../../github/client.js'
import { branchNameProblem, type ActionInputs } from '../inputs.js'
import { neutralizeWorkflowCommands } from '../../security/workflow-commands.js'
import type { StepEnd, Step } from '../steps/ending.js'
import type { Admitted, Clients, ReadRun } from '../steps/types.js'
import type { RunPlan } from '../plan.js'
import type { Run } from '../../trigger/types.js'
import { scratch } from '../scratch.js'
import { downloadInto, UnpackRefused } from '../../github/artifacts.js'
import { parseBoundedJson } from '../../text/json.js'
import {
  chainRun,
  CONTINUATION_FILE,
  malformedContinuation,
  malformedStatus,
  MOST_RECORD_BYTES,
  RALPH_NAME,
  RECORD_RULES,
  type Continuation,
  type Resumed
} from './format.js'
import { workflowOf } from './runs.js'

/** Where the chain's jobs and the last record's totals do not add up (iterations, dollars), or undefined. */
function disagree(c: Continuation, status: LoopResult): string | undefined {
  const iterations = c.jobs.reduce((sum, job) => sum + job.iterations, 0)
  const usd = c.jobs.reduce((sum, job) => sum + job.costUsd, 0)
  if (iterations !== status.iterations.length)
    return `its jobs ran ${iterations} iteration(s) and its record holds ${status.iterations.length}`
  if (Math.abs(usd - status.cost.totalUsd) > 0.0001 * Math.max(1, usd))
    return `its jobs spent $${usd.toFixed(4)} and its record says $${status.cost.totalUsd.toFixed(4)}`
  return undefined
}

/** The run record artifacts of `runId`, by their exact names: the usual one (any attempt), or artifact-name. */
function recordArtifact(name: string, runId: string, artifactName: string | undefined): boolean {
  if (artifactName !== undefined) return name === artifactName
  return new RegExp(`^ralph-[A-Za-z0-9._-]+-${runId}-[0-9]+$`).test(name)
}

/** The ralph input's name (its folder, or the folder of its RALPH.md), to pick one loop of several. */
function inputRalphName(ralph: string): string {
  const parts = ralph.replace(/\/+$/, '').split('/')
  return parts.at(-1) === 'RALPH.md' ? (parts.at(-2) ?? '') : (parts.at(-1) ?? '')
}

/** The claim's ref: the run, its attempt, and the ralph's name made a ref's, with a hash of it (no two alike). */
export function claimRef(c: Pick<Continuation, 'runId' | 'runAttempt' | 'ralph'>): string {
  const readable =
    c.ralph
      .replace(/[^A-Za-z0-9_-]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 60) || 'loop'
  const hash = createHash('sha256').update(c.ralph).digest('hex').slice(0, 8)
  return `refs/ralph-chain/${c.runId}/${c.runAttempt}/${readable}-${hash}`
}

/**
 * A chain never forks: the first job to go on from run `id` claims it, with a ref only it can create
 * (`refs/ralph-chain/<id>/<attempt>/<ralph>`, at the commit handed over); a second successor (a retried dispatch, a
 * matrix's other run, a re-run) is refused. Answers why it could not claim it, or undefined.
 */
export async function claimResume(
  client: () => Promise<Octokit>,
  context: RunContext,
  c: Pick<Continuation, 'runId' | 'runAttempt' | 'ralph' | 'head'>
): Promise<string | undefined> {
  const ref = claimRef(c)
  const octokit = await client()
  try {
    await octokit.request('POST /repos/{owner}/{repo}/git/refs', {
      ...context.repo,
      ref,
      sha: c.head,
      request: { retries: 0 }
    })
    return undefined
  } catch (error) {
    const status = (error as { status?: number }).status
    const said = (error as Error).message.split('\n')[0]
    // GitHub answers 422 for a ref that exists, and for other things: only a ref that is there is a claim.
    const exists =
      status === 422 &&
      (await octokit
        .request('GET /repos/{owner}/{repo}/git/ref/{ref}', {
          ...context.repo,
          ref: ref.replace(/^refs\//, '')
        })
        .then(
          () => true,
          // Not found, or not asked: no claim is known, and the refusal below says what GitHub answered.
          () => false
        ))
    if (exists)
      return `another run has already gone on from it (${ref} exists: a chain never forks; if that run spent nothing, delete the ref with git push origin :${ref} and run this one again)`
    return `it could not be claimed for this run (${ref}: ${said}; the job needs contents: write)`
  }
}

/**
 * The run `resume` names, checked and read: answers what it handed over, or one line saying why this job
 * cannot go on from it (nothing has run then).
 */
export async function resumeFrom(
  inputs: ActionInputs,
  context: RunContext,
  clients: Pick<Clients, 'octokit'>
): Promise<Resumed | { refused: string }> {
  const id = inputs.resume as string
  const repository = `${context.repo.owner}/${context.repo.repo}`
  const refused = (why: string): { refused: string } => ({
    refused: `Cannot resume run ${id}: ${why}. No agent ran.`
  })
  if (context.eventName !== 'workflow_dispatch')
    return refused(
      `resume is set on a ${context.eventName} run; only a workflow_dispatch run (the one the chain's previous job dispatches) resumes a loop`
    )
  if (id === String(context.runId)) return refused('it is this run')
  const octokit = await clients.octokit()
  const earlier = await workflowOf(octokit, context, id)
  if (!earlier) return refused(`${repository} has no such run`)
  // A cancelled job hands nothing on; a record it uploaded before the signal is no chain to go on with.
  if (earlier.conclusion === 'cancelled') return refused('it was cancelled: its chain ends there')
  const own = await workflowOf(octokit, context, context.runId)
  if (!own) return refused(`GitHub does not know this run (${context.runId})`)
  if (earlier.repository !== repository)
    return refused(`it is a run of ${earlier.repository}, not of ${repository}`)
  if (earlier.headRepository !== repository)
    return refused(
      `it ran on a fork's code (${earlier.headRepository || 'an unknown repository'}), not ${repository}'s`
    )
  if (earlier.headBranch !== own.headBranch)
    return refused(
      `it ran on ${earlier.headBranch || 'no branch'}, and this run on ${own.headBranch || 'no branch'}: a chain's runs are dispatched on one ref`
    )
  if (earlier.workflowId !== own.workflowId)
    return refused(
      `it is a run of another workflow (${earlier.path || earlier.workflowId}), not of ${own.path || own.workflowId}`
    )

  const dir = scratch('ralph-resumed-')
  const found: Resumed[] = []
  try {
    const { DefaultArtifactClient } = await import('@actions/artifact')
    const client = new DefaultArtifactClient()
    const findBy = {
      token: inputs.githubToken,
      workflowRunId: Number(id),
      repositoryOwner: context.repo.owner,
      repositoryName: context.repo.repo
    }
    const { artifacts } = await client.listArtifacts({ findBy })
    const records = artifacts.filter(a => recordArtifact(a.name, id, inputs.artifactName))
    for (const artifact of records) {
      const into = path.join(dir, String(artifact.id))
      await downloadInto(artifact.id, into, RECORD_RULES, { octokit, findBy }).catch((error: Error) => {
        throw error instanceof UnpackRefused
          ? new Error(`its record ${artifact.name} was refused: ${error.message}`)
          : error
      })
      if (!readdirSync(into).includes(CONTINUATION_FILE)) continue
      const parsed = parseBoundedJson(
        readRegularFile(path.join(into, CONTINUATION_FILE), MOST_RECORD_BYTES).toString('utf8')
      )
      const problem = malformedContinuation(parsed)
      if (problem) throw new Error(`its ${CONTINUATION_FILE} cannot be read (${problem})`)
      const status = parseBoundedJson(
        readRegularFile(path.join(into, STATUS_FILE), MOST_RECORD_BYTES).toString('utf8')
      )
      const bad = malformedStatus(status)
      if (bad) throw new Error(`its ${STATUS_FILE} cannot carry the loop on (${bad})`)
      // The attempt is the artifact's (its name's, by the usual naming) and one GitHub has run.
      const named = /-([0-9]+)$/.exec(artifact.name)?.[1]
      const attempt = Number((parsed as Continuation).runAttempt)
      if (
        (named !== undefined && named !== String(attempt)) ||
        !(attempt >= 1 && attempt <= earlier.runAttempt)
      )
        throw new Error(
          `its record ${artifact.name} names attempt ${String((parsed as Continuation).runAttempt)}, which it is not`
        )
      found.push({ continuation: parsed as Continuation, status: status as LoopResult, dir: into })
    }
  } catch (error) {
    rmSync(dir, { recursive: true, force: true })
    return refused((error as Error).message.split('\n')[0])
  }
  // A re-run of that run hands over again: its latest attempt's is the loop's (the branch holds its push).
  const latest = found.filter(
    f =>
      !found.some(
        other =>
          other.continuation.ralph === f.continuation.ralph &&
          Number(other.continuation.runAttempt) > Number(f.continuation.runAttempt)
      )
  )
  // A hunt's ralph is the ralph input's (a matrix's entry): only its continuation is taken, whatever else the
  // run handed on. A chain a comment or a label started runs the ralph they named.
  const byInput = inputs.ralph !== undefined ? inputRalphName(inputs.ralph) : undefined
  const mine = latest.filter(
    f => byInput === undefined || !f.continuation.hunt || f.continuation.ralph === byInput
  )
  if (mine.length !== 1) {
    rmSync(dir, { recursive: true, force: true })
    return refused(
      mine.length === 0 && latest.length > 0
        ? `it handed on no loop of the ralph ${byInput ?? ''} (${latest.map(f => f.continuation.ralph).join(', ')})`
        : mine.length === 0
          ? 'its record holds no continuation (it did not hand its loop on: it finished, failed, was cancelled, or its record was not uploaded)'
          : `it handed on ${mine.length} loops, and a run goes on with one`
    )
  }
  const resumed = mine[0]
  const { continuation: c } = resumed
  const theirs =
    c.repository !== repository
      ? `its continuation is ${c.repository}'s`
      : c.runId !== id
        ? `its continuation was made by run ${c.runId}`
        : c.workflowId !== own.workflowId
          ? "its continuation is another workflow's"
          : !RALPH_NAME.test(c.ralph) ||
              branchNameProblem(c.branch) !== undefined ||
              branchNameProblem(c.base) !== undefined
            ? 'its continuation names no ralph or branch this action would'
            : c.jobs.length >= inputs.continueJobs
              ? `the chain has run its ${inputs.continueJobs} jobs (continue-jobs)`
              : resumed.status.start.commit !== c.start
                ? 'its record and its continuation disagree on where the loop started'
                : disagree(c, resumed.status)
  if (theirs) {
    rmSync(dir, { recursive: true, force: true })
    return refused(theirs)
  }
  core.info(
    neutralizeWorkflowCommands(
      `Resuming run ${id}: ${c.ralph} on ${c.branch} at ${c.head.slice(0, 12)}, job ${c.jobs.length + 1} of at most ${inputs.continueJobs}, after ${resumed.status.iterations.length} iteration(s) and $${resumed.status.cost.totalUsd.toFixed(4)}.`
    )
  )
  return resumed
}

/**
 * A chain's next run is admitted by its first run's admission: this one checks that run (resumeFrom) and takes
 * its trigger, on the branch handed over. Answers the admission and what was handed over, or the one-line refusal.
 */
export async function admitResumed(
  read: ReadRun,
  clients: Clients
): Promise<Step<{ admitted: Admitted; resumed: Resumed }>> {
  const { inputs, context } = read
  const resumed = await resumeFrom(inputs, context, clients)
  if ('refused' in resumed) return { end: { failure: { message: resumed.refused }, finished: true } }
  const { continuation } = resumed
  const trigger: Run = {
    ...continuation.trigger,
    branch: continuation.branch,
    base: continuation.base,
    continueBranch: true
  }
  return { admitted: { inputs, context, clients, trigger, hunt: continuation.hunt }, resumed }
}

/** The plan must go on with the loop handed over (the same ralph on the same branch): why not, in one line. */
export function resumeRefusal(plan: RunPlan, resumed: Resumed): StepEnd | undefined {
  const { continuation: c } = resumed
  const other =
    plan.ralph.name !== c.ralph
      ? `it handed over the ralph ${c.ralph}, and this run runs ${plan.ralph.name}`
      : plan.branch !== c.branch
        ? `it handed over the branch ${c.branch}, and this run's is ${plan.branch}`
        : undefined
  if (other)
    return { failure: { message: `Cannot resume run ${c.runId}: ${other}. No agent ran.` }, finished: true }
  return undefined
}

/** What the resumed job's loop carries in: the earlier status, the chain's jobs, this run, the earlier record. */
export function carryOf(resumed: Resumed, context: RunContext): LoopStart {
  return {
    status: resumed.status,
    jobs: resumed.continuation.jobs,
    run: chainRun(context),
    recordDir: resumed.dir
  }
}
