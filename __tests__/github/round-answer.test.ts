// What a round says when done, posted against the GitHub stand-in (REST and GraphQL checked): a reply naming
// the commit in each open thread of the review, the threads resolved only when asked, one summary comment
// whose marker then counts the round and answers the review; what cannot be posted is said, never thrown.
import { expect, test } from '@jest/globals'
import { conversationComments, listReviewComments, reviewThreads } from '../../src/github/reviews.js'
import { answerRound } from '../../src/github/round-answer.js'
import { readRounds } from '../../src/trigger/fix-rounds.js'
import { reviewThreadRefs } from '../../src/trigger/review-task.js'
import { planRoundAnswer, type RoundOutcome } from '../../src/trigger/round-replies.js'
import type { ReviewRound } from '../../src/trigger/types.js'
import { useStandIn } from './stand-in.js'

const repo = { serverUrl: 'https://github.com', owner: 'acme', repo: 'widgets' }
const SHA = '0123456789abcdef0123456789abcdef01234567'

const stand = useStandIn()

/** A review of three threads (the second resolved already), and its round as admitReview makes it. */
async function round(): Promise<{ round: ReviewRound; pullNumber: number }> {
  const pull = stand.api.state.addPull({
    title: 'ralph: fix',
    head: 'ralph/issue-1',
    user: 'github-actions[bot]'
  })
  const review = stand.api.state.addReview(pull.number, {
    user: 'alice',
    state: 'CHANGES_REQUESTED',
    comments: [
      { path: 'a.js', line: 1, body: 'one' },
      { path: 'b.js', line: 2, body: 'two' },
      { path: 'c.js', line: 3, body: 'three' }
    ]
  })
  stand.api.state.reviewThreads[1].resolved = true
  const target = { owner: 'acme', repo: 'widgets', pullNumber: pull.number }
  const threads = await reviewThreads(stand.octokit, target)
  return {
    pullNumber: pull.number,
    round: {
      kind: 'review',
      key: `review-${review.id}`,
      number: 1,
      max: 3,
      pullNumber: pull.number,
      reviewId: review.id,
      reviewer: 'alice',
      reviewUrl: `https://github.com/acme/widgets/pull/${pull.number}#pullrequestreview-${review.id}`,
      threads: reviewThreadRefs(await listReviewComments(stand.octokit, target, review.id), threads)
    }
  }
}

const pushed: RoundOutcome = {
  pushed: SHA,
  verified: SHA,
  stopReason: 'all_checks_passed',
  iterations: 2,
  gates: { start: { passed: 0, total: 1 }, end: { passed: 1, total: 1 } },
  costUsd: 0.12,
  runUrl: 'https://github.com/acme/widgets/actions/runs/9'
}

test('pushed: two replies name the commit (none in the resolved thread), nothing resolved, one summary that answers the review', async () => {
  const { round: r, pullNumber } = await round()
  const answer = await answerRound(
    stand.octokit,
    { owner: 'acme', repo: 'widgets', pullNumber },
    planRoundAnswer(r, pushed, { resolveThreads: false, repo })
  )
  expect(answer).toEqual({
    summaryUrl: expect.stringContaining(`/pull/${pullNumber}#issuecomment-`),
    replied: 2,
    resolved: 0,
    problems: []
  })
  const replies = stand.api.state.reviewComments.filter(c => c.inReplyToId !== undefined)
  expect(replies.map(c => stand.api.state.reviewComment(c.inReplyToId as number)?.path)).toEqual([
    'a.js',
    'c.js'
  ])
  for (const reply of replies)
    expect(reply.body).toContain(`[\`0123456789ab\`](https://github.com/acme/widgets/commit/${SHA})`)
  expect(stand.api.state.reviewThreads.map(t => t.resolved)).toEqual([false, true, false])
  const conversation = await conversationComments(stand.octokit, {
    owner: 'acme',
    repo: 'widgets',
    pullNumber
  })
  expect(conversation).toHaveLength(1)
  expect(readRounds(conversation, { kind: 'app', login: 'github-actions[bot]' }).answered).toEqual(
    new Set([r.key])
  )
})

test('with resolve-threads, the open threads are resolved too (GraphQL resolveReviewThread)', async () => {
  const { round: r, pullNumber } = await round()
  const answer = await answerRound(
    stand.octokit,
    { owner: 'acme', repo: 'widgets', pullNumber },
    planRoundAnswer(r, pushed, { resolveThreads: true, repo })
  )
  expect(answer).toMatchObject({ replied: 2, resolved: 2, problems: [] })
  expect(stand.api.state.reviewThreads.map(t => [t.resolved, t.resolvedBy])).toEqual([
    [true, 'github-actions[bot]'],
    [true, null],
    [true, 'github-actions[bot]']
  ])
})

test('nothing pushed: no reply, nothing resolved; the summary says why and still counts the round', async () => {
  const { round: r, pullNumber } = await round()
  const failed: RoundOutcome = {
    notPushed: 'the gates never all passed',
    stopReason: 'max_iterations',
    iterations: 4,
    runUrl: 'https://x'
  }
  const answer = await answerRound(
    stand.octokit,
    { owner: 'acme', repo: 'widgets', pullNumber },
    planRoundAnswer(r, failed, { resolveThreads: true, repo })
  )
  expect(answer).toMatchObject({ replied: 0, resolved: 0, problems: [] })
  expect(stand.api.state.reviewComments.filter(c => c.inReplyToId !== undefined)).toEqual([])
  expect(stand.api.state.comments[0].body).toContain('❌ Nothing was pushed')
  expect(
    readRounds(
      [{ user: { login: 'github-actions[bot]', type: 'Bot' }, body: stand.api.state.comments[0].body }],
      {
        kind: 'app',
        login: 'github-actions[bot]'
      }
    ).answered.size
  ).toBe(1)
})

test('what cannot be posted is said in the summary and returned, never thrown', async () => {
  const { round: r, pullNumber } = await round()
  stand.api.state.failures.next.push({
    operationId: 'pulls/create-reply-for-review-comment',
    status: 403,
    body: { message: 'Resource not accessible by integration' }
  })
  stand.api.state.failures.next.push({ operationId: 'graphql', status: 502, times: 4 })
  const answer = await answerRound(
    stand.octokit,
    { owner: 'acme', repo: 'widgets', pullNumber },
    planRoundAnswer(r, pushed, { resolveThreads: true, repo })
  )
  expect(answer.replied).toBe(1)
  expect(answer.resolved).toBe(1)
  expect(answer.problems).toEqual([
    expect.stringMatching(
      /^the reply to line comment \d+ could not be posted \(HTTP 403: Resource not accessible by integration/
    ),
    expect.stringMatching(/^review thread PRRT_\S+ could not be resolved \(HTTP 502/)
  ])
  expect(stand.api.state.comments[0].body).toMatch(/> \[!WARNING\]\n> - the reply to line comment/)
  stand.api.state.failures.next.push({
    operationId: 'issues/create-comment',
    status: 403,
    body: { message: 'Resource not accessible by integration' }
  })
  const lost = await answerRound(
    stand.octokit,
    { owner: 'acme', repo: 'widgets', pullNumber },
    { summary: 'x', replies: [], resolve: [] }
  )
  expect(lost.summaryUrl).toBeUndefined()
  expect(lost.problems).toEqual([
    expect.stringMatching(/^the round's summary could not be posted on #\d+ \(HTTP 403/)
  ])
})
