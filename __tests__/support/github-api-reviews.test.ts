/* eslint-disable @typescript-eslint/no-explicit-any -- GraphQL answers and error bodies are untyped JSON */
// The stand-in's reviews, line comments and replies, jobs and their logs (REST, checked against GitHub's
// OpenAPI description), the blob store a log's URL points to, and the GraphQL endpoint (checked against the
// slice of GitHub's GraphQL schema it serves), driven by the real Octokit from @actions/github.
import { getOctokit } from '@actions/github'
import {
  checkEventPayload,
  startGitHubApi,
  type GitHubApi,
  type GitHubApiOptions
} from './github-api/index.js'

const TOKEN = 'ghs_actions_token'
const repo = { owner: 'acme', repo: 'widgets' }
let api: GitHubApi | undefined

async function start(options: GitHubApiOptions = {}) {
  api = await startGitHubApi({ ...repo, ...options })
  api.state.addUser('alice', { role: 'write' })
  api.state.addUser('rita', { role: 'read' })
  return { api, octokit: getOctokit(TOKEN, { baseUrl: api.url }) }
}

async function failure(promise: Promise<unknown>): Promise<{ status: number; data: any }> {
  try {
    await promise
  } catch (error) {
    const e = error as { status: number; response?: { data: unknown } }
    return { status: e.status, data: e.response?.data }
  }
  throw new Error('expected the request to fail')
}

afterEach(async () => {
  const done = api
  api = undefined
  if (!done) return
  await done.close()
  // Whatever a test did, the stand-in itself must have answered within the description.
  expect(done.responseProblems).toEqual([])
  expect(done.unimplemented).toEqual([])
})

/** A pull request with a writer's review of two line comments: a range on the new code, one outdated. */
function reviewed(a: GitHubApi) {
  const pull = a.state.addPull({ title: 'ralph: fix the parser', head: 'ralph/issue-1' })
  const review = a.state.addReview(pull.number, {
    user: 'alice',
    state: 'CHANGES_REQUESTED',
    body: 'Two things.',
    comments: [
      {
        path: 'src/parse.js',
        startLine: 10,
        line: 12,
        body: 'This drops the last row.',
        diffHunk: '@@ -8,5 +8,6 @@\n const rows = []\n-for (;;) {\n+while (more()) {'
      },
      { path: 'src/old.js', line: 4, side: 'LEFT', body: 'Why remove this?', outdated: true }
    ]
  })
  return { pull, review }
}

describe('reviews and their line comments', () => {
  test('a review and its line comments read as GitHub renders them: range, side, hunk; an outdated one has no line', async () => {
    const { api, octokit } = await start()
    const { pull, review } = reviewed(api)
    const got = await octokit.rest.pulls.getReview({
      ...repo,
      pull_number: pull.number,
      review_id: review.id
    })
    expect(got.data).toMatchObject({
      id: review.id,
      state: 'CHANGES_REQUESTED',
      body: 'Two things.',
      user: { login: 'alice' },
      commit_id: pull.headSha
    })
    const comments = await octokit.rest.pulls.listCommentsForReview({
      ...repo,
      pull_number: pull.number,
      review_id: review.id
    })
    expect(comments.data).toHaveLength(2)
    expect(comments.data[0]).toMatchObject({
      path: 'src/parse.js',
      start_line: 10,
      line: 12,
      side: 'RIGHT',
      start_side: 'RIGHT',
      subject_type: 'line',
      pull_request_review_id: review.id,
      diff_hunk: expect.stringContaining('+while (more()) {')
    })
    expect(comments.data[1]).toMatchObject({ path: 'src/old.js', side: 'LEFT', original_line: 4 })
    expect(comments.data[1]).not.toHaveProperty('line')
    expect(comments.data[1].original_commit_id).not.toBe(comments.data[1].commit_id)
    // Another pull request's review is not found through this one.
    const other = api.state.addPull({ title: 'other', head: 'feature' })
    expect(
      (
        await failure(
          octokit.rest.pulls.getReview({ ...repo, pull_number: other.number, review_id: review.id })
        )
      ).status
    ).toBe(404)
    expect(api.violations).toEqual([])
  })

  test('a reply goes into the thread as a review of its own; a reply to a reply is refused; the pull request lists both', async () => {
    const { api, octokit } = await start()
    const { pull, review } = reviewed(api)
    const root = review.comments[0]
    const reply = await octokit.rest.pulls.createReplyForReviewComment({
      ...repo,
      pull_number: pull.number,
      comment_id: root.id,
      body: 'Addressed in abc1234.'
    })
    expect(reply.status).toBe(201)
    expect(reply.data).toMatchObject({
      in_reply_to_id: root.id,
      path: 'src/parse.js',
      line: 12,
      user: { login: 'github-actions[bot]' }
    })
    expect(api.state.reviews.at(-1)).toMatchObject({ state: 'COMMENTED', user: 'github-actions[bot]' })
    const again = await failure(
      octokit.rest.pulls.createReplyForReviewComment({
        ...repo,
        pull_number: pull.number,
        comment_id: reply.data.id,
        body: 'x'
      })
    )
    expect(again.status).toBe(422)
    const all = await octokit.rest.pulls.listReviewComments({ ...repo, pull_number: pull.number })
    expect(all.data.map(c => c.id).sort()).toEqual([...review.comments.map(c => c.id), reply.data.id].sort())
    expect(api.violations).toEqual([])
  })

  test("a review's event payload agrees with the API and with GitHub's webhook schema", async () => {
    const { api } = await start()
    const { pull, review } = reviewed(api)
    const event = api.events.pullRequestReview(review.id) as any
    expect(checkEventPayload('pull-request-review-submitted', event)).toEqual([])
    expect(event).toMatchObject({
      action: 'submitted',
      review: { id: review.id, state: 'changes_requested', user: { login: 'alice' } },
      pull_request: { number: pull.number, head: { ref: 'ralph/issue-1' } },
      sender: { login: 'alice' }
    })
    const bodiless = api.state.addReview(pull.number, { user: 'alice', state: 'COMMENTED' })
    const payload = api.events.pullRequestReview(bodiless.id) as any
    expect(payload.review.body).toBeNull()
    expect(checkEventPayload('pull-request-review-submitted', payload)).toEqual([])
  })
})

