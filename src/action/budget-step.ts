// The repository's budget as steps of the job pipelines (#38): reserve before the work is prepared (a spent
// budget ends the step green, with one line), give the lease to the loop as its spending cap, settle after the
// loop, and say what was reserved, spent and left in the summary, the tracking comment, progress.md and the
// `budget-left` output. Each takes what it needs as arguments; the pipelines call them in order.
import { appendFileSync } from 'node:fs'
import path from 'node:path'
import * as core from '@actions/core'
import { PROGRESS_FILE, type LoopResult, type LoopStatus } from '../loop/index.js'
import { readContext } from '../trigger/context.js'
import type { DeliveryReport } from '../report/run-report.js'
import type { Settled } from '../ledger/index.js'
import {
  budgetFailed,
  budgetLeftOutput,
  budgetNote,
  budgetSpent,
  ownSpendUsd,
  postSpendUsd,
  reserveLease,
  savedLease,
  settleHeld,
  settleState,
  type BudgetRun,
  type Held
} from './budget.js'
import type { Step, StepEnd } from './steps/ending.js'
import type { Admitted, Planned } from './steps/types.js'
import { readInputs } from './inputs.js'
import type { SavedState } from './state.js'

/** A GitHub-hosted job's longest run, when max-time gives none: an unsettled lease counts until then. */
const JOB_SECONDS = 6 * 60 * 60

/** What a job's budget came to: the line to show, and the windows' state for `budget-left`. */
export interface BudgetOutcome {
  note?: string
  settled?: Settled
}

/** The reservation's terms for an admitted run: its token, run, requester, ralph, max-cost and deadline. */
export function budgetRun(
  admitted: Admitted,
  ralph: string | undefined,
  extraSeconds = 0
): BudgetRun | undefined {
  const { inputs, context, trigger } = admitted
  if (!inputs.budget) return undefined
  const seconds = (inputs.maxTimeSeconds ?? JOB_SECONDS) + extraSeconds
  return {
    budget: inputs.budget,
    token: inputs.githubToken,
    context,
    trigger,
    ralph,
    maxCostUsd: inputs.maxCostUsd,
    deadline: new Date(Date.now() + seconds * 1000)
  }
}

/**
 * Reserves the run's lease before anything is prepared: undefined without a budget; the step's end when the
 * budget is spent (green, the requester told) or the ledger cannot be used (one line).
 */
export async function reserveStep(planned: Planned): Promise<Step<Held | undefined>> {
  const run = budgetRun(planned, planned.plan.ralph.name)
  if (!run) return undefined
  if (!planned.plan.config.modelProxy)
    return {
      end: budgetFailed(
        "Input 'budget' needs the model proxy, which meters every request against it: set model-proxy: true (or auto, with the agent's key in the job's environment)"
      )
    }
  return reserveStepFor(run, planned)
}

/** Reserves for `run`: the lease held, or the step's end (the budget spent: the requester told, green). */
export async function reserveStepFor(run: BudgetRun, admitted: Admitted): Promise<Step<Held>> {
  const reserved = await reserveLease(run)
  if ('failed' in reserved) return { end: budgetFailed(reserved.failed) }
  if ('refused' in reserved)
    return {
      end: await budgetSpent(reserved.refused, reserved.status, {
        trigger: admitted.trigger,
        ...(admitted.clients.mayWrite ? { octokit: admitted.clients.octokit } : {}),
        repo: admitted.context.repo
      })
    }
  return reserved.held
}

/** The plan with the lease as the loop's spending cap (the model proxy draws on it). */
export function withCap(planned: Planned, held: Held | undefined): Planned {
  if (!held) return planned
  return { ...planned, plan: { ...planned.plan, config: { ...planned.plan.config, spending: held.cap } } }
}

/** After the loop: the lease settled at this job's metered spend; its line added to progress.md. */
export async function settleStep(
  held: Held | undefined,
  result: Pick<LoopResult, 'cost' | 'chain' | 'recordDir'> | undefined
): Promise<BudgetOutcome> {
  if (!held) return {}
  const settled = await settleHeld(held, result ? ownSpendUsd(result) : 0)
  const note = budgetNote(settled, held)
  if (note && result) appendProgress(result.recordDir, note)
  return { ...(note ? { note } : {}), ...(settled ? { settled } : {}) }
}

/** The deliver job of two: the reserve job's lease settled at the agent job's metered spend (in full when none came). */
export async function settleReceived(
  admitted: Admitted,
  spentUsd: number | undefined
): Promise<BudgetOutcome> {
  const run = budgetRun(admitted, undefined)
  const state = run?.budget.lease
  if (!run || !state) return {}
  const settled = await settleState(run, state, spentUsd)
  const note = budgetNote(settled, undefined)
  return { ...(note ? { note } : {}), ...(settled ? { settled } : {}) }
}

function appendProgress(recordDir: string, note: string): void {
  try {
    appendFileSync(path.join(recordDir, PROGRESS_FILE), `\n## Budget\n\n${note}\n`)
  } catch {
    // The record may be gone (a loop that never started one): the summary and the log still say it.
  }
}

/** The delivery with the budget's line, for the summary and the tracking comment. */
export function withBudget(delivery: DeliveryReport, outcome: BudgetOutcome): DeliveryReport {
  return outcome.note ? { ...delivery, budget: outcome.note } : delivery
}

/** The step's ending with `budget-left`. */
export function withBudgetLeft(ending: StepEnd, outcome: BudgetOutcome): StepEnd {
  if (!outcome.settled) return ending
  return { ...ending, outputs: { ...ending.outputs, ...budgetLeftOutput(outcome.settled.status) } }
}

/**
 * The post step: a lease main did not settle (cancelled, killed in the loop, or its settling failed) is
 * settled at what the run's record says this job spent, in full when no record says it. A warning, never a
 * failure: post must not fail a job.
 */
export async function settleInPost(
  saved: Pick<SavedState, 'lease' | 'leaseCovered' | 'finished'>,
  status: LoopStatus | undefined
): Promise<void> {
  const state = savedLease(saved.lease)
  if (!state) return
  try {
    const inputs = readInputs()
    const context = readContext()
    if (!inputs.budget) return
    const run = { budget: { ...inputs.budget, ref: state.ref }, token: inputs.githubToken, context }
    await settleState(run, state, postSpendUsd(status, saved.leaseCovered, saved.finished))
  } catch (error) {
    core.warning(
      `The lease ${state.lease.id} could not be settled: ${(error as Error).message} It counts in full until its deadline; release it by hand (ralph-action budget release).`
    )
  }
}
