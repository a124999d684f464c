// Pull request delivery against the GitHub REST stand-in, which checks every request against GitHub's OpenAPI
// description: created or updated (never duplicated), the race GitHub answers with "already exists", the 422
// right after creation, and the refusals that need a setting changed.
import { getOctokit } from '@actions/github'
import {
  findOpenPullRequest,
  listOpenPullRequests,
  MAX_PR_BODY_CHARS,
  openOrUpdatePullRequest,
  truncateBody,
  withNodeRetry
} from '../../src/github/pulls.js'
import { PULL_REQUEST_FAILURE, PullRequestError } from '../../src/github/errors.js'
import { PULL_REQUEST_MARKER } from '../../src/report/pr-body.js'
import { startGitHubApi, type GitHubApi } from '../support/github-api/index.js'

const TOKEN = 'ghs_actions_token'
let api: GitHubApi

beforeEach(async () => {
  api = await startGitHubApi({ owner: 'acme', repo: 'widgets' })
  api.state.addUser('alice', { role: 'write' })
  api.state.addUser('bob', { role: 'maintain' })
  api.state.teams.add('reviewers')
})
afterEach(async () => {
  const { violations, unimplemented } = api
  await api.close()
  // Every request must have been one GitHub accepts, for an operation the stand-in implements.
  expect(violations).toEqual([])
  expect(unimplemented).toEqual([])
})

const octokit = () => getOctokit(TOKEN, { baseUrl: api.url })
const options = {
  owner: 'acme',
  repo: 'widgets',
  head: 'ralph/fix',
  base: 'main',
  title: 'ralph fix: all gates pass',
  body: `${PULL_REQUEST_MARKER}\nWhat was asked, and how the gates went.`,
  // The job's GITHUB_TOKEN acts as github-actions[bot]: the stand-in's pull requests made with it are its.
  ownedBy: { kind: 'app', login: 'github-actions[bot]' } as const,
  retry: { baseDelayMs: 1 }
}
const operations = () => api.requests.map(r => `${r.operationId}:${r.status}`)

test('a new pull request is created with labels, reviewers (users and org/team) and assignees', async () => {
  const logs: string[] = []
  const result = await openOrUpdatePullRequest(octokit(), {
    ...options,
    draft: true,
    labels: ['ralph', 'automated'],
    reviewers: ['alice', 'acme/reviewers'],
    assignees: ['@bob'],
    log: l => logs.push(l)
  })
  expect(result).toEqual({
    number: 1,
    url: 'https://github.com/acme/widgets/pull/1',
    operation: 'created',
    nodeId: expect.stringMatching(/^PR_/),
    draft: true,
    bodyTruncated: false,
    warnings: []
  })
  expect(api.state.pulls[0]).toMatchObject({
    title: options.title,
    body: options.body,
    head: 'ralph/fix',
    base: 'main',
    draft: true,
    labels: ['ralph', 'automated'],
    requestedReviewers: ['alice'],
    requestedTeams: ['reviewers'],
    assignees: ['bob']
  })
  expect(api.requests.find(r => r.operationId === 'pulls/list')?.query).toMatchObject({
    head: 'acme:ralph/fix',
    base: 'main',
    state: 'open'
  })
  expect(logs).toContain('Created pull request #1 (acme:ralph/fix → main).')
})

test('a second run updates the open pull request instead of opening another', async () => {
  const first = await openOrUpdatePullRequest(octokit(), options)
  const second = await openOrUpdatePullRequest(octokit(), {
    ...options,
    title: 'ralph fix: all gates pass (second run)',
    body: 'Updated body',
    labels: ['ralph']
  })
  expect(second).toMatchObject({ number: first.number, operation: 'updated', url: first.url })
  expect(api.state.pulls).toHaveLength(1)
  expect(api.state.pulls[0]).toMatchObject({
    title: 'ralph fix: all gates pass (second run)',
    body: 'Updated body'
  })
  expect(operations().filter(o => o.startsWith('pulls/create'))).toHaveLength(1)
})

test('a pull request opened by someone else between the look and the create is left alone: the call fails, saying whose it is', async () => {
  const theirs = api.state.addPull({
    title: 'opened meanwhile',
    head: 'ralph/fix',
    base: 'main',
    user: 'alice'
  })
  // The first look happens before it exists.
  api.state.failures.next.push({ operationId: 'pulls/list', status: 200, body: [] })
  const error = await openOrUpdatePullRequest(octokit(), options).catch(e => e)
  expect(error).toMatchObject({ kind: PULL_REQUEST_FAILURE.notOurs })
  expect(error.message).toBe(
    `pull request #${theirs.number} on acme:ralph/fix was not opened by this action (it is alice's, and only github-actions[bot]'s marked pull requests are the action's): it was left as it is`
  )
  expect(operations()).toEqual(['pulls/list:200', 'pulls/create:422', 'pulls/list:200'])
  expect(api.state.pulls[0]).toMatchObject({ title: 'opened meanwhile', body: null })
})