describe('jobs of a workflow run and their logs', () => {
  const LOG = '2026-01-05T10:00:00.0000000Z ##[group]Run npm test\n2026-01-05T10:00:01.0000000Z 1 failing\n'

  function failedRun(a: GitHubApi) {
    const run = a.state.addRun({
      workflowPath: '.github/workflows/ci.yml',
      headBranch: 'ralph/issue-1',
      event: 'pull_request',
      status: 'completed',
      conclusion: 'failure'
    })
    const test = a.state.addJob(run.id, {
      name: 'test',
      steps: [
        { name: 'Set up job', conclusion: 'success' },
        { name: 'Run npm test', conclusion: 'failure' }
      ],
      log: LOG
    })
    const lint = a.state.addJob(run.id, { name: 'lint', conclusion: 'success', log: 'ok\n' })
    return { run, test, lint }
  }

  test("a run's jobs list with their steps; only the latest attempt's by default", async () => {
    const { api, octokit } = await start()
    const { run, test } = failedRun(api)
    api.state.addJob(run.id, { name: 'test', runAttempt: 0, log: 'first attempt' })
    const jobs = await octokit.rest.actions.listJobsForWorkflowRun({ ...repo, run_id: run.id })
    expect(jobs.data.total_count).toBe(2)
    expect(jobs.data.jobs[0]).toMatchObject({
      id: test.id,
      name: 'test',
      conclusion: 'failure',
      head_branch: 'ralph/issue-1',
      steps: [
        { number: 1, name: 'Set up job', conclusion: 'success' },
        { number: 2, name: 'Run npm test', conclusion: 'failure' }
      ]
    })
    const all = await octokit.rest.actions.listJobsForWorkflowRun({ ...repo, run_id: run.id, filter: 'all' })
    expect(all.data.total_count).toBe(3)
    expect(api.violations).toEqual([])
  })

  test("a job's log is a 302 to a signed URL of the blob store, which serves it (and a Range of it) without the token", async () => {
    const { api, octokit } = await start()
    const { test } = failedRun(api)
    const redirect = await octokit.rest.actions.downloadJobLogsForWorkflowRun({
      ...repo,
      job_id: test.id,
      request: { redirect: 'manual' }
    })
    expect(redirect.status).toBe(302)
    const location = String(redirect.headers.location)
    expect(location).toMatch(/\/_blob\/job-logs\/\d+\?se=\d+&sig=/)
    const plain = await fetch(location)
    expect(plain.status).toBe(200)
    expect(await plain.text()).toBe(LOG)
    const ranged = await fetch(location, { headers: { range: 'bytes=10-' } })
    expect(ranged.status).toBe(206)
    expect(await ranged.text()).toBe(LOG.slice(10))
    expect(api.violations).toEqual([])
    expect(api.state.logDownloads.map(d => [d.status, d.authorization])).toEqual([
      [200, false],
      [206, false]
    ])
  })

  test('the blob store refuses the API token, an unsigned or expired URL; a job without a log is a 404', async () => {
    const { api, octokit } = await start()
    const { test } = failedRun(api)
    // Octokit following the redirect itself, on the same host, would send the token: refused.
    const followed = await failure(
      octokit.rest.actions.downloadJobLogsForWorkflowRun({ ...repo, job_id: test.id })
    )
    expect(followed.status).toBe(400)
    const redirect = await octokit.rest.actions.downloadJobLogsForWorkflowRun({
      ...repo,
      job_id: test.id,
      request: { redirect: 'manual' }
    })
    const location = new URL(String(redirect.headers.location))
    location.searchParams.set('sig', 'forged')
    expect((await fetch(location)).status).toBe(403)
    const noLog = api.state.addJob(test.runId, { name: 'queued', status: 'queued', conclusion: null })
    expect(
      (await failure(octokit.rest.actions.downloadJobLogsForWorkflowRun({ ...repo, job_id: noLog.id })))
        .status
    ).toBe(404)
    expect(api.violations.map(v => [v.kind, v.message])).toEqual([
      ['blob', 'the job log download URL was sent an Authorization header (the API token)'],
      ['blob', 'the job log download URL is not signed, or has expired']
    ])
  })

  test('jobs and logs need `actions: read`', async () => {
    const { api, octokit } = await start()
    const { run, test } = failedRun(api)
    api.state.actionsPermission.set(TOKEN, 'none')
    expect(
      (await failure(octokit.rest.actions.listJobsForWorkflowRun({ ...repo, run_id: run.id }))).status
    ).toBe(403)
    expect(
      (await failure(octokit.rest.actions.downloadJobLogsForWorkflowRun({ ...repo, job_id: test.id }))).status
    ).toBe(403)
  })

  test("a completed run's event payload agrees with GitHub's webhook schema", async () => {
    const { api } = await start()
    const { run } = failedRun(api)
    const event = api.events.workflowRun(run.id) as any
    expect(checkEventPayload('workflow-run-completed', event)).toEqual([])
    expect(event).toMatchObject({
      action: 'completed',
      workflow: { path: '.github/workflows/ci.yml' },
      workflow_run: {
        id: run.id,
        conclusion: 'failure',
        head_branch: 'ralph/issue-1',
        path: '.github/workflows/ci.yml'
      }
    })
  })
})

