// The repository's budget in a job (#38, docs/budget.md): before the first agent run the job reserves a lease
// from the ledger (a run that cannot reserve one request's worth runs no agent, and says which budget is
// spent and when it resets), the model proxy spends against it, and the job settles it after the loop (post
// settles it after a cancel). The ledger is read and written by the action's own user, in a scratch folder
// of its own (ledger/store.ts), with the job's token: never in the work tree, never in the agent's reach.
import * as core from '@actions/core'
import {
  fixedCap,
  formatUsd,
  LedgerError,
  LedgerStore,
  microsOf,
  openLease,
  parseLeaseState,
  settleLease,
  type BudgetStatus,
  type Lease,
  type LeaseState,
  type Settled,
  type SpendingCap
} from '../ledger/index.js'
import type { LoopResult, LoopStatus } from '../loop/index.js'
import { postRefusal } from '../github/tracking.js'
import type { Octokit } from '../github/client.js'
import type { RunContext } from '../trigger/context.js'
import { sayOnce } from '../trigger/fix-rounds.js'
import type { CiRound, ReviewRound, Run } from '../trigger/types.js'
import type { BudgetSetting } from './budget-inputs.js'
import type { StepEnd } from './steps/ending.js'
import { saveState } from './state.js'

/**
 * One request's worth: a run that cannot reserve this much runs no agent (a request's worst case is its
 * whole output limit at the model's price; the proxy refuses, one by one, those this does not cover).
 * Fixed, not priced: before the agent's first request nobody knows its model or output limit (the agent
 * picks both, per request); this decides only whether a run starts, never what a request may spend.
 */
export const ONE_REQUEST_USD = 0.05

/** The events a person starts (a review round: the reviewer), whose login `budget-per-requester` is keyed on; a CI round has none. */
const REQUESTED = new Set([
  'issue_comment',
  'issues',
  'pull_request',
  'pull_request_target',
  'pull_request_review'
])

/** What the job reserves for: who, which ralph, its own max-cost, and until when. */
export interface BudgetRun {
  budget: BudgetSetting
  /** The job's token (contents: write). */
  token: string
  context: Pick<RunContext, 'serverUrl' | 'repo' | 'runId' | 'runAttempt' | 'job'>
  trigger: Pick<Run, 'event' | 'actor' | 'issueNumber'>
  ralph?: string | undefined
  maxCostUsd?: number | undefined
  /** The job's deadline: after it an unsettled lease is expired (and still counted in full). */
  deadline: Date
}

/** The budget a job holds: what the proxy draws on, and the lease this job settles (none in the agent job of two). */
export interface Held {
  cap: SpendingCap
  lease?: Lease
  store?: LedgerStore
  /** The windows as the reservation left them. */
  status: BudgetStatus
}

export type Reserved = { held: Held } | { refused: string; status: BudgetStatus } | { failed: string }

const storeFor = (run: Pick<BudgetRun, 'budget' | 'token' | 'context'>): Promise<LedgerStore> =>
  LedgerStore.open({
    serverUrl: run.context.serverUrl,
    repository: `${run.context.repo.owner}/${run.context.repo.repo}`,
    token: run.token,
    ref: run.budget.ref,
    log: message => core.debug(message),
    warn: message => core.warning(message)
  })

/** The requester a per-requester budget counts against: who asked, on a comment, a label, a pull request or a review. */
export function requesterOf(trigger: Pick<Run, 'event' | 'actor'>): string | undefined {
  return REQUESTED.has(trigger.event) ? trigger.actor?.login : undefined
}

