// The harness's two-job pieces, proven on today's action (issue #28): a job whose token is read-only
// (AGENT_JOB_TOKEN) has each push and each write refused, and the stand-ins list them by token; a later job
// of the same run gets a fresh checkout at the run's commit, its own token, GITHUB_JOB and runtime token.
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { expect, test } from '@jest/globals'
import { projectFiles, ralph } from './fixtures.js'
import { AGENT_JOB_TOKEN, GITHUB_TOKEN, jobBackendId, runAction } from './harness.js'
import { e2eSuite } from './suite.js'

const e2e = e2eSuite()
const { project, fixingAgent } = e2e

test('a job with the read-only token: its push (the dry run before any agent) and its writes are refused 403 and listed by token', async () => {
  const agent = fixingAgent()
  const p = await project(projectFiles(agent.script), { token: AGENT_JOB_TOKEN })
  p.api.state.addUser('maintainer', { role: 'write' })
  const issue = p.api.state.addIssue({ title: 'add() subtracts', body: 'It should add.', user: 'maintainer' })
  const comment = p.api.state.addComment(issue.number, { body: '/ralph fix-tests', user: 'maintainer' })
  const run = await runAction(p, e2e.stand(), {
    inputs: { ralph: 'fix-tests' },
    eventName: 'issue_comment',
    event: p.api.events.issueComment(comment.id),
    runId: '7100000001',
    job: 'agent'
  })
  // Today's action asks for the push before any agent runs, and stops there.
  expect(run.main.exitCode).toBe(1)
  expect(run.main.errors.map(e => e.message)).toEqual([
    expect.stringMatching(/^A push dry run of .* refused/)
  ])

  // The checkout's credential is the read-only token: its push is refused before anything lands.
  const pushes = p.gitServer.pushAttemptsBy(AGENT_JOB_TOKEN)
  expect(pushes.map(r => r.status)).toEqual([403])
  expect(p.gitServer.pushAttemptsBy(GITHUB_TOKEN)).toEqual([])
  expect(p.remoteGit('for-each-ref', 'refs/heads/ralph/').trim()).toBe('')

  // github-token's default is the job's token: today's action tries the 👀 and the reply with it, each
  // refused; nothing was asked with another token, and nothing changed.
  expect(p.api.writesBy(AGENT_JOB_TOKEN)).toEqual(
    expect.arrayContaining([
      `POST /repos/octo-org/octo-repo/issues/comments/${comment.id}/reactions`,
      `POST /repos/octo-org/octo-repo/issues/${issue.number}/comments`
    ])
  )
  const writes = p.api.requests.filter(
    r => r.token === AGENT_JOB_TOKEN && !['GET', 'HEAD'].includes(r.method)
  )
  expect(writes.map(r => r.status)).toEqual(writes.map(() => 403))
  expect(p.api.requests.filter(r => r.token !== AGENT_JOB_TOKEN)).toEqual([])
  expect(p.api.state.reactions).toEqual([])
  expect(p.api.state.comments.map(c => c.id)).toEqual([comment.id])
  expect(p.api.state.pulls).toEqual([])
  expect(p.api.violations).toEqual([])
})

test("a later job of the run: a fresh checkout at the run's commit, with its own token, job and runtime token", async () => {
  const p = await project({ ...projectFiles(fixingAgent().script), '.agents/ralphs/docs/RALPH.md': ralph() })
  const runId = '7100000002'
  const environment = (job: string) => path.join(e2e.scratch(), `environment-${job}`)
  // Writes the step's environment to a file, then runs the action as given (not through sh: dash drops
  // variables whose names hold a hyphen, as INPUT_GITHUB-TOKEN does).
  const recordEnvironment = (job: string) => [
    process.execPath,
    '-e',
    `require('fs').writeFileSync(${JSON.stringify(environment(job))}, JSON.stringify(process.env))
const step = require('child_process').spawnSync(process.argv[1], process.argv.slice(2), { stdio: 'inherit' })
process.exit(step.status ?? 1)`
  ]
  const first = await runAction(p, e2e.stand(), {
    inputs: { mode: 'list' },
    runId,
    job: 'agent',
    token: AGENT_JOB_TOKEN,
    wrap: recordEnvironment('agent')
  })
  expect(first.main.exitCode).toBe(0)
  p.git('checkout', '--quiet', '-b', 'ralph/left-behind')
  const moved = p.pushToRemote('main', { 'LATER.md': 'pushed between the jobs\n' }, 'Someone else')

  const q = await e2e.checkoutAgain(p)
  expect(q.workspace).not.toBe(p.workspace)
  expect(q.runnerTemp).not.toBe(p.runnerTemp)
  expect([q.remote, q.api, q.gitServer]).toEqual([p.remote, p.api, p.gitServer])
  // actions/checkout of the run's commit, not main's new tip; nothing of the first runner's work tree.
  expect(q.sha).toBe(p.sha)
  expect(q.git('rev-parse', 'HEAD').trim()).toBe(p.sha)
  expect(p.remoteGit('rev-parse', 'main').trim()).toBe(moved)
  expect(q.git('branch', '--format=%(refname:short)').trim()).toBe('main')
  const key = `http.${q.gitServer.url}/.extraheader`
  expect(q.git('config', '--get', key)).toContain(
    Buffer.from(`x-access-token:${GITHUB_TOKEN}`).toString('base64')
  )

  const second = await runAction(q, e2e.stand(), {
    inputs: { mode: 'list' },
    runId,
    job: 'deliver',
    wrap: recordEnvironment('deliver')
  })
  expect(second.main.exitCode).toBe(0)
  expect(JSON.parse(second.outputs.matrix)).toEqual({ ralph: ['docs', 'fix-tests'] })

  const envOf = (job: string): Record<string, string> => JSON.parse(readFileSync(environment(job), 'utf8'))
  const [agentJob, deliverJob] = [envOf('agent'), envOf('deliver')]
  const scopeOf = (token: string) =>
    JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString('utf8')).scp as string
  const run = e2e.stand().artifacts.workflowRunBackendId
  expect(agentJob).toMatchObject({
    GITHUB_JOB: 'agent',
    GITHUB_RUN_ID: runId,
    GITHUB_RUN_ATTEMPT: '1',
    GITHUB_SHA: p.sha,
    GITHUB_WORKSPACE: p.workspace,
    'INPUT_GITHUB-TOKEN': AGENT_JOB_TOKEN
  })
  expect(deliverJob).toMatchObject({
    GITHUB_JOB: 'deliver',
    GITHUB_RUN_ID: runId,
    GITHUB_RUN_NUMBER: agentJob.GITHUB_RUN_NUMBER,
    GITHUB_RUN_ATTEMPT: '1',
    GITHUB_SHA: p.sha,
    GITHUB_WORKSPACE: q.workspace,
    RUNNER_TEMP: q.runnerTemp,
    'INPUT_GITHUB-TOKEN': GITHUB_TOKEN
  })
  expect(scopeOf(agentJob.ACTIONS_RUNTIME_TOKEN)).toContain(`Actions.Results:${run}:${jobBackendId('agent')}`)
  expect(scopeOf(deliverJob.ACTIONS_RUNTIME_TOKEN)).toContain(
    `Actions.Results:${run}:${jobBackendId('deliver')}`
  )
  expect(jobBackendId('agent')).not.toBe(jobBackendId('deliver'))
})
