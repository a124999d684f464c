// Continuation across jobs (`continue-jobs`, `resume`): a loop that runs out of max-time with its gates still
// failing goes on in another run of the same workflow. This job pushes its work to the loop's branch, writes
// `continuation.json` into its record, uploads the record and dispatches the next run with `resume` = its
// run id. The next run checks that run before any agent runs (same workflow, same repository, not a fork,
// the branch's tip the one handed over, jobs left), takes the record's state, and goes on.
import { readdirSync, rmSync, writeFileSync } from 'node:fs'
import { createHash } from 'node:crypto'
import path from 'node:path'
import * as core from '@actions/core'
import { PROGRESS_FILE, STATUS_FILE, type ChainJob, type ChainRun, type LoopResult } from '../../loop/index.js'
import { readRegularFile } from '../../ralph/index.js'
import type { Run } from '../../trigger/types.js'
import type { RunContext } from '../../trigger/context.js'
import type { Octokit } from '../../github/client.js'
import { branchNameProblem, type ActionInputs } from '../inputs.js'
import { neutralizeWorkflowCommands } from '../../security/workflow-commands.js'
import type { Clients } from '../steps/admit.js'
import { scratch } from '../handover/receive.js'
import { downloadInto, UnpackRefused, type UnpackRules } from '../../github/artifacts.js'
import { parseBoundedJson } from '../../text/json.js'

export const CONTINUATION_FILE = 'continuation.json'
/** The most bytes of continuation.json and of the earlier status.json read. */
const MOST_RECORD_BYTES = 64 * 1024 * 1024

/** The most one log of the earlier record may weigh, and the whole record. */
const MOST_LOG_BYTES = 512 * 1024 * 1024
const MOST_RECORD_TOTAL_BYTES = 2 * 1024 * 1024 * 1024

/** A log of the record as the loop names them: `logs/` and a few safe names (no `..`, no hidden file). */
const RECORD_LOG = /^logs(\/[A-Za-z0-9_-][A-Za-z0-9._-]{0,199}){1,5}$/

/**
 * What the earlier run's record may hold for this job: its continuation, status and progress, and its logs, each
 * bounded; anything else is read past, never written.
 */
export const RECORD_RULES: UnpackRules = {
  most: name =>
    name === CONTINUATION_FILE || name === STATUS_FILE || name === PROGRESS_FILE
      ? MOST_RECORD_BYTES
      : RECORD_LOG.test(name)
        ? MOST_LOG_BYTES
        : undefined,
  total: MOST_RECORD_TOTAL_BYTES,
  entries: 100_000
}

/** continuation.json: what a job that hands its loop on leaves for the next run. */
export interface Continuation {
  version: 1
  /** owner/repo, the workflow, and the run that handed over. */
  repository: string
  workflowId: number
  runId: string
  runAttempt: string
  ralph: string
  branch: string
  base: string
  /** The commit the chain's loop started from: its change, its protected paths and its clean checkout's base. */
  start: string
  /** The branch's tip as this run pushed it: the next run goes on from exactly that. */
  head: string
  /** What started the chain (the first run's trigger): the same task, args, issue and branch in every job. */
  trigger: Run
  hunt: boolean
  /** The chain's tracking comment, edited by every job. */
  tracking?: { issueNumber: number; commentId: number }
  /** Every job so far, this one last. */
  jobs: ChainJob[]
}

