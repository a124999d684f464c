// Whether a review starts a round on the action's own pull request, and what: Run, Skip or Refuse. A round
// starts for a writer's submitted review that requests changes, or comments with `/ralph` as its first line,
// on an open pull request of this repository that the action opened (the "is it ours?" rule of own-work.ts),
// once per review, up to max-fix-rounds. Each decision is a pure function of what was read before it (tested
// by the table); admitReview reads, in that order, only what the next decision needs.
import type { Octokit } from '../github/client.js'
import { isOwnWork, isTokenActor } from '../github/own-work.js'
import {
  getReview,
  listReviewComments,
  reviewThreads,
  type Review,
  type ReviewComment,
  type ReviewThreadState
} from '../github/reviews.js'
import { availableRalphs } from '../ralph/installed.js'
import { PULL_REQUEST_MARKER } from '../report/pr-body.js'
import type { PullRequestReviewTrigger } from './event.js'
import { nextRound, reviewKey, roundBranch, type FixRoundSettings } from './fix-rounds.js'
import { parseRalphCommand, type RalphCommand } from './grammar.js'
import { checkActor, type ActorCheck } from './permissions.js'
import { sameRepoPull, type OpenPull } from './pull-branch.js'
import { refusalReply, usage } from './replies.js'
import { commandRalph, resolveRalph, type RalphChoice } from './ralph-choice.js'
import { renderReviewTask, reviewThreadRefs } from './review-task.js'
import type { Admission, Refuse, Skip } from './types.js'

/** What the event alone says: a review that asks for a round, with its `/ralph` line if it has one. */
export interface ReviewAsk {
  /** The body's first line, when it is `/ralph …` (a command, or why it cannot be read). */
  command?: Exclude<RalphCommand, { kind: 'none' }>
}

const skip = (reason: string): Skip => ({ kind: 'skip', reason })
const unchecked = (reason: string): Refuse => ({ kind: 'refuse', reason, unchecked: true })

/** Whether the review asks for a round at all (no API): submitted, and changes requested or a `/ralph` line. */
export function reviewAsks(trigger: PullRequestReviewTrigger): ReviewAsk | Skip {
  if (trigger.action !== 'submitted')
    return skip(`the review was ${trigger.action || 'changed'}; only a submitted review asks for a round`)
  const parsed = parseRalphCommand(trigger.review.body)
  const command = parsed.kind === 'none' ? undefined : parsed
  const state = trigger.review.state.toLowerCase()
  if (state === 'changes_requested') return command ? { command } : {}
  if (state === 'commented')
    return command
      ? { command }
      : skip('a commenting review asks for a round only when its first line is /ralph')
  return skip(`a review that is ${state.replace(/_/g, ' ') || 'of no state'} asks for no round`)
}

/**
 * Who reviewed decides next, as for a comment: a writer (or a bot allowed-bots names). Someone else's review
 * is skipped quietly, or refused with a reply when it carried a `/ralph` line, as a comment would be.
 */
export function refuseReviewer(
  ask: ReviewAsk,
  actor: Extract<ActorCheck, { allowed: false }>,
  where: { pullNumber: number; reviewer: string }
): Skip | Refuse {
  if (actor.unknown) return unchecked(actor.reason)
  if (ask.command) return refuseWithReply(where, actor.reason)
  return skip(`${actor.reason}, so the review starts no round`)
}

const refuseWithReply = (
  where: { pullNumber: number; reviewer: string },
  reason: string,
  extra = ''
): Refuse => ({
  kind: 'refuse',
  reason,
  reply: refusalReply(where.reviewer, reason, extra),
  issueNumber: where.pullNumber
})

/** The ralph the review runs: its `/ralph` line's, else the workflow's default. */
export function reviewRalph(
  ask: ReviewAsk,
  settings: FixRoundSettings,
  where: { pullNumber: number; reviewer: string }
): RalphChoice | Refuse {
  const command = ask.command
  if (command?.kind === 'invalid')
    return refuseWithReply(where, command.problem, usage(availableRalphs(settings.projectRoot)))
  const choice = command ? commandRalph(command, settings) : resolveRalph(undefined, settings)
  if (!('problem' in choice)) return choice
  // Without a `/ralph` line the workflow chose the ralph: its problem fails the step, no one is told "no".
  return command
    ? refuseWithReply(where, choice.problem, usage(availableRalphs(settings.projectRoot)))
    : { kind: 'refuse', reason: choice.problem }
}

/** What was read about the pull request the review is on. */
export interface ReviewedPull {
  /** The fork the pull request comes from (from the event), or undefined for this repository. */
  fork: string | undefined
  /** The pull request as GitHub has it now, or why it cannot be worked on (closed, merged, unreadable). */
  pull: OpenPull | { problem: string }
  /** Whether the action opened it (its account, its marker). */
  ours: boolean
}

/**
 * Whether the pull request is one a review continues: this repository's, open, and the action's own. A fork's
 * with a `/ralph` line gets the reply a `/ralph` comment on it gets; everything else is a quiet skip.
 */
