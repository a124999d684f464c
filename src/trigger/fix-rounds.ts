// Rounds on the action's own pull request: a writer's review, or a failing CI run, continues the loop on its
// branch. What the rounds share is here: their settings, the marker each round's summary comment carries, the
// count read back from those markers (max-fix-rounds), the notices said once per pull request (the refusal at
// the cap, a CI round's "budget spent") and their markers. A marker is text anyone can write, so only the
// comments of the account the action comments with count.
import type { Octokit } from '../github/client.js'
import { isTokenActor, type Author, type TokenActor } from '../github/own-work.js'
import { conversationComments } from '../github/reviews.js'
import { PULL_REQUEST_MARKER } from '../report/pr-body.js'
import { REFUSAL_MARKER } from './replies.js'
import { ralphReadsTask, type TaskDelivery } from './sanitize.js'
import { workBranchFor, type PullToWorkOn, type WorkBranch } from './pull-branch.js'
import type { FixRound, OnceNotice, Refuse, Run, Skip, TriggerSettings } from './types.js'

/** max-fix-rounds when the workflow gives none. */
export const DEFAULT_MAX_FIX_ROUNDS = 3

export interface FixRoundSettings extends TriggerSettings {
  /** The account the action comments with (the job token's): only its markers count. */
  commenter: () => Promise<TokenActor>
  /** max-fix-rounds: review and CI rounds per pull request. */
  maxFixRounds: number
  /** ci-fix: the workflows whose failures start a CI round, by name, file name or path. Empty: none. */
  ciFix: string[]
}

/** A round's settings from the workflow's: the defaults filled in; undefined without an account to comment as. */
export function roundSettings(settings: TriggerSettings): FixRoundSettings | undefined {
  const commenter = settings.commenter ?? settings.reporter
  if (!commenter) return undefined
  return {
    ...settings,
    commenter,
    maxFixRounds: settings.maxFixRounds ?? DEFAULT_MAX_FIX_ROUNDS,
    ciFix: settings.ciFix ?? []
  }
}

const ROUND_MARKER_RE = /<!-- ralph-action:fix-round key=((?:review|ci)-[0-9a-f]+) -->/

/** The marker of each notice said once per pull request: readRounds finds it in the action's comments. */
const ONCE_MARKERS: Record<OnceNotice, string> = {
  cap: '<!-- ralph-action:fix-rounds-cap -->',
  budget: '<!-- ralph-action:budget-spent -->'
}

/** The hidden line a round's summary comment carries: the round counts, and its request is answered. */
export const roundMarker = (round: Pick<FixRound, 'key'>): string =>
  `<!-- ralph-action:fix-round key=${round.key} -->`

/** The marker key of a review (answered once per review, however often it is delivered). */
export const reviewKey = (reviewId: number): string => `review-${reviewId}`

/** The marker key of a CI failure: one round per commit, whichever workflows (and attempts) fail on it. */
export const ciKey = (headSha: string): string => `ci-${headSha.toLowerCase()}`

/** What a pull request's comments say about its rounds. */
export interface RoundLedger {
  /** The requests answered already (each round's key). */
  answered: Set<string>
  /** The notices the action has said on the pull request already (the cap reached, the budget spent). */
  said: Set<OnceNotice>
}

/** Reads the rounds from a pull request's comments: only those the action's commenting account wrote count. */
export function readRounds(
  comments: { user?: Author | null; body?: string | null }[],
  commenter: TokenActor
): RoundLedger {
  const ledger: RoundLedger = { answered: new Set(), said: new Set() }
  for (const comment of comments) {
    if (!isTokenActor(comment.user, commenter)) continue
    const body = comment.body ?? ''
    const key = ROUND_MARKER_RE.exec(body)?.[1]
    if (key) ledger.answered.add(key)
    for (const [notice, marker] of Object.entries(ONCE_MARKERS) as [OnceNotice, string][])
      if (body.includes(marker)) ledger.said.add(notice)
  }
  return ledger
}

/**
 * Whether a round for `key` may start: not when it was answered already (a re-delivered review, a second
 * workflow failing on the same commit), nor at the cap, which is said once on the pull request, then quietly.
 * A round that may start gets its number, and the notices said on the pull request already.
 */
export function roundAllowed(
  ledger: RoundLedger,
  request: { key: string; pullNumber: number; max: number; what: string }
): { number: number; said: OnceNotice[] } | Skip | Refuse {
  if (ledger.answered.has(request.key))
    return {
      kind: 'skip',
      reason: `${request.what} was answered already (its round's comment is on pull request #${request.pullNumber})`
    }
  const done = ledger.answered.size
  if (done < request.max) return { number: done + 1, said: [...ledger.said] }
  const reason = `pull request #${request.pullNumber} has had ${done} review and CI round${done === 1 ? '' : 's'}, and max-fix-rounds is ${request.max}`
  if (ledger.said.has('cap')) return { kind: 'skip', reason: `${reason} (said on the pull request already)` }
  return {
    kind: 'refuse',
    reason,
    reply: capNotice(request.max, done),
    issueNumber: request.pullNumber
  }
}