/** Reserves the job's lease; a two-job workflow's agent job spends the reserve job's lease as a fixed cap. */
export async function reserveLease(run: BudgetRun): Promise<Reserved> {
  const { budget } = run
  if (budget.lease) {
    core.info(
      `The repository's budget: this job spends the lease ${budget.lease.lease.id} the reserve job took (${usd(budget.lease)}), and no more.`
    )
    return { held: { cap: fixedCap(budget.lease), status: { windows: [] } } }
  }
  let store: LedgerStore | undefined
  try {
    store = await storeFor(run)
    const requester = requesterOf(run.trigger)
    const opened = await openLease(store, {
      run: { id: run.context.runId, attempt: Number(run.context.runAttempt) || 1, job: run.context.job },
      ...(run.ralph !== undefined ? { ralph: run.ralph } : {}),
      ...(requester !== undefined ? { requester } : {}),
      limits: budget.limits,
      ...(run.maxCostUsd !== undefined ? { maxCostUsd: run.maxCostUsd } : {}),
      minimumUsd: ONE_REQUEST_USD,
      deadline: run.deadline
    })
    if ('refused' in opened) {
      await store.close()
      return { refused: opened.refused.line, status: opened.status }
    }
    const { lease } = opened
    // Post settles it when main does not (a cancel); main clears it once settled.
    saveState('lease', JSON.stringify(lease.state()))
    core.info(
      `The repository's budget: reserved ${formatUsd(microsOf(lease.grantedUsd(), 'down'))} (lease ${lease.id}); ${leftWords(lease.status())}.`
    )
    return { held: { cap: notedForPost(lease), lease, store, status: lease.status() } }
  } catch (error) {
    await store?.close()
    if (error instanceof LedgerError) return { failed: error.message }
    throw error
  }
}

/**
 * The lease as the model proxy's cap, what it covered written down for post as it grows: no request goes up
 * uncovered, so a main killed mid-request spent no more than the last total covered (and the lease, saved again
 * after each top-up, is what settling in full means).
 */
function notedForPost(lease: Lease): SpendingCap {
  let covered = 0
  let granted = lease.grantedUsd()
  return {
    grantedUsd: () => lease.grantedUsd(),
    refusal: () => lease.refusal(),
    cover: async totalUsd => {
      const ok = await lease.cover(totalUsd)
      if (lease.grantedUsd() > granted) {
        granted = lease.grantedUsd()
        saveState('lease', JSON.stringify(lease.state()))
      }
      if (ok && totalUsd > covered) {
        covered = totalUsd
        saveState('leaseCovered', String(totalUsd))
      }
      return ok
    }
  }
}

const usd = (state: LeaseState): string =>
  formatUsd(state.lease.draws.reduce((sum, draw) => sum + draw.usd, 0))

/** `$0.41 left today, $12.41 this month` (the repository's windows, then a requester's). */
export function leftWords(status: BudgetStatus): string {
  const parts = status.windows
    .filter(w => w.left !== undefined)
    .map(w => {
      const when = w.kind === 'day' ? 'today' : 'this month'
      const whose = w.scope.kind === 'repository' ? '' : ` for ${w.scope.login}`
      return `${formatUsd(w.left ?? 0)} left ${when}${whose}`
    })
  return parts.length > 0 ? `the repository's budget has ${parts.join(', ')}` : 'no window is limited'
}

/**
 * The budget-spent line as a reply: to whoever asked, each time they ask; on a CI round's pull request, which
 * no one asked on, once (each failing workflow and commit would repeat it), then undefined.
 */
export function spentReply(
  line: string,
  trigger: { round?: Pick<ReviewRound, 'kind'> | Pick<CiRound, 'kind' | 'said'> | undefined }
): string | undefined {
  const text = `${line}\n`
  return trigger.round?.kind === 'ci' ? sayOnce(trigger.round, 'budget', text) : text
}

/**
 * A run that finds the budget spent runs no agent: one line, which on an issue is the requester's reply (on a
 * CI round's pull request, said once), and the step ends green, as a refusal does.
 */
export async function budgetSpent(
  refused: string,
  status: BudgetStatus,
  reply: {
    trigger: Pick<Run, 'issueNumber' | 'round'>
    octokit?: (() => Promise<Octokit>) | undefined
    repo: RunContext['repo']
  }
): Promise<StepEnd> {
  // Sentence case for "the repository's budget …"; a requester's login stays as GitHub spells it.
  const line = `${refused.replace(/^the /, 'The ')}. No agent ran.`
  core.warning(line)
  const { issueNumber } = reply.trigger
  const text = spentReply(line, reply.trigger)
  if (issueNumber !== undefined && text === undefined)
    core.info(`Pull request #${issueNumber} says already that the budget is spent: not said again.`)
  if (issueNumber !== undefined && text !== undefined && reply.octokit)
    await postRefusal(await reply.octokit(), { ...reply.repo, issueNumber }, text, m => core.warning(m))
  return {
    outputs: { 'stop-reason': 'budget', success: 'false', iterations: '0', ...budgetLeftOutput(status) },
    summary: `💸 ${line}\n`,
    finished: true
  }
}

