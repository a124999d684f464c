// Nightly hunts are idempotent: consecutive runs continue one PR; max-open-prs caps the hunts' PRs; a
// failing hunt keeps one issue up to date. Against the OpenAPI-checked GitHub stand-in, real Octokit.
import { getOctokit } from '@actions/github'
import type { Octokit } from '../../src/github/permissions.js'
import {
  closeFailureReport,
  findOpenRalphPull,
  openHuntPulls,
  planHunt,
  reportFailure
} from '../../src/github/hunt.js'
import { startGitHubApi, type GitHubApi } from '../support/github-api/index.js'

let api: GitHubApi
let octokit: Octokit
const repo = { owner: 'acme', repo: 'widgets' }

beforeEach(async () => {
  api = await startGitHubApi({ owner: 'acme', repo: 'widgets' })
  octokit = getOctokit('ghs_token', { baseUrl: api.url }) as Octokit
})
afterEach(async () => {
  expect(api.violations).toEqual([])
  expect(api.unimplemented).toEqual([])
  expect(api.responseProblems).toEqual([])
  await api.close()
})

/** A comment as people read it: without the hidden key that makes a retried POST find it. */
const shown = (body: string) => body.replace(/\n\n<!-- ralph-action:once [0-9a-f-]{36} -->$/, '')

/** One night: plan the hunt, then deliver as the action does (create the PR, or update the one continued). */
async function night(n: number, maxOpenPrs?: number) {
  const plan = await planHunt(octokit, { ...repo, ralphName: 'bug-hunter', maxOpenPrs })
  if (plan.kind === 'new') {
    await octokit.rest.pulls.create({
      ...repo,
      head: plan.branch,
      base: 'main',
      title: 'Fix: a bug',
      body: `night ${n}`
    })
  } else if (plan.kind === 'continue') {
    await octokit.rest.pulls.update({ ...repo, pull_number: plan.pull.number, body: `night ${n}` })
  }
  return plan
}

test('two consecutive nightly runs leave one pull request, continued and updated', async () => {
  const first = await night(1)
  expect(first).toEqual({ kind: 'new', branch: 'ralph/bug-hunter' })
  const second = await night(2)
  expect(second).toMatchObject({
    kind: 'continue',
    branch: 'ralph/bug-hunter',
    pull: { number: 1, headRef: 'ralph/bug-hunter', baseRef: 'main' }
  })
  const third = await night(3)
  expect(third).toMatchObject({ kind: 'continue', pull: { number: 1 } })
  expect(api.state.pulls).toHaveLength(1)
  expect(api.state.pulls[0]).toMatchObject({ head: 'ralph/bug-hunter', body: 'night 3', state: 'open' })
  // The lookup asks GitHub for exactly that head (owner:branch), not every PR.
  expect(api.requests.filter(r => r.operationId === 'pulls/list').map(r => r.query.head)).toEqual([
    'acme:ralph/bug-hunter',
    'acme:ralph/bug-hunter',
    'acme:ralph/bug-hunter'
  ])
})

test('a closed pull request is not continued: the next night starts its branch again', async () => {
  api.state.addPull({ title: 'old hunt', head: 'ralph/bug-hunter', state: 'closed' })
  expect(await night(1)).toEqual({ kind: 'new', branch: 'ralph/bug-hunter' })
  expect(api.state.pulls.filter(p => p.state === 'open')).toHaveLength(1)
})

test("a fork's pull request on a branch of the same name is never taken for the ralph's", async () => {
  api.state.addUser('forker')
  api.state.addPull({ title: 'bait', head: 'ralph/bug-hunter', headOwner: 'forker' })
  expect(await findOpenRalphPull(octokit, { ...repo, ralphName: 'bug-hunter' })).toBeUndefined()
  expect(await openHuntPulls(octokit, repo)).toEqual([])
})

test('max-open-prs caps the hunts across ralphs; issue branches and other PRs do not count; continuing is never capped', async () => {
  api.state.addPull({ title: 'docs hunt', head: 'ralph/docs' })
  api.state.addPull({ title: 'from /ralph on #3', head: 'ralph/issue-3' })
  api.state.addPull({ title: 'a person', head: 'feature/x' })
  const capped = await planHunt(octokit, { ...repo, ralphName: 'bug-hunter', maxOpenPrs: 1 })
  expect(capped).toMatchObject({ kind: 'capped', openPulls: [{ number: 1, headRef: 'ralph/docs' }] })
  expect(capped.kind === 'capped' && capped.reason).toBe(
    '1 hunt pull request is open (#1) and max-open-prs is 1: review or close one to let bug-hunter open another'
  )
  expect(await planHunt(octokit, { ...repo, ralphName: 'bug-hunter', maxOpenPrs: 2 })).toEqual({
    kind: 'new',
    branch: 'ralph/bug-hunter',
    openPulls: 1
  })
  expect(await planHunt(octokit, { ...repo, ralphName: 'docs', maxOpenPrs: 1 })).toMatchObject({
    kind: 'continue',
    pull: { number: 1 }
  })
})