/** What a resumed job takes from the run it goes on from. */
export interface Resumed {
  continuation: Continuation
  /** The earlier job's final status (its iterations, cost, baseline, start). */
  status: LoopResult
  /** Where its record was downloaded: its logs are copied into this job's record. */
  dir: string
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
const isSha = (value: unknown): boolean =>
  typeof value === 'string' && /^[0-9a-f]{40}([0-9a-f]{24})?$/.test(value)
const isCount = (value: unknown): boolean =>
  typeof value === 'number' && Number.isInteger(value) && value >= 0
const isDollars = (value: unknown): boolean =>
  typeof value === 'number' && Number.isFinite(value) && value >= 0

/** This run as a chain names it. */
export function chainRun(context: RunContext): ChainRun {
  return { id: String(context.runId), attempt: String(context.runAttempt || '1'), url: context.runUrl }
}

/** Why continuation.json cannot be what a run of this action wrote, or undefined. */
function malformedContinuation(value: unknown): string | undefined {
  if (!isRecord(value)) return 'it is not a JSON object'
  if (value.version !== 1) return `version ${JSON.stringify(value.version)} is not 1`
  for (const key of ['repository', 'runId', 'runAttempt', 'ralph', 'branch', 'base'] as const)
    if (typeof value[key] !== 'string' || value[key] === '') return `${key} is not a name`
  if (!isCount(value.workflowId)) return 'workflowId is not a number'
  if (!isSha(value.start) || !isSha(value.head)) return 'start or head is not a commit'
  if (!isRecord(value.trigger) || value.trigger.kind !== 'run') return 'trigger is not a run'
  if (typeof value.hunt !== 'boolean') return 'hunt is not true or false'
  if (value.tracking !== undefined) {
    const t = value.tracking
    if (!isRecord(t) || !isCount(t.issueNumber) || !isCount(t.commentId)) return 'tracking is not a comment'
  }
  if (!Array.isArray(value.jobs) || value.jobs.length === 0) return 'jobs is empty'
  for (const job of value.jobs as unknown[]) {
    if (!isRecord(job) || !isRecord(job.run) || typeof job.run.id !== 'string') return 'a job has no run'
    if (!isCount(job.iterations) || !isDollars(job.costUsd) || !isCount(job.durationMs))
      return `job ${String(job.run.id)}'s figures are not numbers`
  }
  return undefined
}

/** Why the earlier status.json cannot carry a loop on, or undefined. */
function malformedStatus(value: unknown): string | undefined {
  if (!isRecord(value) || value.state !== 'finished') return 'it is not a finished loop'
  if (!Array.isArray(value.iterations)) return 'it has no iterations'
  for (const it of value.iterations as unknown[])
    if (!isRecord(it) || !isCount(it.iteration) || !Array.isArray(it.checks)) return 'an iteration is not one'
  const cost = value.cost
  if (!isRecord(cost) || !isDollars(cost.totalUsd)) return 'its cost is not a number'
  if (!isRecord(value.start) || !isSha(value.start.commit)) return 'it has no start commit'
  if (value.progressSectionsAt !== undefined && !isCount(value.progressSectionsAt))
    return 'its progress.md offset is not a number'
  return undefined
}

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

/** What a job cancelled before its successor is dispatched does, in the log's words. */
export const HANDS_NOTHING_ON = 'it hands nothing on (no next run is dispatched)'

/** This job, as the chain decision sees it. */
export interface ChainJobFacts {
  /** The chain's jobs so far, this one included. */
  jobsSoFar: number
  /** The iterations earlier jobs ran: this job's are the ones after them. */
  carried: number
  /** The job was cancelled (a signal, or the loop stopped `cancelled`). */
  cancelled: boolean
  /** The loop's branch was there before it: a person's pull request's, or one the action had pushed. */
  branchWas?: 'pr' | 'existing' | undefined
}

/** Why this job made no progress another job could go on from (no agent run of it left a commit), or undefined. */
function noProgress(iterations: LoopResult['iterations']): string | undefined {
  if (iterations.some(it => it.commit?.sha !== undefined)) return undefined
  const finished = iterations.some(it => it.agent !== undefined && it.agent.killedBy === undefined)
  return finished
    ? 'no agent run of this job left a commit, so another job would start where this one did'
    : 'no agent run finished in this job (setup, the baseline or the agent took its max-time), so another job would do the same'
}

/**
 * Whether this job hands its loop on: it stopped on max-time with gates failing, made progress (a commit), was
 * not cancelled, and the chain has jobs, iterations and dollars left. Answers why not, for the log, when it
 * could have.
 */
export function continuesIn(
  inputs: Pick<ActionInputs, 'continueJobs' | 'maxIterations' | 'maxCostUsd'> & { ralphName?: string },
  result: Pick<LoopResult, 'stopReason' | 'success' | 'iterations' | 'cost'>,
  job: ChainJobFacts
): { continues: true } | { continues: false; why?: string } {
  if (inputs.continueJobs <= 1 || result.success) return { continues: false }
  if (job.cancelled) return { continues: false, why: `the job was cancelled, so ${HANDS_NOTHING_ON}` }
  if (result.stopReason !== 'timeout') return { continues: false }
  if (job.jobsSoFar >= inputs.continueJobs)
    return { continues: false, why: `the chain has run its ${inputs.continueJobs} jobs (continue-jobs)` }
  if (result.iterations.length >= inputs.maxIterations)
    return {
      continues: false,
      why: `the chain has run its ${inputs.maxIterations} iterations (max-iterations)`
    }
  if (inputs.maxCostUsd !== undefined && result.cost.totalUsd >= inputs.maxCostUsd)
    return { continues: false, why: `the chain has spent its $${inputs.maxCostUsd} (max-cost)` }
  const stalled = noProgress(result.iterations.slice(job.carried))
  if (stalled) return { continues: false, why: stalled }
  if (inputs.ralphName !== undefined && !RALPH_NAME.test(inputs.ralphName))
    return {
      continues: false,
      why: `the ralph's name ${JSON.stringify(inputs.ralphName)} is not one a chain carries (letters, digits, spaces, . _ -)`
    }
  if (job.branchWas === 'pr')
    return {
      continues: false,
      why: "a loop on a person's pull request branch does not go on in another run (unverified work is never pushed there)"
    }
  // Its pull request, if it has one, shows what is there: unverified work is not pushed under it between jobs.
  if (job.branchWas === 'existing')
    return {
      continues: false,
      why: 'a chain starts on a branch of its own, and this loop went on from one that was already there (its pull request, if any, would show unverified work)'
    }
  return { continues: true }
}

/** The workflow this run belongs to, as GitHub numbers it. */
async function workflowOf(
  octokit: Octokit,
  context: RunContext,
  runId: string
): Promise<RunFacts | undefined> {
  try {
    const { data } = await octokit.request('GET /repos/{owner}/{repo}/actions/runs/{run_id}', {
      ...context.repo,
      run_id: Number(runId)
    })
    return {
      workflowId: data.workflow_id,
      path: data.path ?? '',
      repository: data.repository.full_name,
      headRepository: data.head_repository?.full_name ?? '',
      headBranch: data.head_branch ?? '',
      runAttempt: data.run_attempt ?? 1,
      conclusion: data.conclusion ?? null
    }
  } catch (error) {
    if ((error as { status?: number }).status === 404) return undefined
    throw error
  }
}

interface RunFacts {
  workflowId: number
  path: string
  repository: string
  headRepository: string
  headBranch: string
  runAttempt: number
  /** `cancelled`, `success`, …; null while it runs. */
  conclusion: string | null
}

/** Writes this job's continuation.json into the record, before it is uploaded. */
export function writeContinuation(recordDir: string, facts: Omit<Continuation, 'version'>): void {
  const value: Continuation = { version: 1, ...facts }
  writeFileSync(path.join(recordDir, CONTINUATION_FILE), `${JSON.stringify(value, null, 2)}\n`)
}

/** This run's workflow id (the next run is dispatched on it). */
export async function ownWorkflow(octokit: Octokit, context: RunContext): Promise<number> {
  const own = await workflowOf(octokit, context, context.runId)
  if (!own)
    throw new Error(
      `GitHub does not know this run (${context.runId}) in ${context.repo.owner}/${context.repo.repo}`
    )
  return own.workflowId
}

/**
 * Dispatches the next run of this workflow on this run's ref, with `resume` = this run's id and the dispatch
 * inputs this run had. Answers its id and address when GitHub says them.
 */
export async function dispatchNext(
  octokit: Octokit,
  context: RunContext,
  workflowId: number
): Promise<{ runId?: string; url?: string }> {
  const given = isRecord(context.payload.inputs) ? context.payload.inputs : {}
  const inputs: Record<string, string> = {}
  for (const [name, value] of Object.entries(given))
    if (name !== 'resume' && value !== null && value !== undefined) inputs[name] = String(value)
  inputs.resume = String(context.runId)
  try {
    // return_run_details (2025): GitHub answers 200 with the new run's id and address instead of 204.
    const request = octokit.request as (route: string, parameters: object) => Promise<{ data: unknown }>
    // Sent once: a dispatch GitHub carried out but did not answer must not start a second successor.
    const response = await request('POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches', {
      ...context.repo,
      workflow_id: workflowId,
      ref: context.ref,
      inputs,
      return_run_details: true,
      request: { retries: 0 }
    })
    const data = (response.data ?? {}) as { workflow_run_id?: number; html_url?: string }
    return {
      ...(data.workflow_run_id !== undefined ? { runId: String(data.workflow_run_id) } : {}),
      ...(data.html_url !== undefined ? { url: data.html_url } : {})
    }
  } catch (error) {
    const status = (error as { status?: number }).status
    const said = (error as Error).message.split('\n')[0]
    if (status === 403)
      throw new Error(
        `the job token may not start workflows (${said}): give the job permissions: actions: write`,
        { cause: error }
      )
    if (status === 422)
      throw new Error(
        `GitHub refused to dispatch the workflow on ${context.ref} (${said}): it needs on: workflow_dispatch with an input named resume (see examples/workflows/long-loop.yml)`,
        { cause: error }
      )
    throw new Error(`the next run could not be dispatched: ${said}`, { cause: error })
  }
}

/** The run record artifacts of `runId`, by their exact names: the usual one (any attempt), or artifact-name. */
function recordArtifact(name: string, runId: string, artifactName: string | undefined): boolean {
  if (artifactName !== undefined) return name === artifactName
  return new RegExp(`^ralph-[A-Za-z0-9._-]+-${runId}-[0-9]+$`).test(name)
}

/** A ralph's name as the action writes it (its folder's, or its frontmatter's): no path, no line break. */
const RALPH_NAME = /^[A-Za-z0-9._-][A-Za-z0-9 ._-]{0,199}$/

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