describe('GraphQL: review threads and resolveReviewThread', () => {
  const THREADS = `query Threads($owner: String!, $repo: String!, $number: Int!, $cursor: String) {
    repository(owner: $owner, name: $repo) {
      pullRequest(number: $number) {
        reviewThreads(first: 1, after: $cursor) {
          pageInfo { hasNextPage endCursor }
          nodes { id isResolved isOutdated path line comments(first: 10) { nodes { fullDatabaseId body } } }
        }
      }
    }
  }`

  test('threads page by cursor, with resolved and outdated state and their comments; a thread resolves once', async () => {
    const { api, octokit } = await start()
    const { pull, review } = reviewed(api)
    const page = (cursor: string | null) =>
      octokit.graphql<any>(THREADS, { ...repo, number: pull.number, cursor })
    const first = await page(null)
    const threads = first.repository.pullRequest.reviewThreads
    expect(threads.nodes).toEqual([
      {
        id: expect.stringMatching(/^PRRT_/),
        isResolved: false,
        isOutdated: false,
        path: 'src/parse.js',
        line: 12,
        comments: {
          nodes: [{ fullDatabaseId: String(review.comments[0].id), body: 'This drops the last row.' }]
        }
      }
    ])
    expect(threads.pageInfo.hasNextPage).toBe(true)
    const second = await page(threads.pageInfo.endCursor)
    expect(second.repository.pullRequest.reviewThreads.nodes[0]).toMatchObject({
      isOutdated: true,
      line: null,
      path: 'src/old.js'
    })
    expect(second.repository.pullRequest.reviewThreads.pageInfo.hasNextPage).toBe(false)

    const resolve = `mutation Resolve($id: ID!) { resolveReviewThread(input: { threadId: $id }) { thread { id isResolved } } }`
    const resolved = await octokit.graphql<any>(resolve, { id: threads.nodes[0].id })
    expect(resolved.resolveReviewThread.thread).toEqual({ id: threads.nodes[0].id, isResolved: true })
    expect(api.state.reviewThreads[0]).toMatchObject({ resolved: true, resolvedBy: 'github-actions[bot]' })
    expect(api.violations).toEqual([])
    expect(api.requests.map(r => r.operationId)).toEqual([
      'graphql:query Threads',
      'graphql:query Threads',
      'graphql:mutation Resolve'
    ])
  })

  test.each([
    [
      'a field GitHub does not have',
      `query { repository(owner: "acme", name: "widgets") { pullRequest(number: 1) { reviewThreads(first: 1) { nodes { resolved } } } } }`,
      {},
      "Field 'resolved' doesn't exist on type 'PullRequestReviewThread'"
    ],
    [
      'a required argument left out',
      `query { repository(owner: "acme", name: "widgets") { pullRequest { id } } }`,
      {},
      "Field 'pullRequest' is missing required arguments: number"
    ],
    [
      'an object without a selection',
      `query { repository(owner: "acme", name: "widgets") { pullRequest(number: 1) } }`,
      {},
      "Field must have selections (field 'pullRequest' returns PullRequest but has no selections. Did you mean 'pullRequest { ... }'?)"
    ],
    [
      'a variable of the wrong type',
      `query Q($n: String!) { repository(owner: "acme", name: "widgets") { pullRequest(number: $n) { id } } }`,
      { n: '1' },
      'Type mismatch on variable $n and argument number (String! / Int!)'
    ],
    [
      'a nullable variable for a required argument',
      `query Q($n: Int) { repository(owner: "acme", name: "widgets") { pullRequest(number: $n) { id } } }`,
      { n: 1 },
      'Nullability mismatch on variable $n and argument number (Int / Int!)'
    ],
    [
      'a variable declared and not used',
      `query Q($n: Int!) { repository(owner: "acme", name: "widgets") { id } }`,
      { n: 1 },
      'Variable $n is declared by Q but not used'
    ],
    [
      'a value that is not the declared type',
      `query Q($n: Int!) { repository(owner: "acme", name: "widgets") { pullRequest(number: $n) { id } } }`,
      { n: 'one' },
      'Variable $n of type Int! was provided invalid value'
    ],
    [
      'the deprecated 32-bit databaseId',
      `query { repository(owner: "acme", name: "widgets") { pullRequest(number: 1) { reviewThreads(first: 1) { nodes { comments(first: 1) { nodes { databaseId } } } } } } }`,
      {},
      'PullRequestReviewComment.databaseId is deprecated'
    ],
    ['a fragment', `query { ...F }`, {}, 'Parse error on "..." (ELLIPSIS) at [1, 9]']
  ])('%s is answered as GitHub answers it, and listed', async (_what, query, variables, message) => {
    const { api, octokit } = await start()
    reviewed(api)
    await octokit.graphql(query, variables).catch(() => undefined)
    expect(api.violations.map(v => v.message).join('\n')).toContain(message)
    expect(api.violations.every(v => v.kind === 'graphql')).toBe(true)
  })

  test('a connection needs first or last, at most 100; a read-only token cannot resolve; an unknown thread is NOT_FOUND', async () => {
    const { api, octokit } = await start()
    const { pull } = reviewed(api)
    const threads = (n: string) =>
      `query { repository(owner: "acme", name: "widgets") { pullRequest(number: ${pull.number}) { reviewThreads${n} { totalCount } } } }`
    await expect(octokit.graphql(threads(''))).rejects.toThrow(/must provide a `first` or `last` value/)
    await expect(octokit.graphql(threads('(first: 101)'))).rejects.toThrow(/exceeds the `first` limit of 100/)
    const resolve = `mutation R($id: ID!) { resolveReviewThread(input: { threadId: $id }) { thread { isResolved } } }`
    await expect(octokit.graphql(resolve, { id: 'PRRT_nope' })).rejects.toThrow(/Could not resolve to a node/)
    api.state.readOnlyTokens.add(TOKEN)
    await expect(octokit.graphql(resolve, { id: api.state.reviewThreads[0].id })).rejects.toThrow(
      /Resource not accessible by integration/
    )
    expect(api.state.reviewThreads[0].resolved).toBe(false)
    expect(api.violations).toEqual([])
  })
})
