// A pull request's reviews read and answered through the one Octokit factory, against the GitHub stand-in
// (REST checked against the OpenAPI description, GraphQL against GitHub's schema): the review and its line
// comments where they were left, the threads' state, a reply posted exactly once, a thread resolved.
import { expect, test } from '@jest/globals'
import {
  getReview,
  listReviewComments,
  replyInThread,
  resolveThread,
  reviewThreads
} from '../../src/github/reviews.js'
import type { FaultKind } from '../support/faults.js'
import { TOKEN, useStandIn } from './stand-in.js'

const stand = useStandIn()

function reviewed() {
  const pull = stand.api.state.addPull({ title: 'ralph: fix the parser', head: 'ralph/issue-1' })
  const review = stand.api.state.addReview(pull.number, {
    user: 'alice',
    state: 'CHANGES_REQUESTED',
    body: 'Two things.',
    comments: [
      { path: 'src/parse.js', startLine: 10, line: 12, body: 'This drops the last row.' },
      { path: 'src/old.js', line: 4, side: 'LEFT', body: 'Why remove this?', outdated: true },
      { path: 'README.md', body: 'Say so in the README.' }
    ]
  })
  return { pull, review, target: { owner: 'acme', repo: 'widgets', pullNumber: pull.number } }
}

test('a review and its line comments read where they were left: a range, an outdated line, a whole file, a reply', async () => {
  const { review, target } = reviewed()
  const reply = stand.api.state.addReview(target.pullNumber, {
    user: 'alice',
    state: 'COMMENTED',
    comments: [{ path: '', body: 'And the header too.', inReplyTo: review.comments[0].id }]
  })
  expect(await getReview(stand.octokit, target, review.id)).toMatchObject({
    id: review.id,
    body: 'Two things.',
    state: 'CHANGES_REQUESTED',
    author: 'alice',
    authorType: 'User'
  })
  const comments = await listReviewComments(stand.octokit, target, review.id)
  expect(comments).toEqual([
    expect.objectContaining({
      path: 'src/parse.js',
      subject: 'line',
      line: 12,
      startLine: 10,
      side: 'RIGHT',
      startSide: 'RIGHT'
    }),
    expect.objectContaining({ path: 'src/old.js', line: null, originalLine: 4, side: 'LEFT' }),
    expect.objectContaining({ path: 'README.md', subject: 'file', line: null })
  ])
  expect(comments[0]).not.toHaveProperty('inReplyTo')
  expect(await listReviewComments(stand.octokit, target, reply.id)).toEqual([
    expect.objectContaining({ inReplyTo: review.comments[0].id, line: 12, path: 'src/parse.js' })
  ])
})

test("every thread's state is read, page by page, with its comments' REST ids", async () => {
  const { review, target } = reviewed()
  stand.api.state.reviewThreads[0].resolved = true
  for (let i = 0; i < 101; i++)
    stand.api.state.addReview(target.pullNumber, {
      user: 'alice',
      state: 'COMMENTED',
      comments: [{ path: `f${i}.js`, line: 1, body: 'nit' }]
    })
  const threads = await reviewThreads(stand.octokit, target)
  expect(threads).toHaveLength(104)
  expect(threads.slice(0, 3)).toEqual([
    {
      id: expect.stringMatching(/^PRRT_/),
      resolved: true,
      outdated: false,
      commentIds: [review.comments[0].id]
    },
    { id: expect.any(String), resolved: false, outdated: true, commentIds: [review.comments[1].id] },
    { id: expect.any(String), resolved: false, outdated: false, commentIds: [review.comments[2].id] }
  ])
  expect(stand.api.requests.filter(r => r.operationId === 'graphql:query ReviewThreads')).toHaveLength(2)
})

test.each<FaultKind>(['drop-response', '502'])(
  'a reply whose POST failed with %s is posted once, in the thread',
  async kind => {
    const { review, target } = reviewed()
    stand.api.faults.add('pulls/create-reply-for-review-comment', 1, kind)
    const root = review.comments[0].id
    const posted = await replyInThread(stand.octokit, target, root, 'Addressed in abc1234.')
    const replies = stand.api.state.reviewComments.filter(c => c.inReplyToId === root)
    expect(replies).toHaveLength(1)
    expect(posted.id).toBe(replies[0].id)
    expect(replies[0].body).toMatch(/^Addressed in abc1234\.\n\n<!-- ralph-action:once [0-9a-f-]{36} -->$/)
  }
)

test('a thread is resolved; one that does not exist, or a token that may not, is an error', async () => {
  const { target } = reviewed()
  const [first] = await reviewThreads(stand.octokit, target)
  await resolveThread(stand.octokit, first.id)
  expect(stand.api.state.reviewThreads[0]).toMatchObject({
    resolved: true,
    resolvedBy: 'github-actions[bot]'
  })
  await expect(resolveThread(stand.octokit, 'PRRT_nothing')).rejects.toThrow(/Could not resolve to a node/)
  stand.api.state.readOnlyTokens.add(TOKEN)
  await expect(resolveThread(stand.octokit, stand.api.state.reviewThreads[1].id)).rejects.toThrow(
    /Resource not accessible by integration/
  )
  expect(stand.api.state.reviewThreads[1].resolved).toBe(false)
})