export function pullVerdict(
  ask: ReviewAsk,
  facts: ReviewedPull,
  where: { pullNumber: number; reviewer: string; repository: string }
): OpenPull | Skip | Refuse {
  if (facts.fork !== undefined) {
    const reason = `pull request #${where.pullNumber} comes from a fork (${facts.fork}); a round runs only on a branch of ${where.repository}`
    return ask.command ? refuseWithReply(where, reason) : skip(reason)
  }
  if ('problem' in facts.pull)
    return ask.command ? refuseWithReply(where, facts.pull.problem) : skip(facts.pull.problem)
  if (!facts.ours)
    return skip(
      `pull request #${where.pullNumber} is not the action's own (it is ${facts.pull.author.login || 'an unknown account'}'s): a review continues only the action's pull requests; a /ralph comment in its conversation starts a loop on it`
    )
  return facts.pull
}

/** The round's task and the threads it answers, from the review as the API gives it. */
async function readReview(
  octokit: Octokit,
  target: { owner: string; repo: string; pullNumber: number },
  trigger: PullRequestReviewTrigger
): Promise<{ review: Review; comments: ReviewComment[]; threads: ReviewThreadState[] | undefined } | Refuse> {
  let review: Review
  let comments: ReviewComment[]
  try {
    review = await getReview(octokit, target, trigger.review.id)
    comments = await listReviewComments(octokit, target, trigger.review.id)
  } catch (error) {
    const status = (error as { status?: number }).status
    return unchecked(`review ${trigger.review.id} could not be read${status ? ` (HTTP ${status})` : ''}`)
  }
  if (review.author.toLowerCase() !== trigger.review.author.toLowerCase())
    return unchecked(
      `review ${trigger.review.id} is ${review.author}'s on GitHub, not ${trigger.review.author}'s as the event says`
    )
  // Resolved and outdated marks help; without them (GraphQL refused or down) the round still runs, and says so.
  const threads = await reviewThreads(octokit, target).catch(() => undefined)
  return { review, comments, threads }
}

/** Decides whether this review starts a round; reads the API only as far as the decisions need. */
export async function admitReview(
  trigger: PullRequestReviewTrigger,
  settings: FixRoundSettings,
  octokit: Octokit
): Promise<Admission> {
  const asked = reviewAsks(trigger)
  if ('kind' in asked) return asked
  const number = trigger.pull.number
  const where = { pullNumber: number, reviewer: trigger.review.author }
  const repository = `${settings.owner}/${settings.repo}`
  // The action's own account never asks itself (its replies in a thread are reviews too).
  const author = { login: trigger.review.author, type: trigger.review.authorType }
  const own = settings.delivery
    ? [await settings.delivery.actor(), await settings.commenter()]
    : [await settings.commenter()]
  if (own.some(actor => isTokenActor(author, actor)))
    return skip(
      `the review is by ${trigger.review.author}, the account the action works as: a loop never starts a loop`
    )

  const actor = await checkActor(octokit, {
    owner: settings.owner,
    repo: settings.repo,
    login: trigger.review.author,
    allowedBots: settings.allowedBots
  })
  if (!actor.allowed) return refuseReviewer(asked, actor, where)

  const headRepo = trigger.pull.head.repo ?? ''
  const fork =
    headRepo.toLowerCase() === repository.toLowerCase() ? undefined : headRepo || 'a deleted repository'
  const pull = fork === undefined ? await sameRepoPull(octokit, settings, number) : { problem: 'a fork' }
  const ours =
    !('problem' in pull) &&
    settings.delivery !== undefined &&
    isOwnWork({ user: pull.author, body: pull.body }, await settings.delivery.actor(), PULL_REQUEST_MARKER)
  const open = pullVerdict(asked, { fork, pull, ours }, { ...where, repository })
  if ('kind' in open) return open
  // The ralph is chosen once the pull request is the action's own: a review of anyone else's is skipped quietly,
  // whatever the workflow's ralph settings.
  const choice = reviewRalph(asked, settings, where)
  if ('kind' in choice) return choice

  const key = reviewKey(trigger.review.id)
  const allowed = await nextRound(octokit, settings, {
    key,
    pullNumber: number,
    what: `review ${trigger.review.id}`
  })
  if ('kind' in allowed) return allowed
  const placed = await roundBranch(octokit, settings, {
    number,
    headRef: open.headRef,
    author: open.author,
    body: open.body
  })
  if (placed) return placed

  const target = { owner: settings.owner, repo: settings.repo, pullNumber: number }
  const read = await readReview(octokit, target, trigger)
  if ('kind' in read) return read
  const { author: _author, body: _body, ...pr } = open
  return {
    kind: 'run',
    event: 'pull_request_review',
    ...choice,
    args: asked.command?.kind === 'command' ? asked.command.args : {},
    task: renderReviewTask({
      pullNumber: number,
      review: { ...read.review, author: read.review.author || trigger.review.author },
      comments: read.comments,
      threads: read.threads
    }),
    taskSource: `review ${trigger.review.id} on pull request #${number}`,
    issueNumber: number,
    pr,
    branch: open.headRef,
    continueBranch: true,
    tracking: false,
    actor: { login: actor.login, role: actor.role },
    round: {
      kind: 'review',
      key,
      number: allowed.number,
      max: settings.maxFixRounds,
      pullNumber: number,
      reviewId: trigger.review.id,
      reviewer: trigger.review.author,
      reviewUrl: read.review.url,
      threads: reviewThreadRefs(read.comments, read.threads)
    }
  }
}