test("a stranger's open pull request on the head is never updated: a person's with the marker, a bot's with the marker, the action's own without it", async () => {
  api.state.addUser('dependabot[bot]', { type: 'Bot', role: 'write' })
  for (const [user, body] of [
    ['alice', `${PULL_REQUEST_MARKER}\nmine`],
    ['dependabot[bot]', `Bumps x.\n<details>${PULL_REQUEST_MARKER}</details>`],
    ['github-actions[bot]', 'a workflow of mine']
  ] as const) {
    const theirs = api.state.addPull({ title: 'theirs', head: 'ralph/fix', base: 'main', user, body })
    const error = await openOrUpdatePullRequest(octokit(), options).catch(e => e)
    expect({ user, error }).toMatchObject({ user, error: { kind: PULL_REQUEST_FAILURE.notOurs } })
    expect(theirs).toMatchObject({ title: 'theirs', body })
    theirs.state = 'closed'
  }
  expect(operations().filter(o => o.startsWith('pulls/update'))).toEqual([])
})

test('GitHub\'s 422 "Could not resolve to a node" right after creation is retried for labels and reviewers', async () => {
  api.state.failures.unresolvedNodeAfterCreate = { labels: 2, reviewers: 1 }
  const logs: string[] = []
  const result = await openOrUpdatePullRequest(octokit(), {
    ...options,
    labels: ['ralph'],
    reviewers: ['alice'],
    log: l => logs.push(l)
  })
  expect(result.warnings).toEqual([])
  expect(api.state.pulls[0]).toMatchObject({ labels: ['ralph'], requestedReviewers: ['alice'] })
  expect(operations().filter(o => o.startsWith('issues/add-labels'))).toEqual([
    'issues/add-labels:422',
    'issues/add-labels:422',
    'issues/add-labels:200'
  ])
  expect(operations().filter(o => o.startsWith('pulls/request-reviewers'))).toEqual([
    'pulls/request-reviewers:422',
    'pulls/request-reviewers:201'
  ])
  expect(logs.filter(l => l.includes('could not resolve the new pull request yet'))).toHaveLength(3)
})

test('when the retries run out, the pull request stands and the failure is a warning', async () => {
  api.state.failures.unresolvedNodeAfterCreate = { labels: 10, reviewers: 0 }
  const result = await openOrUpdatePullRequest(octokit(), {
    ...options,
    labels: ['ralph'],
    reviewers: ['mallory'],
    retry: { attempts: 3, baseDelayMs: 1 }
  })
  expect(result.operation).toBe('created')
  expect(operations().filter(o => o.startsWith('issues/add-labels'))).toHaveLength(3)
  expect(result.warnings).toEqual([
    expect.stringMatching(
      /^Could not add the labels ralph on the pull request: .*Could not resolve to a node/
    ),
    expect.stringMatching(
      /^Could not request reviews from mallory .*Reviews may only be requested from collaborators/
    )
  ])
})

