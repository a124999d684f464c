// The one Octokit factory against the OpenAPI-checked GitHub stand-in with a fault schedule: what GitHub
// means as "try again" is retried (with the wait it asks for), what means no fails at once with no retry,
// and a POST whose answer was lost is found, not made twice.
import { afterAll, beforeAll, beforeEach, expect, test } from '@jest/globals'
import { githubClient, lazyClient, recoverBy, type ClientOptions } from '../../src/github/client.js'
import { retryTiming } from '../../src/github/retry.js'
import { postComment } from '../../src/github/comments.js'
import { RETRY_AFTER_SECONDS, type FaultKind } from '../support/faults.js'
import { startGitHubApi, type GitHubApi } from '../support/github-api/index.js'

const TOKEN = 'ghs_actions_token'
// Waits a thousandth of production; a request with no answer in 2 s is a stall.
const timing = retryTiming({ RALPH_ACTION_TEST_WAIT_SCALE: '0.001', RALPH_ACTION_TEST_TIMEOUT_MS: '2000' })
let api: GitHubApi
let issue: number

beforeAll(async () => {
  api = await startGitHubApi({ owner: 'acme', repo: 'widgets' })
  // The stand-in compiles each answer's schema on first use (up to a second on a loaded machine): not a stall.
  const warm = await githubClient(TOKEN, { baseUrl: api.url })
  const where = { owner: 'acme', repo: 'widgets' }
  const { number } = api.state.addIssue({ title: 'warm-up', user: 'acme' })
  await warm.rest.repos.get(where)
  await warm.rest.issues.createComment({ ...where, issue_number: number, body: 'warm-up' })
  await warm.rest.issues.listComments({ ...where, issue_number: number })
})
afterAll(async () => {
  await api.close()
})
beforeEach(() => {
  api.faults.clear()
  api.requests.length = 0
  issue = api.state.addIssue({ title: 'A bug', user: 'acme' }).number
})

async function client(options: Partial<ClientOptions> = {}) {
  const logs: string[] = []
  const octokit = await githubClient(TOKEN, {
    baseUrl: api.url,
    timing,
    log: m => logs.push(m),
    ...options
  })
  return { octokit, logs }
}

const calls = (operationId: string) => api.requests.filter(r => r.operationId === operationId)
const getRepo = (octokit: Awaited<ReturnType<typeof client>>['octokit']) =>
  octokit.rest.repos.get({ owner: 'acme', repo: 'widgets' })

test.each<FaultKind>(['502', '503', '429', 'secondary-rate-limit', 'rate-limit', 'reset', 'stall'])(
  'a %s is retried and the call succeeds',
  async kind => {
    api.faults.add('repos/get', 1, kind)
    const { octokit, logs } = await client()
    const started = Date.now()
    const { data } = await getRepo(octokit)
    expect(data.full_name).toBe('acme/widgets')
    expect(calls('repos/get').map(r => r.fault ?? r.status)).toEqual([kind, 200])
    expect(logs).toHaveLength(1)
    expect(logs[0]).toMatch(
      kind.includes('rate-limit') ? /rate limit on GET/ : /^GET \/repos\/\{owner\}\/\{repo\} failed/
    )
    // The wait the server asked for is honoured (in the test's scale); a stall is cut at the timeout.
    const asked = RETRY_AFTER_SECONDS[kind]
    if (asked !== undefined) expect(Date.now() - started).toBeGreaterThanOrEqual(asked * timing.msPerSecond)
    if (kind === 'stall') expect(Date.now() - started).toBeGreaterThanOrEqual(timing.requestTimeoutMs)
  }
)

test('a fault on every attempt: four attempts, then the error', async () => {
  for (let call = 1; call <= 5; call++) api.faults.add('repos/get', call, '502')
  const { octokit, logs } = await client()
  await expect(getRepo(octokit)).rejects.toMatchObject({ status: 502 })
  expect(calls('repos/get')).toHaveLength(timing.attempts)
  expect(logs).toHaveLength(timing.attempts - 1)
})

test('past the deadline no retry starts', async () => {
  api.faults.add('repos/get', 1, '503')
  const { octokit } = await client({ budget: { deadline: Date.now() - 1 } })
  await expect(getRepo(octokit)).rejects.toMatchObject({ status: 503 })
  expect(calls('repos/get')).toHaveLength(1)
})