test('open hunt pull requests are counted across pages', async () => {
  for (let i = 0; i < 130; i++) api.state.addPull({ title: `hunt ${i}`, head: `ralph/r${i}` })
  expect(await openHuntPulls(octokit, repo)).toHaveLength(130)
  expect(api.requests.filter(r => r.operationId === 'pulls/list')).toHaveLength(2)
})

test('a custom branch input is where the hunt looks', async () => {
  api.state.addPull({ title: 'hunt', head: 'nightly/bugs' })
  expect(await planHunt(octokit, { ...repo, ralphName: 'bug-hunter', branch: 'nightly/bugs' })).toMatchObject(
    {
      kind: 'continue',
      branch: 'nightly/bugs'
    }
  )
})

describe('failure reports', () => {
  const report = (reason: string, day: string) =>
    reportFailure(octokit, {
      ...repo,
      ralphName: 'bug-hunter',
      runUrl: `https://github.com/acme/widgets/actions/runs/${day}`,
      reason,
      details: '| # | Verdict |\n| --- | --- |\n| 1 | ❌ gates failed |',
      now: new Date(`2026-11-${day}T03:00:00Z`)
    })

  test('a failed hunt opens one issue labelled ralph, updated (not duplicated) on the next failure', async () => {
    const first = await report('max_iterations: used all 5 iterations', '24')
    expect(first).toMatchObject({ operation: 'created', failures: 1, number: 1 })
    const second = await report('circuit_open: no progress', '25')
    expect(second).toMatchObject({ operation: 'updated', failures: 2, number: 1 })
    expect(api.state.issues).toHaveLength(1)
    const issue = api.state.issues[0]
    expect(issue).toMatchObject({ title: 'Nightly hunt bug-hunter failed', labels: ['ralph'], state: 'open' })
    expect(issue.body).toMatch(
      /^<!-- ralph-action:hunt-failure ralph=bug-hunter failures=2 first=2026-11-24 -->/
    )
    expect(issue.body).toContain(
      '**Latest (2026-11-25):** circuit_open: no progress — [the run](https://github.com/acme/widgets/actions/runs/25)'
    )
    expect(issue.body).toContain('It has failed 2 times in a row, since 2026-11-24.')
    expect(api.state.comments.map(c => shown(c.body))).toEqual([
      'Failed again on 2026-11-25 (2 in a row): circuit_open: no progress — [the run](https://github.com/acme/widgets/actions/runs/25)'
    ])
  })

  test("another ralph's report and a closed report are left alone", async () => {
    await reportFailure(octokit, { ...repo, ralphName: 'docs', runUrl: 'u', reason: 'x' })
    await report('first', '24')
    api.state.issues[1].state = 'closed'
    const again = await report('again', '25')
    expect(again).toMatchObject({ operation: 'created', number: 3, failures: 1 })
    expect(api.state.issues.map(i => [i.title, i.state])).toEqual([
      ['Nightly hunt docs failed', 'open'],
      ['Nightly hunt bug-hunter failed', 'closed'],
      ['Nightly hunt bug-hunter failed', 'open']
    ])
  })

  test('a hunt that succeeds closes the open report, saying why', async () => {
    await report('first', '24')
    const closed = await closeFailureReport(octokit, {
      ...repo,
      ralphName: 'bug-hunter',
      runUrl: 'https://github.com/acme/widgets/actions/runs/26',
      pullUrl: 'https://github.com/acme/widgets/pull/7'
    })
    expect(closed).toBe(1)
    expect(api.state.issues[0].state).toBe('closed')
    expect(shown(api.state.comments.at(-1)?.body ?? '')).toBe(
      'The hunt bug-hunter succeeded in [this run](https://github.com/acme/widgets/actions/runs/26) and opened https://github.com/acme/widgets/pull/7; closing.'
    )
    expect(
      await closeFailureReport(octokit, { ...repo, ralphName: 'bug-hunter', runUrl: 'u' })
    ).toBeUndefined()
  })
})
