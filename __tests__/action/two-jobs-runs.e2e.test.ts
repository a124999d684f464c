// Two-job mode's other paths (issue #28), through dist as the workflow runs them: a stranger's /ralph (the
// deliver job replies), a nightly hunt whose second night continues its pull request, gates that never pass
// (on-failure), and cancelling either job (a whole record, nothing half-delivered).
import { existsSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { expect, test } from '@jest/globals'
import { agentScript, DONE, FIX, projectFiles, WRONG_FIX } from './fixtures.js'
import { AGENT_JOB_TOKEN, waitForFile } from './harness.js'
import { e2eSuite } from './suite.js'
import { twoJobs } from './two-jobs.js'

const e2e = e2eSuite()
const { project, expectClean } = e2e

const { newRunId, agentJob, deliverJob } = twoJobs(e2e, 7_300_000_000)

const artifactNamed = (name: string) =>
  e2e
    .stand()
    .artifacts.listArtifacts()
    .find(a => a.name === name)

test("a stranger's /ralph: the agent job refuses without a word to GitHub, the deliver job replies", async () => {
  const agent = e2e.fixingAgent()
  const p = await project(projectFiles(agent.script), { token: AGENT_JOB_TOKEN })
  p.api.state.addUser('passer-by', { role: 'read' })
  const issue = p.api.state.addIssue({ title: 'Please', body: 'fix it', user: 'passer-by' })
  const comment = p.api.state.addComment(issue.number, { body: '/ralph fix-tests', user: 'passer-by' })
  const trigger = { eventName: 'issue_comment', event: p.api.events.issueComment(comment.id) }
  const runId = newRunId()
  const first = await agentJob(p, runId, trigger)
  expect(first.main.exitCode).toBe(0)
  expect(first.outputs.delivery ?? '').toBe('')
  expect(existsSync(agent.ran)).toBe(false)
  expect(
    first.main.commands.some(c => c.command === 'warning' && /the deliver job replies/.test(c.message))
  ).toBe(true)
  expect(p.api.writesBy(AGENT_JOB_TOKEN)).toEqual([])

  const second = await deliverJob(p, runId, first.outputs.delivery ?? '', trigger)
  expect(second.main.exitCode).toBe(0)
  const replies = p.api.state.comments.filter(c => c.issueNumber === issue.number && c.id !== comment.id)
  expect(replies).toHaveLength(1)
  expect(replies[0].body).toMatch(/@passer-by/)
  expect(p.api.state.pulls).toEqual([])
  expect(p.remoteGit('for-each-ref', 'refs/heads/ralph/').trim()).toBe('')
  expectClean(p)
})

test("a nightly hunt in two jobs: the second night continues the first night's pull request, never a second one", async () => {
  const agent = agentScript({ 1: `${FIX}\n${DONE}` })
  const p = await project(projectFiles(agent), { token: AGENT_JOB_TOKEN })
  const night = { eventName: 'schedule', event: p.api.events.schedule() }

  const run1 = newRunId()
  const a1 = await agentJob(p, run1, night)
  expect(a1.outputs.delivery).not.toBe('')
  const d1 = await deliverJob(p, run1, a1.outputs.delivery, night)
  expect(d1.main.exitCode).toBe(0)
  expect(d1.outputs).toMatchObject({ 'pr-operation': 'created', branch: 'ralph/fix-tests' })

  // Someone breaks the pull request's branch during the day: the next night's hunt continues it.
  const broken = p.pushToRemote(
    'ralph/fix-tests',
    { 'calc.js': 'export function add(a, b) {\n  return a - b\n}\n' },
    'a reviewer breaks it'
  )
  const run2 = newRunId()
  const a2 = await agentJob(p, run2, night)
  expect(a2.main.exitCode).toBe(0)
  expect(p.gitServer.pushAttemptsBy(AGENT_JOB_TOKEN)).toEqual([])
  const d2 = await deliverJob(p, run2, a2.outputs.delivery, night)
  expect(d2.main.exitCode).toBe(0)
  expect(d2.outputs).toMatchObject({ 'pr-operation': 'updated', 'pr-number': d1.outputs['pr-number'] })
  expect(p.api.state.pulls).toHaveLength(1)
  // On top of the reviewer's commit, not in place of it.
  const tip = p.remoteGit('rev-parse', 'refs/heads/ralph/fix-tests').trim()
  expect(tip).toBe(a2.outputs.commit)
  expect(p.remoteGit('rev-parse', `${tip}~1`).trim()).toBe(broken)
  expect(p.api.writesBy(AGENT_JOB_TOKEN)).toEqual([])
  expectClean(p)
})

test('gates that never pass: the agent job hands over its failure, the deliver job pushes nothing (on-failure none), or a draft with draft-pr', async () => {
  const agent = agentScript({ any: WRONG_FIX })
  const p = await project(projectFiles(agent), { token: AGENT_JOB_TOKEN })
  const runId = newRunId()
  const failing = await agentJob(p, runId, { inputs: { 'max-iterations': '1' } })
  expect(failing.main.exitCode).toBe(1)
  expect(failing.outputs).toMatchObject({ 'stop-reason': 'max_iterations', success: 'false' })
  expect(failing.outputs.delivery).not.toBe('')

  const none = await deliverJob(p, runId, failing.outputs.delivery, { inputs: { 'max-iterations': '1' } })
  expect(none.main.exitCode).toBe(1)
  expect(none.outputs).toMatchObject({ 'stop-reason': 'max_iterations', 'pr-operation': 'none' })
  expect(p.remoteGit('for-each-ref', 'refs/heads/ralph/').trim()).toBe('')

  // The deliver job re-run alone (attempt 2), told to open a draft: it takes attempt 1's delivery.
  const draft = await deliverJob(p, runId, failing.outputs.delivery, {
    runAttempt: '2',
    inputs: { 'max-iterations': '1', 'on-failure': 'draft-pr' }
  })
  expect(draft.outputs).toMatchObject({ 'pr-operation': 'created', verified: 'false' })
  expect(p.api.state.pulls).toMatchObject([{ draft: true }])
  expect(p.remoteGit('rev-parse', 'refs/heads/ralph/fix-tests').trim()).toBe(failing.outputs.commit)
})

test('cancelling the agent job leaves its whole record and no delivery', async () => {
  const marker = path.join(e2e.scratch(), `two-jobs-cancel-agent-${process.pid}`)
  const agent = agentScript({
    any: `fs.writeFileSync(${JSON.stringify(marker)}, 'x'); await new Promise(r => setTimeout(r, 60000))`
  })
  const p = await project(projectFiles(agent), { token: AGENT_JOB_TOKEN })
  const runId = newRunId()
  const run = await agentJob(p, runId, {
    duringMain: async child => {
      await waitForFile(marker, 60_000)
      child.kill('SIGINT')
    }
  })
  expect(run.main.exitCode).toBe(1)
  expect(run.outputs['stop-reason']).toBe('cancelled')
  expect(run.outputs.delivery ?? '').toBe('')
  expect(artifactNamed(`ralph-delivery-fix-tests-${runId}-1`)).toBeUndefined()
  const record = artifactNamed(`ralph-fix-tests-${runId}-1`)
  expect(record).toBeDefined()
  const files = await e2e.stand().artifacts.downloadArtifact(record?.name ?? '')
  expect(JSON.parse((files.get('status.json') as Buffer).toString('utf8'))).toMatchObject({
    state: 'finished',
    stopReason: 'cancelled'
  })
  expect(p.api.writesBy(AGENT_JOB_TOKEN)).toEqual([])
  expect(p.gitServer.pushAttemptsBy(AGENT_JOB_TOKEN)).toEqual([])
})

test('cancelling the deliver job during its clean re-run pushes nothing and leaves its record', async () => {
  const p = await project(projectFiles(agentScript({ 1: `${FIX}\n${DONE}` })), { token: AGENT_JOB_TOKEN })
  const runId = newRunId()
  const agent = await agentJob(p, runId)
  expect(agent.outputs.delivery).not.toBe('')
  // A gate of the deliver job's own (its `checks` input) that holds the re-run until the job is cancelled.
  const reached = path.join(e2e.scratch(), `two-jobs-cancel-deliver-${process.pid}`)
  const run = await deliverJob(p, runId, agent.outputs.delivery, {
    inputs: { checks: `touch ${reached}; sleep 60` },
    duringMain: async child => {
      await waitForFile(reached, 60_000)
      child.kill('SIGINT')
    }
  })
  expect(run.main.exitCode).toBe(1)
  expect(run.outputs['stop-reason']).toBe('cancelled')
  expect(p.remoteGit('for-each-ref', 'refs/heads/ralph/').trim()).toBe('')
  expect(p.api.state.pulls).toEqual([])
  const record = artifactNamed(`ralph-fix-tests-${runId}-1-deliver`)
  expect(record).toBeDefined()
  const files = await e2e.stand().artifacts.downloadArtifact(record?.name ?? '')
  expect([...files.keys()]).toEqual(expect.arrayContaining(['delivery.json', 'status.json']))
  writeFileSync(reached, '')
})

test('a label on an issue in two jobs: the deliver job opens the pull request that closes it', async () => {
  const agent = e2e.fixingAgent()
  const p = await project(projectFiles(agent.script), { token: AGENT_JOB_TOKEN })
  p.api.state.addUser('maintainer', { role: 'write' })
  const issue = p.api.state.addIssue({ title: 'add() subtracts', body: 'It should add.', user: 'maintainer' })
  const trigger = {
    eventName: 'issues',
    event: p.api.events.issues(issue.number, 'labeled', { label: 'ralph', sender: 'maintainer' })
  }
  const runId = newRunId()
  const first = await agentJob(p, runId, trigger)
  expect(first.main.exitCode).toBe(0)
  expect(p.api.writesBy(AGENT_JOB_TOKEN)).toEqual([])
  const second = await deliverJob(p, runId, first.outputs.delivery, trigger)
  expect(second.main.exitCode).toBe(0)
  expect(second.outputs).toMatchObject({ 'pr-operation': 'created', branch: `ralph/issue-${issue.number}` })
  expect(p.api.state.pulls[0].body).toContain(`Closes #${issue.number}`)
  expectClean(p)
})