test('a rate limit that resets after the deadline is not waited for', async () => {
  api.faults.add('repos/get', 1, 'rate-limit')
  // The reset is 20 s away (20 ms at this scale): a deadline 5 ms away comes first.
  const { octokit, logs } = await client({ budget: { deadline: Date.now() + 5 } })
  await expect(getRepo(octokit)).rejects.toMatchObject({ status: 403 })
  expect(calls('repos/get')).toHaveLength(1)
  expect(logs.join('\n')).toMatch(/more than the time left: not waiting/)
})

test.each([
  [401, 'Bad credentials'],
  [403, 'Resource not accessible by integration'],
  [404, 'Not Found'],
  [422, 'Validation Failed']
])('a %i (%s) fails at once: no retry', async (status, message) => {
  api.state.failures.next.push({ operationId: 'repos/get', status, body: { message } })
  const { octokit, logs } = await client()
  await expect(getRepo(octokit)).rejects.toMatchObject({ status, message: expect.stringContaining(message) })
  expect(calls('repos/get')).toHaveLength(1)
  expect(logs).toEqual([])
})

test.each<FaultKind>(['drop-response', 'reset', '502', 'stall'])(
  'a comment whose POST failed with %s is posted exactly once',
  async kind => {
    api.faults.add('issues/create-comment', 1, kind)
    const { octokit, logs } = await client()
    const posted = await postComment(
      octokit,
      { owner: 'acme', repo: 'widgets', issueNumber: issue },
      'The loop is running.'
    )
    const comments = api.state.comments.filter(c => c.issueNumber === issue)
    expect(comments).toHaveLength(1)
    expect(posted.id).toBe(comments[0].id)
    expect(comments[0].body).toMatch(/^The loop is running\.\n\n<!-- ralph-action:once [0-9a-f-]{36} -->$/)
    // Carried out (a dropped answer): found and reused. Not carried out: made again, once.
    const made = kind === 'drop-response'
    expect(calls('issues/create-comment')).toHaveLength(made ? 1 : 2)
    expect(logs.join('\n')).toMatch(made ? /GitHub had carried it out/ : /it was not carried out/)
  }
)

test('a POST whose look for what it made fails is not made again', async () => {
  api.faults.add('issues/create-comment', 1, 'drop-response')
  for (let call = 1; call <= 4; call++) api.faults.add('issues/list-comments', call, '502')
  const { octokit } = await client()
  await expect(
    octokit.rest.issues.createComment({
      owner: 'acme',
      repo: 'widgets',
      issue_number: issue,
      body: 'once',
      request: recoverBy(async () => {
        await octokit.rest.issues.listComments({ owner: 'acme', repo: 'widgets', issue_number: issue })
        return undefined
      })
    })
  ).rejects.toMatchObject({ status: 500 })
  expect(calls('issues/create-comment')).toHaveLength(1)
})

test('attack: a copy of the hidden key posted before the look is not taken for the comment GitHub made', async () => {
  api.faults.add('issues/create-comment', 1, 'drop-response')
  const { octokit } = await client()
  // Someone watching the issue copies the comment, key and all, the moment it appears.
  octokit.hook.before('request', options => {
    if (options.method !== 'GET' || !String(options.url).includes('/comments')) return
    const ours = api.state.comments.find(c => c.issueNumber === issue && c.user === 'github-actions[bot]')
    if (ours) api.state.addComment(issue, { body: ours.body, user: 'mallory' })
  })
  const posted = await postComment(octokit, { owner: 'acme', repo: 'widgets', issueNumber: issue }, 'Ours.')
  const ours = api.state.comments.find(c => c.issueNumber === issue && c.user === 'github-actions[bot]')
  expect(posted.id).toBe(ours?.id)
  expect(
    api.state.comments.filter(c => c.issueNumber === issue && c.user === 'github-actions[bot]')
  ).toHaveLength(1)
})

test('a secondary rate limit answered 429 is waited out once, as GitHub asks, not retried twice', async () => {
  api.state.failures.next.push({
    operationId: 'repos/get',
    status: 429,
    body: {
      message: 'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.'
    },
    headers: { 'retry-after': '30' }
  })
  const { octokit, logs } = await client()
  await getRepo(octokit)
  expect(calls('repos/get').map(r => r.status)).toEqual([429, 200])
  expect(logs).toEqual([
    expect.stringMatching(/^GitHub's secondary rate limit on GET \S+: waiting 30 s, as it asks\.$/)
  ])
})

test('a client without a token says which input is empty, instead of an Octokit stack', async () => {
  await expect(lazyClient('')()).rejects.toThrow(
    "Input 'github-token' is empty, and this step needs GitHub's API: leave it at its default (${{ github.token }}) or pass a token"
  )
})