/** The round goes onto the pull request's own branch; a branch the action may not push onto runs nothing. */
export function branchVerdict(branch: WorkBranch, pullNumber: number): Refuse | undefined {
  if (branch.kind === 'push-onto') return undefined
  if (branch.kind === 'problem') return { kind: 'refuse', reason: branch.problem, unchecked: true }
  return {
    kind: 'refuse',
    reason: `${branch.reason}; a round updates the action's pull request and never opens a second one, so none runs on #${pullNumber}`
  }
}

/** The round a request would be, from the pull request's conversation as it is now (roundAllowed decides). */
export async function nextRound(
  octokit: Octokit,
  settings: FixRoundSettings,
  request: { key: string; pullNumber: number; what: string }
): Promise<ReturnType<typeof roundAllowed>> {
  let ledger: RoundLedger
  try {
    const target = { owner: settings.owner, repo: settings.repo, pullNumber: request.pullNumber }
    ledger = readRounds(await conversationComments(octokit, target), await settings.commenter())
  } catch (error) {
    const status = (error as { status?: number }).status
    return {
      kind: 'refuse',
      reason: `pull request #${request.pullNumber}'s comments could not be read${status ? ` (HTTP ${status})` : ''}, so its rounds cannot be counted`,
      unchecked: true
    }
  }
  return roundAllowed(ledger, { ...request, max: settings.maxFixRounds })
}

/** Whether the round may go onto the pull request's own branch (workBranchFor, then branchVerdict). */
export async function roundBranch(
  octokit: Octokit,
  settings: FixRoundSettings,
  pull: Pick<PullToWorkOn, 'number' | 'headRef' | 'author' | 'body'>
): Promise<Refuse | undefined> {
  const branch = await workBranchFor(
    octokit,
    { owner: settings.owner, repo: settings.repo, ...pull },
    { marker: PULL_REQUEST_MARKER, ...(settings.delivery ? { actor: settings.delivery.actor } : {}) }
  )
  return branchVerdict(branch, pull.number)
}

/** The one comment at the cap: why nothing more runs, and how to go on. */
export function capNotice(max: number, done: number): string {
  return [
    REFUSAL_MARKER,
    ONCE_MARKERS.cap,
    `No more review or CI rounds on this pull request: it has had ${done} and max-fix-rounds is ${max}, so ` +
      `reviews and CI failures here start nothing now (this is said once).`,
    'A writer can still go on with a `/ralph` comment in this conversation, or raise `max-fix-rounds` in the workflow.'
  ].join('\n\n')
}

/**
 * A notice a round says once on its pull request: `text` with the notice's marker (readRounds finds it) when the
 * action has not said it there yet; undefined when it has (the next round would only repeat it).
 */
export function sayOnce(
  round: { said: readonly OnceNotice[] },
  notice: OnceNotice,
  text: string
): string | undefined {
  return round.said.includes(notice) ? undefined : `${ONCE_MARKERS[notice]}\n${text}`
}

/**
 * The args a run's task is delivered as: a review as `review` and `review_file` (a ralph places it with
 * `{{ args.review }}`), anything else as `task` and `task_file`.
 */
export function taskArgNames(run: Pick<Run, 'round'>): { text: string; file: string } {
  return run.round?.kind === 'review'
    ? { text: 'review', file: 'review_file' }
    : { text: 'task', file: 'task_file' }
}

/** The delivered task as the args its run gives it (`task`, or a review round's `review`). */
export function taskArgs(run: Pick<Run, 'round'>, delivery: TaskDelivery): Record<string, string> {
  const names = taskArgNames(run)
  return { [names.text]: delivery.args.task, [names.file]: delivery.args.task_file }
}

/** Whether a RALPH.md's prompt places `{{ args.<name> }}` (outside HTML comments); if not, the task follows it. */
export function placesArg(ralphText: string, name: string): boolean {
  return ralphReadsTask(ralphText, name)
}

/** What the run record says about the round: which request it answered. */
export function roundRecord(round: FixRound): Record<string, unknown> {
  return round.kind === 'review'
    ? {
        kind: 'review',
        round: round.number,
        maxRounds: round.max,
        pullRequest: round.pullNumber,
        review: round.reviewId,
        reviewer: round.reviewer,
        url: round.reviewUrl
      }
    : {
        kind: 'ci',
        round: round.number,
        maxRounds: round.max,
        pullRequest: round.pullNumber,
        workflow: round.workflow,
        run: round.runId,
        conclusion: round.conclusion,
        commit: round.headSha,
        url: round.runUrl,
        failedJobs: round.failedJobs
      }
}
