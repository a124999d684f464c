// Posts what a round says when it is done (planned by trigger/round-replies.ts): the replies in the review's
// threads first, then the threads resolved, then the one summary comment, which carries the round's marker
// and says what could not be posted. Each post is made exactly once; a failure is a warning, never the run's.
import type { Octokit } from './client.js'
import { postComment } from './comments.js'
import { replyInThread, resolveThread } from './reviews.js'

export interface PlannedAnswer {
  summary: string
  replies: { replyTo: number; body: string }[]
  resolve: string[]
}

export interface PostedAnswer {
  /** The summary comment's page; undefined when it could not be posted (the round then counts for nothing). */
  summaryUrl?: string
  replied: number
  resolved: number
  /** What could not be posted, one sentence each (for the log and the summary). */
  problems: string[]
}

const why = (error: unknown): string => {
  const status = (error as { status?: number }).status
  const message = (error as Error).message?.split('\n')[0] ?? String(error)
  return status ? `HTTP ${status}: ${message}` : message
}

/** Posts the round's answer on pull request `pullNumber`. */
export async function answerRound(
  octokit: Octokit,
  target: { owner: string; repo: string; pullNumber: number },
  plan: PlannedAnswer
): Promise<PostedAnswer> {
  const answer: PostedAnswer = { replied: 0, resolved: 0, problems: [] }
  for (const reply of plan.replies) {
    try {
      await replyInThread(octokit, target, reply.replyTo, reply.body)
      answer.replied++
    } catch (error) {
      answer.problems.push(`the reply to line comment ${reply.replyTo} could not be posted (${why(error)})`)
    }
  }
  for (const thread of plan.resolve) {
    try {
      await resolveThread(octokit, thread)
      answer.resolved++
    } catch (error) {
      answer.problems.push(`review thread ${thread} could not be resolved (${why(error)})`)
    }
  }
  const said = answer.problems.length
    ? `${plan.summary}\n\n> [!WARNING]\n${answer.problems.map(p => `> - ${p}`).join('\n')}`
    : plan.summary
  try {
    const posted = await postComment(
      octokit,
      { owner: target.owner, repo: target.repo, issueNumber: target.pullNumber },
      said
    )
    answer.summaryUrl = posted.html_url
  } catch (error) {
    answer.problems.push(`the round's summary could not be posted on #${target.pullNumber} (${why(error)})`)
  }
  return answer
}
