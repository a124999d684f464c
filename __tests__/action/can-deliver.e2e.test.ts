// What delivery needs is asked before any agent runs (#36), through dist/index.js as the runner runs it: a job
// token that cannot push, and a repository that forbids GitHub Actions to create pull requests, each end the
// step in one line naming the fix, with no agent run, no branch made and no pull request. Where the setting
// cannot be read, the run goes on and says so.
import { existsSync } from 'node:fs'
import { expect, test } from '@jest/globals'
import { projectFiles } from './fixtures.js'
import { AGENT_JOB_TOKEN, GITHUB_TOKEN, runAction, type ActionRun, type Project } from './harness.js'
import { e2eSuite } from './suite.js'

const e2e = e2eSuite()
const { project, expectClean, fixingAgent } = e2e

/** The step failed in its one line, before any agent ran, with nothing pushed and no pull request. */
function expectStoppedBefore(run: ActionRun, p: Project, ran: string): string {
  expect(run.main.exitCode).toBe(1)
  const errors = run.main.errors.map(e => e.message)
  expect(errors).toHaveLength(1)
  expect(errors[0]).not.toContain('\n')
  expect(errors[0]).toMatch(/ No agent ran\.$/)
  expect(existsSync(ran)).toBe(false)
  expect(p.remoteGit('for-each-ref', 'refs/heads/ralph/').trim()).toBe('')
  expect(p.api.state.pulls).toEqual([])
  return errors[0]
}

test('a job token that cannot push (contents: read): the step stops before any agent runs, in one line naming the permission', async () => {
  const agent = fixingAgent()
  const p = await project(projectFiles(agent.script), { token: AGENT_JOB_TOKEN })
  const run = await runAction(p, e2e.stand(), { inputs: { ralph: 'fix-tests' } })
  const line = expectStoppedBefore(run, p, agent.ran)
  expect(line).toMatch(
    /^A push dry run of ralph\/fix-tests was refused, so the loop would not be delivered: The token may not push to octo-org\/octo-repo\. For GITHUB_TOKEN give the job `permissions: contents: write`/
  )
  // The dry run asked for the push's ref advertisement, and was refused there: no pack was ever sent.
  expect(p.gitServer.pushAttemptsBy(AGENT_JOB_TOKEN).map(r => [r.method, r.status])).toEqual([['GET', 403]])
  expectClean(p)
})

test('a repository that forbids GitHub Actions to create pull requests: the step stops before any agent runs, naming the setting and where it is', async () => {
  const agent = fixingAgent()
  const p = await project(projectFiles(agent.script))
  p.api.state.failures.actionsCannotCreatePullRequests = true
  const run = await runAction(p, e2e.stand(), { inputs: { ralph: 'fix-tests' } })
  const line = expectStoppedBefore(run, p, agent.ran)
  expect(line).toBe(
    `GitHub Actions may not create pull requests in octo-org/octo-repo, and this run would open one with the job's GITHUB_TOKEN: allow it in the repository's Settings → Actions → General → Workflow permissions → "Allow GitHub Actions to create and approve pull requests" (in an organisation, the same setting must first be allowed in the organisation's Settings → Actions → General), or pass a push-token (a PAT or GitHub App token). No agent ran.`
  )
  // The push was checked first, and would have gone through: its dry run sent nothing.
  expect(p.gitServer.pushAttemptsBy(GITHUB_TOKEN).map(r => [r.method, r.status])).toEqual([['GET', 200]])
  expect(run.main.stdout).toContain(
    "'ralph/fix-tests' on octo-org/octo-repo can be pushed (a dry run: nothing was sent)."
  )
  expectClean(p)
})

test('with a push-token the setting is not asked: the pull request is the token’s, and the loop runs', async () => {
  const agent = fixingAgent()
  const p = await project(projectFiles(agent.script))
  p.api.state.failures.actionsCannotCreatePullRequests = true
  p.api.state.addUser('maintainer', { role: 'write' })
  p.api.state.tokens.set('ghp_maintainer', 'maintainer')
  p.gitServer.tokens.set('ghp_maintainer', 'write')
  const run = await runAction(p, e2e.stand(), {
    inputs: { ralph: 'fix-tests', 'push-token': 'ghp_maintainer' }
  })
  expect(run.main.exitCode).toBe(0)
  expect(run.outputs['pr-operation']).toBe('created')
  expect(p.api.state.pulls).toMatchObject([{ user: 'maintainer' }])
  expect(
    p.api.requests.filter(
      r => r.operationId === 'actions/get-github-actions-default-workflow-permissions-repository'
    )
  ).toEqual([])
  expectClean(p)
})
