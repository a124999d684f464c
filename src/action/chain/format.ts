// The chain (`continue-jobs`, `resume`): a loop that runs out of max-time with its gates still failing goes on in
// another run of the same workflow. decide.ts says whether this job hands on; hand-on.ts pushes, writes
// continuation.json into the record and dispatches the next run with `resume` = this run's id; resume.ts is the
// next run's side: it checks that run before any agent runs (same workflow, same repository, not a fork, the
// branch's tip the one handed over, jobs left), claims it, and carries its state into the loop (an argument).
// This file is continuation.json's format, which both sides read.
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import {
  PROGRESS_FILE,
  STATUS_FILE,
  type ChainJob,
  type ChainRun,
  type LoopResult
} from '../../loop/index.js'
import type { UnpackRules } from '../../github/artifacts.js'
import type { RunContext } from '../../trigger/context.js'
import type { Run } from '../../trigger/types.js'

export const CONTINUATION_FILE = 'continuation.json'
/** The most bytes of continuation.json and of the earlier status.json read. */
export const MOST_RECORD_BYTES = 64 * 1024 * 1024

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

export const isRecord = (value: unknown): value is Record<string, unknown> =>
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

export /** Why continuation.json cannot be what a run of this action wrote, or undefined. */
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
export /** Why the earlier status.json cannot carry a loop on, or undefined. */
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
/** Writes this job's continuation.json into the record, before it is uploaded. */
export function writeContinuation(recordDir: string, facts: Omit<Continuation, 'version'>): void {
  const value: Continuation = { version: 1, ...facts }
  writeFileSync(path.join(recordDir, CONTINUATION_FILE), `${JSON.stringify(value, null, 2)}\n`)
}
/** A ralph's name as the action writes it (its folder's, or its frontmatter's): no path, no line break. */
export const RALPH_NAME = /^[A-Za-z0-9._-][A-Za-z0-9 ._-]{0,199}$/
