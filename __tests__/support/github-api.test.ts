/* eslint-disable @typescript-eslint/no-explicit-any -- error bodies and payloads are untyped JSON */
// The GitHub stand-in, driven by the real Octokit from @actions/github: what it accepts, what it refuses
// (as GitHub would) and what it records. Responses are checked against the description here too.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { getOctokit } from '@actions/github'
import {
  checkEventPayload,
  startGitHubApi,
  type GitHubApi,
  type GitHubApiOptions
} from './github-api/index.js'

const TOKEN = 'ghs_actions_token'
let api: GitHubApi | undefined

async function start(options: GitHubApiOptions = {}) {
  api = await startGitHubApi({ owner: 'acme', repo: 'widgets', ...options })
  return { api, octokit: getOctokit(TOKEN, { baseUrl: api.url }) }
}

/** The HTTP error Octokit throws, with GitHub's body. */
async function failure(promise: Promise<unknown>): Promise<{ status: number; message: string; data: any }> {
  try {
    await promise
  } catch (error) {
    const e = error as { status: number; message: string; response?: { data: unknown } }
    return { status: e.status, message: e.message, data: e.response?.data }
  }
  throw new Error('expected the request to fail')
}

afterEach(async () => {
  if (api) {
    // Whatever a test did, the stand-in itself must have answered within the description.
    expect(api.responseProblems).toEqual([])
    await api.close()
  }
  api = undefined
})