test('"GitHub Actions is not permitted to create or approve pull requests" says which setting to change', async () => {
  api.state.failures.actionsCannotCreatePullRequests = true
  const error = await openOrUpdatePullRequest(octokit(), options).catch(e => e)
  expect(error).toBeInstanceOf(PullRequestError)
  expect(error).toMatchObject({ kind: PULL_REQUEST_FAILURE.actionsNotPermitted, status: 403 })
  expect(error.message).toMatch(
    /Settings → Actions → General → Workflow permissions → "Allow GitHub Actions to create and approve pull requests"/
  )
  expect(error.message).toMatch(/organisation's Settings → Actions → General/)
  expect(error.message).toMatch(/PAT or GitHub App token/)
})

test('a 403 "Resource not accessible by integration" asks for pull-requests: write', async () => {
  api.state.failures.next.push({
    operationId: 'pulls/create',
    status: 403,
    body: {
      message: 'Resource not accessible by integration',
      documentation_url: 'https://docs.github.com/rest/pulls/pulls#create-a-pull-request',
      status: '403'
    }
  })
  const error = await openOrUpdatePullRequest(octokit(), options).catch(e => e)
  expect(error).toMatchObject({ kind: PULL_REQUEST_FAILURE.missingPermission, status: 403 })
  expect(error.message).toMatch(/permissions: pull-requests: write/)
})

test('"No commits between" is named, and a repository without draft PRs gets a ready one with a warning', async () => {
  api.state.branches.set('main', 'a'.repeat(40))
  api.state.branches.set('ralph/same', 'a'.repeat(40))
  const none = await openOrUpdatePullRequest(octokit(), { ...options, head: 'ralph/same' }).catch(e => e)
  expect(none).toMatchObject({ kind: PULL_REQUEST_FAILURE.noCommits })

  api.state.failures.next.push({
    operationId: 'pulls/create',
    status: 422,
    body: {
      message: 'Validation Failed',
      errors: [
        {
          resource: 'PullRequest',
          code: 'custom',
          message: 'Draft pull requests are not supported in this repository.'
        }
      ],
      documentation_url: 'https://docs.github.com/rest/pulls/pulls#create-a-pull-request',
      status: '422'
    }
  })
  const ready = await openOrUpdatePullRequest(octokit(), { ...options, draft: true })
  expect(ready).toMatchObject({ operation: 'created', draft: false })
  expect(ready.warnings).toEqual([expect.stringMatching(/Draft pull requests are not supported/)])
})

test('an oversize body is cut under 65,536 characters with a note, and GitHub accepts it', async () => {
  const body = '| iteration | verdict |\n|---|---|\n' + '| 1 | ✗ |\n'.repeat(12000)
  expect(body.length).toBeGreaterThan(MAX_PR_BODY_CHARS)
  const result = await openOrUpdatePullRequest(octokit(), { ...options, body })
  expect(result.bodyTruncated).toBe(true)
  const sent = api.state.pulls[0].body ?? ''
  expect(sent.length).toBeLessThanOrEqual(MAX_PR_BODY_CHARS)
  expect(sent).toMatch(/cut to fit GitHub's limit of 65,536 characters \(it had \d{2,3},\d{3}\)/)
  expect(sent.startsWith('| iteration | verdict |')).toBe(true)
})

describe('truncateBody', () => {
  test('leaves a body within the limit alone', () => {
    expect(truncateBody('short')).toBe('short')
    const exact = 'x'.repeat(MAX_PR_BODY_CHARS)
    expect(truncateBody(exact)).toBe(exact)
  })

  test('closes a code block it cut through and never splits a character', () => {
    const cut = truncateBody('intro\n```\n' + '😀'.repeat(40000), 1000)
    expect(cut.length).toBeLessThanOrEqual(1000)
    expect(cut.match(/```/g)).toHaveLength(2)
    expect(cut).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/)
    expect(cut).toMatch(/> \[!NOTE\]\n> The description was cut/)
  })

  test('cuts at a line break when one is near', () => {
    const cut = truncateBody('line of text\n'.repeat(10000), 5000)
    const kept = cut.slice(0, cut.indexOf('\n\n---\n'))
    expect(kept.endsWith('line of text')).toBe(true)
  })
})

describe('finding open pull requests (the nightly run continues its own)', () => {
  test("findOpenPullRequest matches the exact head and base, open only; listOpenPullRequests by a ralph's prefix", async () => {
    api.state.addPull({ title: 'closed', head: 'ralph/bug-hunter', state: 'closed' })
    const other = api.state.addPull({ title: 'other base', head: 'ralph/bug-hunter', base: 'develop' })
    const open = api.state.addPull({ title: 'open', head: 'ralph/bug-hunter' })
    api.state.addPull({ title: 'someone', head: 'feature/x' })
    const ok = octokit()
    expect(
      await findOpenPullRequest(ok, {
        owner: 'acme',
        repo: 'widgets',
        head: 'ralph/bug-hunter',
        base: 'main'
      })
    ).toMatchObject({
      number: open.number,
      head: 'ralph/bug-hunter',
      base: 'main',
      url: `https://github.com/acme/widgets/pull/${open.number}`
    })
    expect(
      await findOpenPullRequest(ok, { owner: 'acme', repo: 'widgets', head: 'ralph/nothing' })
    ).toBeUndefined()
    const all = await listOpenPullRequests(ok, { owner: 'acme', repo: 'widgets', headPrefix: 'ralph/' })
    expect(all.map(p => p.number).sort()).toEqual([other.number, open.number].sort())
  })
})

test('withNodeRetry throws other errors at once', async () => {
  let calls = 0
  await expect(
    withNodeRetry('labels', async () => {
      calls++
      throw Object.assign(new Error('Validation Failed'), { status: 422 })
    })
  ).rejects.toThrow('Validation Failed')
  expect(calls).toBe(1)
})
