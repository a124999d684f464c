// What a round says when it is done, planned without the API: one summary comment on the pull request (its
// marker counts the round and marks its request answered), and, when verified work was pushed, a reply in each
// thread the review's line comments are in, naming the commit, and the threads to resolve when the workflow
// asks. Failing work is never pushed, so it gets no replies: the summary says why nothing changed.
import { cell, code } from '../text/markdown.js'
import { roundMarker } from './fix-rounds.js'
import { USER_LOGIN } from './permissions.js'
import { quote } from './quote.js'
import type { FixRound } from './types.js'

/** How a round ended, in plain values (the loop's result and the delivery's, as the action has them). */
export interface RoundOutcome {
  /** The verified commit pushed onto the pull request's branch; undefined when nothing was pushed. */
  pushed?: string
  /** Why nothing was pushed (the gates never passed, nothing changed…); said in the summary. */
  notPushed?: string
  /** The loop's stop reason (`all_checks_passed`, `max_iterations`…). */
  stopReason: string
  iterations: number
  /** Gates passing before the first iteration and after the last. */
  gates?: { start: { passed: number; total: number }; end: { passed: number; total: number } }
  costUsd?: number
  /** The commit the clean verification passed on. */
  verified?: string
  /** The run's page. */
  runUrl: string
  /** What on-failure did with failing work (never a push onto the pull request's branch). */
  onFailure?: string
}

export interface RoundAnswer {
  /** The pull request's comment that sums the round up; it carries the round's marker. */
  summary: string
  /** Replies to post, each in the thread `replyTo` starts. */
  replies: { replyTo: number; body: string }[]
  /** Threads to resolve (GraphQL ids), with resolve-threads: true. */
  resolve: string[]
}

const short = (sha: string): string => sha.slice(0, 12)
const mention = (login: string): string =>
  USER_LOGIN.test(login.replace(/\[bot\]$/, '')) ? `@${login}` : quote(login)

/** `<server>/<owner>/<repo>/commit/<sha>`. */
export const commitUrl = (repo: { serverUrl: string; owner: string; repo: string }, sha: string): string =>
  `${repo.serverUrl}/${repo.owner}/${repo.repo}/commit/${sha}`

function request(round: FixRound): string {
  if (round.kind === 'review') return `${mention(round.reviewer)}'s [review](${round.reviewUrl})`
  return `the failure of [CI run ${code(cell(round.workflow, 80))}](${round.runUrl}) on ${code(short(round.headSha))}`
}

const gatesText = (gates: RoundOutcome['gates']): string =>
  gates ? `${gates.start.passed}/${gates.start.total} → ${gates.end.passed}/${gates.end.total}` : '—'

/** The round's summary, its replies and the threads to resolve. */
export function planRoundAnswer(
  round: FixRound,
  outcome: RoundOutcome,
  options: { resolveThreads: boolean; repo: { serverUrl: string; owner: string; repo: string } }
): RoundAnswer {
  const pushed = outcome.pushed
  const open = round.kind === 'review' ? round.threads.filter(t => !t.resolved) : []
  const link = pushed ? `[${code(short(pushed))}](${commitUrl(options.repo, pushed)})` : ''
  const replies = pushed
    ? open.map(t => ({
        replyTo: t.replyTo,
        body: `Addressed in ${link}: a ralph loop's round for this review, pushed onto this pull request once its gates passed on a clean checkout of that commit.`
      }))
    : []
  const resolve = pushed && options.resolveThreads ? open.flatMap(t => (t.threadId ? [t.threadId] : [])) : []
  const kind = round.kind === 'review' ? 'Review' : 'CI'
  const lines = [
    roundMarker(round),
    `### ralph: ${kind.toLowerCase()} round ${round.number} of at most ${round.max} on this pull request`,
    `Answering ${request(round)}.`,
    pushed
      ? `✅ Pushed ${link} onto this pull request's branch: every gate passes, and passed again on a clean checkout of that commit.` +
        (replies.length
          ? ` Each open thread of the review got a reply naming it${resolve.length ? ', and was resolved' : ''}.`
          : '')
      : `❌ Nothing was pushed onto this pull request's branch: ${outcome.notPushed ?? 'the round did not end with verified work'}.` +
        (outcome.onFailure ? ` ${outcome.onFailure}` : ''),
    [
      '| iterations | gates (start → end) | cost | verified commit | stopped |',
      '|---|---|---|---|---|',
      `| ${outcome.iterations} | ${gatesText(outcome.gates)} | ${outcome.costUsd !== undefined ? `$${outcome.costUsd.toFixed(2)}` : '—'} | ${outcome.verified ? code(short(outcome.verified)) : '—'} | ${code(cell(outcome.stopReason, 40))} |`
    ].join('\n'),
    `[The run](${outcome.runUrl}) has its record.`
  ]
  return { summary: lines.join('\n\n'), replies, resolve }
}