describe('pull requests', () => {
  test('a pull request is created, found by owner:branch, updated, and a duplicate is refused as GitHub does', async () => {
    const { api, octokit } = await start()
    const created = await octokit.rest.pulls.create({
      owner: 'acme',
      repo: 'widgets',
      title: 'Fix the flaky test',
      head: 'ralph/fix',
      base: 'main',
      body: 'Done by a ralph loop',
      draft: true
    })
    expect(created.status).toBe(201)
    expect(created.data).toMatchObject({
      number: 1,
      state: 'open',
      draft: true,
      html_url: 'https://github.com/acme/widgets/pull/1',
      head: { ref: 'ralph/fix', label: 'acme:ralph/fix' },
      base: { ref: 'main' },
      user: { login: 'github-actions[bot]', type: 'Bot' }
    })
    expect(created.data.head.sha).toMatch(/^[0-9a-f]{40}$/)
    expect(created.data.node_id).toMatch(/^PR_/)

    const found = await octokit.rest.pulls.list({
      owner: 'acme',
      repo: 'widgets',
      head: 'acme:ralph/fix',
      base: 'main'
    })
    expect(found.data.map(p => p.number)).toEqual([1])
    const none = await octokit.rest.pulls.list({
      owner: 'acme',
      repo: 'widgets',
      head: 'acme:other',
      state: 'all'
    })
    expect(none.data).toEqual([])

    const again = await failure(
      octokit.rest.pulls.create({
        owner: 'acme',
        repo: 'widgets',
        title: 'x',
        head: 'ralph/fix',
        base: 'main'
      })
    )
    expect(again.status).toBe(422)
    expect(again.data.errors).toEqual([
      {
        resource: 'PullRequest',
        code: 'custom',
        message: 'A pull request already exists for acme:ralph/fix.'
      }
    ])
    expect(again.message).toContain('A pull request already exists for acme:ralph/fix.')

    const updated = await octokit.rest.pulls.update({
      owner: 'acme',
      repo: 'widgets',
      pull_number: 1,
      title: 'Fix the flaky test (2 iterations)',
      body: 'Updated'
    })
    expect(updated.data.title).toBe('Fix the flaky test (2 iterations)')
    const got = await octokit.rest.pulls.get({ owner: 'acme', repo: 'widgets', pull_number: 1 })
    expect(got.data.body).toBe('Updated')
    expect(api.state.pulls).toHaveLength(1)
    expect(api.state.pulls[0]).toMatchObject({
      title: 'Fix the flaky test (2 iterations)',
      head: 'ralph/fix',
      draft: true
    })
    expect(api.violations).toEqual([])
    expect(api.unimplemented).toEqual([])
    expect(api.requests.every(r => r.token === TOKEN && r.actor === 'github-actions[bot]')).toBe(true)
  })

  test('a head filter without the owner is ignored, as GitHub ignores it (every PR comes back)', async () => {
    const { api, octokit } = await start()
    api.state.addPull({ title: 'one', head: 'a' })
    api.state.addPull({ title: 'two', head: 'b' })
    const list = await octokit.rest.pulls.list({ owner: 'acme', repo: 'widgets', head: 'a' })
    expect(list.data).toHaveLength(2)
  })

  test('"GitHub Actions is not permitted to create or approve pull requests" is a 403 for GITHUB_TOKEN only', async () => {
    const { api, octokit } = await start()
    api.state.failures.actionsCannotCreatePullRequests = true
    const refused = await failure(
      octokit.rest.pulls.create({ owner: 'acme', repo: 'widgets', title: 't', head: 'ralph/x', base: 'main' })
    )
    expect(refused.status).toBe(403)
    expect(refused.data).toEqual({
      message: 'GitHub Actions is not permitted to create or approve pull requests.',
      documentation_url: 'https://docs.github.com/rest/pulls/pulls#create-a-pull-request',
      status: '403'
    })
    // A PAT of a person with write access is not affected by the setting.
    api.state.addUser('maintainer', { role: 'write' })
    api.state.tokens.set('ghp_personal', 'maintainer')
    const pat = getOctokit('ghp_personal', { baseUrl: api.url })
    const created = await pat.rest.pulls.create({
      owner: 'acme',
      repo: 'widgets',
      title: 't',
      head: 'ralph/x',
      base: 'main'
    })
    expect(created.data.user?.login).toBe('maintainer')
    expect(api.requests.at(-1)).toMatchObject({ token: 'ghp_personal', actor: 'maintainer', status: 201 })
  })

  test('the workflow permissions say whether Actions may create pull requests; a token that may not read them gets 403', async () => {
    const { api, octokit } = await start()
    const repo = { owner: 'acme', repo: 'widgets' }
    const read = () => octokit.rest.actions.getGithubActionsDefaultWorkflowPermissionsRepository(repo)
    expect((await read()).data).toEqual({
      default_workflow_permissions: 'read',
      can_approve_pull_request_reviews: true
    })
    api.state.failures.actionsCannotCreatePullRequests = true
    expect((await read()).data.can_approve_pull_request_reviews).toBe(false)
    api.state.settingsUnreadable.add(TOKEN)
    const refused = await failure(read())
    expect(refused.status).toBe(403)
    expect(refused.data.message).toBe('Resource not accessible by personal access token')
    expect(api.violations).toEqual([])
    expect(api.unimplemented).toEqual([])
  })

  test('labels and reviewers fail once with "Could not resolve to a node" right after creation, then succeed', async () => {
    const { api, octokit } = await start()
    api.state.failures.unresolvedNodeAfterCreate = { labels: 1, reviewers: 1 }
    api.state.addUser('reviewer', { role: 'write' })
    const pr = await octokit.rest.pulls.create({
      owner: 'acme',
      repo: 'widgets',
      title: 't',
      head: 'ralph/x',
      base: 'main'
    })
    const repo = { owner: 'acme', repo: 'widgets' }

    const first = await failure(
      octokit.rest.issues.addLabels({ ...repo, issue_number: pr.data.number, labels: ['ralph'] })
    )
    expect(first.status).toBe(422)
    expect(first.data.errors).toEqual([
      {
        resource: 'Label',
        code: 'unprocessable',
        field: 'data',
        message: `Could not resolve to a node with the global id of '${pr.data.node_id}'.`
      }
    ])
    const labels = await octokit.rest.issues.addLabels({
      ...repo,
      issue_number: pr.data.number,
      labels: ['ralph', 'bot']
    })
    expect(labels.data.map(l => l.name)).toEqual(['ralph', 'bot'])

    const firstReview = await failure(
      octokit.rest.pulls.requestReviewers({ ...repo, pull_number: pr.data.number, reviewers: ['reviewer'] })
    )
    expect(firstReview.status).toBe(422)
    expect(firstReview.data.errors).toEqual([
      `Could not resolve to a node with the global id of '${pr.data.node_id}'.`
    ])
    const reviewed = await octokit.rest.pulls.requestReviewers({
      ...repo,
      pull_number: pr.data.number,
      reviewers: ['reviewer']
    })
    expect(reviewed.status).toBe(201)
    expect(reviewed.data.requested_reviewers?.map(u => u.login)).toEqual(['reviewer'])

    const stranger = await failure(
      octokit.rest.pulls.requestReviewers({ ...repo, pull_number: pr.data.number, reviewers: ['nobody'] })
    )
    expect(stranger.status).toBe(422)
    expect(stranger.message).toContain('Reviews may only be requested from collaborators')

    const assigned = await octokit.rest.issues.addAssignees({
      ...repo,
      issue_number: pr.data.number,
      assignees: ['reviewer', 'nobody']
    })
    expect(assigned.data.assignees?.map(u => u.login)).toEqual(['reviewer'])
    expect(api.state.pulls[0]).toMatchObject({
      labels: ['ralph', 'bot'],
      requestedReviewers: ['reviewer'],
      assignees: ['reviewer']
    })
    expect(api.violations).toEqual([])
  })

  test('with a bare git repository, branch heads are real and an empty branch gets "No commits between"', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gh-standin-git-'))
    try {
      const git = (...args: string[]) =>
        execFileSync('git', args, { cwd: join(dir, 'work'), encoding: 'utf8' }).trim()
      execFileSync('git', ['init', '-q', '--bare', '-b', 'main', join(dir, 'remote.git')])
      execFileSync('git', ['init', '-q', '-b', 'main', join(dir, 'work')])
      git('config', 'user.email', 't@example.com')
      git('config', 'user.name', 'T')
      writeFileSync(join(dir, 'work', 'a.txt'), 'a\n')
      git('add', '.')
      git('commit', '-q', '-m', 'base')
      git('push', '-q', join(dir, 'remote.git'), 'main', 'main:refs/heads/empty')
      writeFileSync(join(dir, 'work', 'b.txt'), 'b\n')
      git('add', '.')
      git('commit', '-q', '-m', 'change')
      git('push', '-q', join(dir, 'remote.git'), 'HEAD:refs/heads/ralph/change')
      const sha = git('rev-parse', 'HEAD')

      const { octokit } = await start({ gitDir: join(dir, 'remote.git') })
      const repo = { owner: 'acme', repo: 'widgets', base: 'main', title: 't' }
      const pr = await octokit.rest.pulls.create({ ...repo, head: 'ralph/change' })
      expect(pr.data.head.sha).toBe(sha)
      expect(pr.data.commits).toBe(1)

      const empty = await failure(octokit.rest.pulls.create({ ...repo, head: 'empty' }))
      expect(empty.data.errors).toEqual([
        { resource: 'PullRequest', code: 'custom', message: 'No commits between main and empty' }
      ])
      const missing = await failure(octokit.rest.pulls.create({ ...repo, head: 'never-pushed' }))
      expect(missing.data.errors).toEqual([{ resource: 'PullRequest', field: 'head', code: 'invalid' }])
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  test('a branch answers its tip as a commit (git author and committer) and whether it is protected', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gh-standin-branch-'))
    try {
      const git = (...args: string[]) =>
        execFileSync('git', args, { cwd: join(dir, 'work'), encoding: 'utf8' }).trim()
      execFileSync('git', ['init', '-q', '--bare', '-b', 'main', join(dir, 'remote.git')])
      execFileSync('git', ['init', '-q', '-b', 'main', join(dir, 'work')])
      git('config', 'user.email', 'ann@example.com')
      git('config', 'user.name', 'Ann')
      writeFileSync(join(dir, 'work', 'a.txt'), 'a\n')
      git('add', '.')
      git('commit', '-q', '-m', 'first')
      writeFileSync(join(dir, 'work', 'b.txt'), 'b\n')
      git('add', '.')
      execFileSync('git', ['commit', '-q', '-m', 'second\n\nbody'], {
        cwd: join(dir, 'work'),
        env: { ...process.env, GIT_COMMITTER_EMAIL: 'bot@example.com' }
      })
      git('push', '-q', join(dir, 'remote.git'), 'main', 'main:refs/heads/release')
      const [sha, parent] = [git('rev-parse', 'HEAD'), git('rev-parse', 'HEAD~1')]

      const { api, octokit } = await start({ gitDir: join(dir, 'remote.git') })
      api.state.protectedBranches.add('release')
      const repo = { owner: 'acme', repo: 'widgets' }
      const main = await octokit.rest.repos.getBranch({ ...repo, branch: 'main' })
      expect(main.data).toMatchObject({ name: 'main', protected: false, commit: { sha } })
      expect(main.data.commit.commit).toMatchObject({
        message: 'second\n\nbody',
        author: { name: 'Ann', email: 'ann@example.com' },
        committer: { name: 'Ann', email: 'bot@example.com' }
      })
      expect(main.data.commit.parents.map(p => p.sha)).toEqual([parent])
      expect((await octokit.rest.repos.getBranch({ ...repo, branch: 'release' })).data.protected).toBe(true)
      const missing = await failure(octokit.rest.repos.getBranch({ ...repo, branch: 'gone' }))
      expect([missing.status, missing.data.message]).toEqual([404, 'Branch not found'])
      // A push event names the tip and its committer, in the shape of GitHub's webhook schema.
      const push = api.events.push('main', { sender: 'ann' }) as any
      expect(checkEventPayload('push', push)).toEqual([])
      expect(push).toMatchObject({
        ref: 'refs/heads/main',
        after: sha,
        before: parent,
        head_commit: { id: sha, committer: { email: 'bot@example.com' } }
      })
      expect(api.violations).toEqual([])
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  test('a fork pull request names the fork as its head repository; a comment on it makes an issue_comment event', async () => {
    const { api, octokit } = await start()
    api.state.addUser('forker')
    const pr = api.state.addPull({
      title: 'From a fork',
      head: 'patch-1',
      headOwner: 'forker',
      user: 'forker'
    })
    const got = await octokit.rest.pulls.get({ owner: 'acme', repo: 'widgets', pull_number: pr.number })
    expect(got.data.head).toMatchObject({
      label: 'forker:patch-1',
      repo: { full_name: 'forker/widgets', fork: true }
    })
    expect(got.data.base.repo.full_name).toBe('acme/widgets')
    expect(got.data.author_association).toBe('NONE')
    const comment = api.state.addComment(pr.number, { body: '/ralph', user: 'forker' })
    const event = api.events.issueComment(comment.id) as any
    expect(event.issue.pull_request.url).toBe(`${api.url}/repos/acme/widgets/pulls/${pr.number}`)
    expect(event.comment.html_url).toBe(
      `https://github.com/acme/widgets/pull/${pr.number}#issuecomment-${comment.id}`
    )
    expect(event.sender.login).toBe('forker')
  })

  test('a body over 65536 characters is refused', async () => {
    const { octokit } = await start()
    const long = await failure(
      octokit.rest.pulls.create({
        owner: 'acme',
        repo: 'widgets',
        title: 't',
        head: 'x',
        base: 'main',
        body: 'x'.repeat(65537)
      })
    )
    expect(long.status).toBe(422)
    expect(long.data.errors[0]).toMatchObject({
      field: 'body',
      message: 'body is too long (maximum is 65536 characters)'
    })
  })
})

describe('requests the real API would reject are answered like GitHub and recorded', () => {
  test('missing required fields, wrong types, unknown fields, bad path values, unknown routes', async () => {
    const { api, octokit } = await start()
    const missingBase = await failure(
      octokit.request('POST /repos/{owner}/{repo}/pulls', {
        owner: 'acme',
        repo: 'widgets',
        title: 't',
        head: 'x'
      } as never)
    )
    expect(missingBase.status).toBe(422)
    expect(missingBase.data.message).toContain('"base" wasn\'t supplied')

    const wrongType = await failure(
      octokit.request('POST /repos/{owner}/{repo}/pulls', {
        owner: 'acme',
        repo: 'widgets',
        title: 't',
        head: 'x',
        base: 'main',
        draft: 'yes'
      } as never)
    )
    expect(wrongType.status).toBe(422)

    // GitHub ignores fields it does not know; the stand-in serves the request but records the field.
    await octokit.request('PATCH /repos/{owner}/{repo}/issues/{issue_number}', {
      owner: 'acme',
      repo: 'widgets',
      issue_number: api.state.addIssue({ title: 'i' }).number,
      draft_pr: true
    } as never)
    await octokit.request('GET /repos/{owner}/{repo}/pulls', {
      owner: 'acme',
      repo: 'widgets',
      status: 'open'
    } as never)

    const badNumber = await failure(
      octokit.request('GET /repos/{owner}/{repo}/issues/{issue_number}', {
        owner: 'acme',
        repo: 'widgets',
        issue_number: 'abc'
      } as never)
    )
    expect(badNumber.status).toBe(404)
    const badEnum = await failure(
      octokit.request('GET /repos/{owner}/{repo}/pulls', {
        owner: 'acme',
        repo: 'widgets',
        state: 'merged'
      } as never)
    )
    expect(badEnum.status).toBe(422)
    const noRoute = await failure(
      octokit.request('GET /repos/{owner}/{repo}/no-such-thing', { owner: 'acme', repo: 'widgets' })
    )
    expect(noRoute.status).toBe(404)
    const wrongMethod = await failure(
      octokit.request('PUT /repos/{owner}/{repo}/pulls', { owner: 'acme', repo: 'widgets' })
    )
    expect(wrongMethod.status).toBe(404)

    expect(api.violations.map(v => [v.kind, v.operationId])).toEqual([
      ['body', 'pulls/create'],
      ['body', 'pulls/create'],
      ['unknown-field', 'issues/update'],
      ['unknown-field', 'pulls/list'],
      ['path-parameter', 'issues/get'],
      ['query', 'pulls/list'],
      ['no-route', undefined],
      ['no-route', undefined]
    ])
    expect(api.violations[2].message).toContain('draft_pr')
    expect(api.violations[3].message).toContain('status')
    expect(api.state.pulls).toEqual([])
  })

  test('X-GitHub-Api-Version must name a version GitHub serves', async () => {
    const { api, octokit } = await start()
    const repo = { owner: 'acme', repo: 'widgets' }
    await octokit.request('GET /repos/{owner}/{repo}', {
      ...repo,
      headers: { 'x-github-api-version': '2022-11-28' }
    })
    const old = await failure(
      octokit.request('GET /repos/{owner}/{repo}', {
        ...repo,
        headers: { 'x-github-api-version': '2019-01-01' }
      })
    )
    expect(old.status).toBe(400)
    expect(api.violations).toMatchObject([{ kind: 'api-version' }])
    expect(api.requests.map(r => r.apiVersion)).toEqual(['2022-11-28', '2019-01-01'])
  })

  test('a request without a token gets 401 and is recorded', async () => {
    const { api } = await start()
    const response = await fetch(`${api.url}/repos/acme/widgets`, { headers: { 'user-agent': 'test' } })
    expect(response.status).toBe(401)
    expect(api.violations).toMatchObject([{ kind: 'auth', operationId: 'repos/get' }])
  })

  test('an operation GitHub has but the stand-in does not implement answers 501 and is recorded', async () => {
    const { api, octokit } = await start()
    const missing = await failure(octokit.rest.repos.listBranches({ owner: 'acme', repo: 'widgets' }))
    expect(missing.status).toBe(501)
    expect(api.unimplemented).toEqual([
      { method: 'GET', path: '/repos/acme/widgets/branches', operationId: 'repos/list-branches' }
    ])
    expect(api.violations).toEqual([])
  })

  test('an injected failure answers the next matching request only', async () => {
    const { api, octokit } = await start()
    api.state.failures.next.push({ operationId: 'repos/get', status: 502, body: { message: 'Server Error' } })
    expect((await failure(octokit.rest.repos.get({ owner: 'acme', repo: 'widgets' }))).status).toBe(502)
    const repo = await octokit.rest.repos.get({ owner: 'acme', repo: 'widgets' })
    expect(repo.data).toMatchObject({
      full_name: 'acme/widgets',
      default_branch: 'main',
      owner: { type: 'Organization' }
    })
  })
})

describe('who is asking: permissions and account types', () => {
  test('role_name tells maintain and triage apart where the legacy permission cannot', async () => {
    const { api, octokit } = await start()
    api.state.addUser('mia', { role: 'maintain' })
    api.state.addUser('tom', { role: 'triage' })
    api.state.addUser('wes', { role: 'write' })
    api.state.addUser('ann', { role: 'admin' })
    api.state.addUser('cus', { role: { roleName: 'deployer', base: 'write' } })
    api.state.addUser('rob', {})
    const permission = async (username: string) => {
      const { data } = await octokit.rest.repos.getCollaboratorPermissionLevel({
        owner: 'acme',
        repo: 'widgets',
        username
      })
      return [data.permission, data.role_name, data.user?.login]
    }
    expect(await permission('mia')).toEqual(['write', 'maintain', 'mia'])
    expect(await permission('tom')).toEqual(['read', 'triage', 'tom'])
    expect(await permission('wes')).toEqual(['write', 'write', 'wes'])
    expect(await permission('ann')).toEqual(['admin', 'admin', 'ann'])
    expect(await permission('cus')).toEqual(['write', 'deployer', 'cus'])
    expect(await permission('rob')).toEqual(['read', 'read', 'rob'])
    const ghost = await failure(
      octokit.rest.repos.getCollaboratorPermissionLevel({ owner: 'acme', repo: 'widgets', username: 'ghost' })
    )
    expect(ghost.status).toBe(404)
  })

  test('users have a type: User, Bot or Organization', async () => {
    const { api, octokit } = await start()
    api.state.addUser('evil[bot]', { type: 'User' })
    api.state.addUser('renovate[bot]', { type: 'Bot' })
    const type = async (username: string) => (await octokit.rest.users.getByUsername({ username })).data.type
    expect(await type('evil[bot]')).toBe('User')
    expect(await type('renovate[bot]')).toBe('Bot')
    expect(await type('github-actions[bot]')).toBe('Bot')
    expect(await type('acme')).toBe('Organization')
    expect((await failure(octokit.rest.users.getByUsername({ username: 'nobody' }))).status).toBe(404)
  })
  test('a read-only job token reads as github-actions[bot]; each write it tries is refused 403 and listed', async () => {
    const { api, octokit } = await start()
    const READ_ONLY = 'ghs_readOnlyJobToken'
    api.state.readOnlyTokens.add(READ_ONLY)
    const readOnly = getOctokit(READ_ONLY, { baseUrl: api.url })
    const repo = { owner: 'acme', repo: 'widgets' }
    const issue = api.state.addIssue({ title: 'Flaky test', user: 'acme' })
    const trigger = api.state.addComment(issue.number, { body: '/ralph', user: 'acme' })

    expect((await readOnly.rest.repos.get(repo)).status).toBe(200)
    expect((await readOnly.rest.issues.get({ ...repo, issue_number: issue.number })).data.title).toBe(
      'Flaky test'
    )
    const refused = await Promise.all([
      failure(
        readOnly.rest.reactions.createForIssueComment({ ...repo, comment_id: trigger.id, content: 'eyes' })
      ),
      failure(readOnly.rest.issues.createComment({ ...repo, issue_number: issue.number, body: 'Working…' })),
      failure(readOnly.rest.issues.updateComment({ ...repo, comment_id: trigger.id, body: 'changed' })),
      failure(readOnly.rest.issues.addLabels({ ...repo, issue_number: issue.number, labels: ['ralph'] })),
      failure(readOnly.rest.pulls.create({ ...repo, title: 'x', head: 'ralph/x', base: 'main' }))
    ])
    for (const answer of refused) {
      expect(answer.status).toBe(403)
      expect(answer.data).toEqual({
        message: 'Resource not accessible by integration',
        documentation_url: expect.stringMatching(/^https:\/\/docs\.github\.com\/rest\//),
        status: '403'
      })
    }
    // Nothing changed; the refusals are GitHub's answer, not a request GitHub would reject.
    expect(api.state.reactions).toEqual([])
    expect(api.state.comments.map(c => c.body)).toEqual(['/ralph'])
    expect(issue.labels).toEqual([])
    expect(api.state.pulls).toEqual([])
    expect(api.violations).toEqual([])
    expect(new Set(api.requests.filter(r => r.token === READ_ONLY).map(r => r.actor))).toEqual(
      new Set(['github-actions[bot]'])
    )

    // writesBy lists the attempts of one token, refused or not; reads are not writes.
    await octokit.rest.issues.createComment({ ...repo, issue_number: issue.number, body: 'Working…' })
    expect([...api.writesBy(READ_ONLY)].sort()).toEqual(
      [
        `POST /repos/acme/widgets/issues/comments/${trigger.id}/reactions`,
        `POST /repos/acme/widgets/issues/${issue.number}/comments`,
        `PATCH /repos/acme/widgets/issues/comments/${trigger.id}`,
        `POST /repos/acme/widgets/issues/${issue.number}/labels`,
        'POST /repos/acme/widgets/pulls'
      ].sort()
    )
    expect(api.writesBy(TOKEN)).toEqual([`POST /repos/acme/widgets/issues/${issue.number}/comments`])
    expect(api.state.comments.map(c => c.body)).toEqual(['/ralph', 'Working…'])
  })
})

describe('workflows, their runs and dispatches', () => {
  const WORKFLOW = '.github/workflows/ralph.yml'
  const repo = { owner: 'acme', repo: 'widgets' }

  /** A bare remote with main and one more branch (so refs are real: "No ref found" is GitHub's, not made up). */
  function bareRemote(dir: string): { gitDir: string; main: string; branch: string } {
    const git = (...args: string[]) =>
      execFileSync('git', args, { cwd: join(dir, 'work'), encoding: 'utf8' }).trim()
    execFileSync('git', ['init', '-q', '--bare', '-b', 'main', join(dir, 'remote.git')])
    execFileSync('git', ['init', '-q', '-b', 'main', join(dir, 'work')])
    git('config', 'user.email', 'ann@example.com')
    git('config', 'user.name', 'Ann')
    writeFileSync(join(dir, 'work', 'a.txt'), 'a\n')
    git('add', '.')
    git('commit', '-q', '-m', 'base')
    const main = git('rev-parse', 'HEAD')
    git('push', '-q', join(dir, 'remote.git'), 'main')
    git('commit', '-q', '--allow-empty', '-m', 'iteration 3')
    git('push', '-q', join(dir, 'remote.git'), 'HEAD:refs/heads/ralph/issue-7')
    return { gitDir: join(dir, 'remote.git'), main, branch: git('rev-parse', 'HEAD') }
  }

  test("a ref made through the API (a chain's claim) is made once, in the bare repository; the second is GitHub's 422", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gh-standin-refs-'))
    try {
      const remote = bareRemote(dir)
      const { octokit } = await start({ gitDir: remote.gitDir })
      const ref = 'refs/ralph-chain/4001/fix-tests'
      const made = await octokit.rest.git.createRef({ ...repo, ref, sha: remote.branch })
      expect(made.status).toBe(201)
      expect(made.data).toMatchObject({ ref, object: { sha: remote.branch, type: 'commit' } })
      expect(
        execFileSync('git', ['--git-dir', remote.gitDir, 'rev-parse', ref], { encoding: 'utf8' }).trim()
      ).toBe(remote.branch)
      const read = await octokit.rest.git.getRef({ ...repo, ref: ref.slice('refs/'.length) })
      expect(read.data.object.sha).toBe(remote.branch)
      expect((await failure(octokit.rest.git.getRef({ ...repo, ref: 'ralph-chain/1/none' }))).status).toBe(
        404
      )
      const again = await failure(octokit.rest.git.createRef({ ...repo, ref, sha: remote.main }))
      expect(again.status).toBe(422)
      expect(again.message).toContain('Reference already exists')
      const missing = await failure(
        octokit.rest.git.createRef({ ...repo, ref: 'refs/ralph-chain/1/x', sha: 'f'.repeat(40) })
      )
      expect(missing.status).toBe(422)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  test('a run reads as GitHub renders it: workflow, event, head branch and commit, head repository (fork or not)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gh-standin-runs-'))
    try {
      const remote = bareRemote(dir)
      const { api, octokit } = await start({ gitDir: remote.gitDir })
      const ours = api.state.addRun({
        id: 9_100_000_001,
        workflowPath: WORKFLOW,
        headBranch: 'ralph/issue-7',
        status: 'completed',
        conclusion: 'success'
      })
      const fromFork = api.state.addRun({
        workflowPath: WORKFLOW,
        event: 'pull_request',
        headBranch: 'patch-1',
        headSha: remote.main,
        headRepository: 'mallory/widgets'
      })

      const { data: run } = await octokit.rest.actions.getWorkflowRun({ ...repo, run_id: ours.id })
      const workflow = api.state.workflow('ralph.yml')
      expect(run).toMatchObject({
        id: 9_100_000_001,
        workflow_id: workflow?.id,
        path: WORKFLOW,
        event: 'workflow_dispatch',
        head_branch: 'ralph/issue-7',
        head_sha: remote.branch,
        status: 'completed',
        conclusion: 'success',
        run_number: 1,
        run_attempt: 1,
        head_commit: { id: remote.branch, message: 'iteration 3', author: { name: 'Ann' } },
        repository: { full_name: 'acme/widgets', fork: false },
        head_repository: { full_name: 'acme/widgets', fork: false },
        workflow_url: `${api.url}/repos/acme/widgets/actions/workflows/${String(workflow?.id)}`
      })
      const { data: fork } = await octokit.rest.actions.getWorkflowRun({ ...repo, run_id: fromFork.id })
      expect(fork).toMatchObject({
        event: 'pull_request',
        run_number: 2,
        head_sha: remote.main,
        status: 'in_progress',
        conclusion: null,
        repository: { full_name: 'acme/widgets', fork: false },
        head_repository: { full_name: 'mallory/widgets', fork: true, owner: { login: 'mallory' } }
      })
      expect(fork.head_repository_id).not.toBe(fork.repository.id)

      const unknown = await failure(octokit.rest.actions.getWorkflowRun({ ...repo, run_id: 404 }))
      expect(unknown).toMatchObject({ status: 404, data: { message: 'Not Found', status: '404' } })
      const other = await failure(
        octokit.rest.actions.getWorkflowRun({ ...repo, repo: 'other', run_id: ours.id })
      )
      expect(other.status).toBe(404)
      expect(api.violations).toEqual([])
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  test('a workflow is found by id or by file name', async () => {
    const { api, octokit } = await start()
    const workflow = api.state.addWorkflow({ path: WORKFLOW, name: 'Ralph', dispatchInputs: { resume: {} } })
    for (const workflow_id of [workflow.id, 'ralph.yml']) {
      const { data } = await octokit.rest.actions.getWorkflow({ ...repo, workflow_id })
      expect(data).toMatchObject({ id: workflow.id, name: 'Ralph', path: WORKFLOW, state: 'active' })
    }
    const missing = await failure(octokit.rest.actions.getWorkflow({ ...repo, workflow_id: 'other.yml' }))
    expect(missing.status).toBe(404)
    expect(api.violations).toEqual([])
  })

  test('a dispatch queues a run of the workflow on the ref with its inputs, and is recorded', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gh-standin-dispatch-'))
    try {
      const remote = bareRemote(dir)
      const { api, octokit } = await start({ gitDir: remote.gitDir })
      const workflow = api.state.addWorkflow({
        path: WORKFLOW,
        dispatchInputs: { resume: { required: false, default: '' } }
      })
      const answer = await octokit.rest.actions.createWorkflowDispatch({
        ...repo,
        workflow_id: 'ralph.yml',
        ref: 'ralph/issue-7',
        inputs: { resume: '9100000001' }
      })
      expect(answer.status).toBe(204)
      expect(api.state.dispatches).toEqual([
        {
          workflowId: workflow.id,
          ref: 'ralph/issue-7',
          inputs: { resume: '9100000001' },
          actor: 'github-actions[bot]',
          token: TOKEN,
          runId: expect.any(Number)
        }
      ])
      const queued = api.state.run(api.state.dispatches[0].runId)
      expect(queued).toMatchObject({
        workflowId: workflow.id,
        event: 'workflow_dispatch',
        headBranch: 'ralph/issue-7',
        headSha: remote.branch,
        status: 'queued',
        conclusion: null
      })

      // With return_run_details GitHub answers 200 and names the run it queued.
      const detailed = await octokit.rest.actions.createWorkflowDispatch({
        ...repo,
        workflow_id: workflow.id,
        ref: 'main',
        return_run_details: true
      } as Parameters<typeof octokit.rest.actions.createWorkflowDispatch>[0])
      const runId = api.state.dispatches[1].runId
      expect(detailed.status).toBe(200)
      expect(detailed.data).toEqual({
        workflow_run_id: runId,
        run_url: `${api.url}/repos/acme/widgets/actions/runs/${runId}`,
        html_url: `https://github.com/acme/widgets/actions/runs/${runId}`
      })
      expect(api.state.run(runId)).toMatchObject({ headBranch: 'main', headSha: remote.main })
      expect(api.writesBy(TOKEN)).toEqual([
        'POST /repos/acme/widgets/actions/workflows/ralph.yml/dispatches',
        `POST /repos/acme/widgets/actions/workflows/${workflow.id}/dispatches`
      ])
      expect(api.violations).toEqual([])
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  test('a dispatch is refused as GitHub refuses it: unknown input, missing ref, no trigger, missing required input', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gh-standin-dispatch-'))
    try {
      const { api, octokit } = await start({ gitDir: bareRemote(dir).gitDir })
      api.state.addWorkflow({ path: WORKFLOW, dispatchInputs: { resume: {} } })
      api.state.addWorkflow({
        path: '.github/workflows/nightly.yml',
        dispatchInputs: { day: { required: true } }
      })
      api.state.addWorkflow({ path: '.github/workflows/push-only.yml' })
      const dispatch = (workflow_id: string, ref: string, inputs?: Record<string, string>) =>
        failure(
          octokit.rest.actions.createWorkflowDispatch({
            ...repo,
            workflow_id,
            ref,
            ...(inputs ? { inputs } : {})
          })
        )

      const refusals = [
        await dispatch('ralph.yml', 'main', { resume: '1', restart: 'yes', depth: '2' }),
        await dispatch('ralph.yml', 'never-pushed', { resume: '1' }),
        await dispatch('push-only.yml', 'main'),
        await dispatch('nightly.yml', 'main')
      ]
      expect(refusals.map(r => [r.status, r.data.message])).toEqual([
        [422, 'Unexpected inputs provided: ["restart","depth"]'],
        [422, 'No ref found for: never-pushed'],
        [422, "Workflow does not have 'workflow_dispatch' trigger"],
        [422, "Required input 'day' not provided"]
      ])
      expect(refusals[0].data.documentation_url).toMatch(/create-a-workflow-dispatch-event$/)
      expect((await dispatch('missing.yml', 'main')).status).toBe(404)
      expect(api.state.dispatches).toEqual([])
      expect(api.violations).toEqual([])
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  test('a dispatch needs `actions: write`: a read-only token and an `actions: read` token get 403', async () => {
    const { api } = await start()
    api.state.addWorkflow({ path: WORKFLOW, dispatchInputs: { resume: {} } })
    const run = api.state.addRun({ workflowPath: WORKFLOW })
    const [readOnly, actionsRead, actionsNone] = ['ghs_readOnly', 'ghs_actionsRead', 'ghs_actionsNone']
    api.state.readOnlyTokens.add(readOnly)
    api.state.actionsPermission.set(actionsRead, 'read')
    api.state.actionsPermission.set(actionsNone, 'none')
    const as = (token: string) => getOctokit(token, { baseUrl: api.url })
    const dispatch = { ...repo, workflow_id: 'ralph.yml', ref: 'main', inputs: { resume: String(run.id) } }

    for (const token of [readOnly, actionsRead, actionsNone]) {
      const refused = await failure(as(token).rest.actions.createWorkflowDispatch(dispatch))
      expect([refused.status, refused.data.message]).toEqual([403, 'Resource not accessible by integration'])
    }
    // Reading a run needs `actions: read` only.
    expect((await as(readOnly).rest.actions.getWorkflowRun({ ...repo, run_id: run.id })).status).toBe(200)
    expect((await as(actionsRead).rest.actions.getWorkflowRun({ ...repo, run_id: run.id })).status).toBe(200)
    const unread = await failure(as(actionsNone).rest.actions.getWorkflowRun({ ...repo, run_id: run.id }))
    expect(unread.status).toBe(403)
    expect(api.state.dispatches).toEqual([])
    expect(api.violations).toEqual([])
  })
})

describe('issues, comments and reactions', () => {
  test('a tracking comment lives its life: created, edited, listed page by page, reacted to', async () => {
    const { api, octokit } = await start()
    const issue = api.state.addIssue({ title: 'Flaky test', body: 'It fails on Tuesdays', user: 'acme' })
    const repo = { owner: 'acme', repo: 'widgets' }
    const trigger = api.state.addComment(issue.number, { body: '/ralph fix-tests', user: 'acme' })

    const eyes = await octokit.rest.reactions.createForIssueComment({
      ...repo,
      comment_id: trigger.id,
      content: 'eyes'
    })
    expect(eyes.status).toBe(201)
    const twice = await octokit.rest.reactions.createForIssueComment({
      ...repo,
      comment_id: trigger.id,
      content: 'eyes'
    })
    expect(twice.status).toBe(200)
    expect(twice.data.id).toBe(eyes.data.id)
    await octokit.rest.reactions.createForIssue({ ...repo, issue_number: issue.number, content: 'rocket' })

    const tracking = await octokit.rest.issues.createComment({
      ...repo,
      issue_number: issue.number,
      body: 'Working… iteration 1'
    })
    expect(tracking.data.html_url).toBe(
      `https://github.com/acme/widgets/issues/${issue.number}#issuecomment-${tracking.data.id}`
    )
    await octokit.rest.issues.updateComment({
      ...repo,
      comment_id: tracking.data.id,
      body: 'Done: all checks passed'
    })
    for (let i = 0; i < 3; i++)
      await octokit.rest.issues.createComment({ ...repo, issue_number: issue.number, body: `note ${i}` })

    const all = await octokit.paginate(octokit.rest.issues.listComments, {
      ...repo,
      issue_number: issue.number,
      per_page: 2
    })
    expect(all.map(c => c.body)).toEqual([
      '/ralph fix-tests',
      'Done: all checks passed',
      'note 0',
      'note 1',
      'note 2'
    ])
    expect(api.requests.filter(r => r.operationId === 'issues/list-comments')).toHaveLength(3)

    const got = await octokit.rest.issues.getComment({ ...repo, comment_id: trigger.id })
    expect(got.data.reactions).toMatchObject({ total_count: 1, eyes: 1 })
    expect(api.state.reactions.map(r => [r.subject, r.content, r.user])).toEqual([
      ['comment', 'eyes', 'github-actions[bot]'],
      ['issue', 'rocket', 'github-actions[bot]']
    ])
    expect(api.state.comments.find(c => c.id === tracking.data.id)?.body).toBe('Done: all checks passed')
    expect(api.violations).toEqual([])
  })

  test('issues are created with labels, filtered by label, updated; a PR shows up as an issue with pull_request', async () => {
    const { api, octokit } = await start()
    const repo = { owner: 'acme', repo: 'widgets' }
    const created = await octokit.rest.issues.create({
      ...repo,
      title: 'Nightly hunt failed',
      body: 'see run',
      labels: ['ralph']
    })
    expect(created.data.labels).toMatchObject([{ name: 'ralph' }])
    await octokit.rest.issues.create({ ...repo, title: 'unrelated' })
    api.state.addPull({ title: 'a PR', head: 'feature' })

    const ralph = await octokit.rest.issues.listForRepo({ ...repo, labels: 'ralph' })
    expect(ralph.data.map(i => i.title)).toEqual(['Nightly hunt failed'])
    const everything = await octokit.rest.issues.listForRepo({ ...repo, state: 'all' })
    expect(everything.data.map(i => [i.number, Boolean(i.pull_request)])).toEqual([
      [3, true],
      [2, false],
      [1, false]
    ])
    const closed = await octokit.rest.issues.update({
      ...repo,
      issue_number: created.data.number,
      state: 'closed'
    })
    expect(closed.data).toMatchObject({ state: 'closed', state_reason: 'completed' })
    const asIssue = await octokit.rest.issues.get({ ...repo, issue_number: 3 })
    expect(asIssue.data.pull_request?.html_url).toBe('https://github.com/acme/widgets/pull/3')
    expect(api.violations).toEqual([])
  })

  test("event payloads agree with the API and with GitHub's webhook schemas", async () => {
    const { api, octokit } = await start()
    const issue = api.state.addIssue({ title: 'Bug', labels: ['ralph'] })
    const comment = api.state.addComment(issue.number, { body: '/ralph' })
    const pr = api.state.addPull({ title: 'PR', head: 'feature' })
    const event = api.events.issueComment(comment.id) as any
    expect(checkEventPayload('issue-comment-created', event)).toEqual([])
    expect(
      checkEventPayload('issue-comment-edited', {
        ...api.events.issueComment(comment.id, 'edited'),
        changes: {}
      })
    ).toEqual([])
    expect(checkEventPayload('issues-opened', api.events.issues(issue.number, 'opened'))).toEqual([])
    expect(
      checkEventPayload('issues-labeled', api.events.issues(issue.number, 'labeled', { label: 'ralph' }))
    ).toEqual([])
    expect(checkEventPayload('pull-request-opened', api.events.pullRequest(pr.number, 'opened'))).toEqual([])
    expect(
      checkEventPayload('workflow-dispatch', api.events.workflowDispatch({ ralph: 'bug-hunter' }))
    ).toEqual([])
    expect(event.comment.id).toBe(comment.id)
    expect(event.issue.number).toBe(issue.number)
    expect(event.repository.full_name).toBe('acme/widgets')
    const viaApi = await octokit.rest.issues.getComment({
      owner: 'acme',
      repo: 'widgets',
      comment_id: event.comment.id
    })
    expect(viaApi.data.body).toBe('/ralph')
  })
})