/** The ledger could not be read or written: no agent runs, in one line. */
export function budgetFailed(failed: string): StepEnd {
  return { failure: { message: `${failed.replace(/\.$/, '')}. No agent ran.` }, finished: true }
}

/** `budget-left`: the least the run's windows have left, after its last change. */
export function budgetLeftOutput(status: BudgetStatus): { 'budget-left'?: string } {
  return status.leftUsd === undefined ? {} : { 'budget-left': status.leftUsd.toFixed(2) }
}

/** What this job spent of a loop's result: a chain's last job's own, else the run's. */
export function ownSpendUsd(result: Pick<LoopResult, 'cost' | 'chain'>): number {
  return result.chain?.jobs.at(-1)?.costUsd ?? result.cost.totalUsd
}

/** Settles the job's lease at what it spent; answers the note for the summary, or undefined when none was held. */
export async function settleHeld(held: Held | undefined, spentUsd: number): Promise<Settled | undefined> {
  if (!held?.lease) return undefined
  try {
    const settled = await held.lease.settle(spentUsd)
    saveState('lease', '')
    core.info(`The repository's budget: ${settledWords(settled)}.`)
    return settled
  } catch (error) {
    if (!(error instanceof LedgerError)) throw error
    // The lease stays counted in full until its deadline (fail closed); post tries again.
    core.warning(`The lease ${held.lease.id} could not be settled: ${error.message}`)
    return undefined
  } finally {
    await held.store?.close()
  }
}

/** `reserved $0.20, spent $0.09 ($0.11 back); the repository's budget has $0.41 left today` */
export function settledWords(settled: Settled): string {
  const back = settled.returnedUsd > 0 ? ` (${formatUsd(microsOf(settled.returnedUsd, 'down'))} back)` : ''
  const note = settled.note ? ` (${settled.note})` : ''
  return `reserved ${formatUsd(microsOf(settled.grantedUsd, 'down'))}, spent ${formatUsd(microsOf(settled.spentUsd, 'up'))}${back}${note}; ${leftWords(settled.status)}`
}

/** The run's budget in one line for the summary, the tracking comment and progress.md. */
export function budgetNote(settled: Settled | undefined, held: Held | undefined): string | undefined {
  if (settled) return `The repository's budget: this run ${settledWords(settled)}.`
  if (held && !held.lease)
    return `The repository's budget: this job spent against the reserve job's lease of ${formatUsd(microsOf(held.cap.grantedUsd(), 'down'))}; the deliver job settles it.`
  return undefined
}

/**
 * Settles a lease another step or job holds: the post step after a cancel (from the record's spend), the
 * deliver job (from the agent job's metered spend); with no spend known, in full (fail closed).
 */
export async function settleState(
  run: Pick<BudgetRun, 'budget' | 'token' | 'context'>,
  state: LeaseState,
  spentUsd: number | undefined
): Promise<Settled | undefined> {
  let store: LedgerStore | undefined
  try {
    store = await storeFor(run)
    const spent = spentUsd ?? state.lease.draws.reduce((sum, draw) => sum + draw.usd, 0) / 1e6
    const settled = await settleLease(store, state, spent)
    core.info(`The repository's budget: lease ${state.lease.id} ${settledWords(settled)}.`)
    return settled
  } catch (error) {
    if (!(error instanceof LedgerError)) throw error
    core.warning(`The lease ${state.lease.id} could not be settled: ${error.message}`)
    return undefined
  } finally {
    await store?.close()
  }
}

/** The lease main saved for post, or undefined (none held, or main settled it). */
export function savedLease(text: string | undefined): LeaseState | undefined {
  if (!text) return undefined
  const parsed = parseLeaseState(text)
  return 'problem' in parsed ? undefined : parsed
}

/**
 * What post settles a lease at: the record's spend (this job's) when main finished it; after a killed main, the
 * record lacks the iteration in flight, so the most the proxy had covered when it is more; nothing known: in
 * full (undefined).
 */
export function postSpendUsd(
  status: LoopStatus | undefined,
  covered: string | undefined,
  mainFinished: boolean
): number | undefined {
  const recorded = status ? ownSpendUsd(status) : undefined
  if (mainFinished && recorded !== undefined) return recorded
  const most = covered === undefined ? NaN : Number(covered)
  if (!Number.isFinite(most)) return recorded
  return Math.max(most, recorded ?? 0)
}
