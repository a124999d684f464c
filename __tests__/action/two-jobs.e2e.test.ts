// Two-job mode (mode: agent, then mode: deliver) run as a workflow runs it: two jobs of one run, the agent's
// with a read-only token, the deliver job with the write token and no agent.
import { expect, test } from '@jest/globals'
import { DONE, FIX, WRONG_FIX, agentScript, projectFiles } from './fixtures.js'
import { runAction } from './harness.js'
import { e2eSuite } from './suite.js'

const e2e = e2eSuite()
const { project } = e2e

const fixInTwo = agentScript({ 1: `${WRONG_FIX}\nsay('Tried multiplying.')`, 2: `${FIX}\n${DONE}` })

test('smoke: the agent job hands over, the deliver job pushes and opens the pull request', async () => {
  const p = await project(projectFiles(fixInTwo))
  const runId = String(7_100_000_000 + Math.floor(Math.random() * 1000))
  const agent = await runAction(p, e2e.stand(), { runId, inputs: { ralph: 'fix-tests', mode: 'agent' } })
  expect(agent.main.exitCode).toBe(0)
  expect(agent.outputs.delivery).toMatch(/^ralph-delivery-fix-tests-\d+-1$/)
  expect(p.api.state.pulls).toHaveLength(0)
  expect(p.remoteGit('branch', '--list', 'ralph/*').trim()).toBe('')
  const runtime = e2e.stand().artifacts.tokenForJob('c0ffee00-0000-4000-8000-000000000009')
  const deliver = await runAction(p, e2e.stand(), {
    runId,
    env: { ACTIONS_RUNTIME_TOKEN: runtime, GITHUB_JOB: 'deliver' },
    inputs: { ralph: 'fix-tests', mode: 'deliver', delivery: agent.outputs.delivery }
  })
  process.stderr.write(deliver.main.stdout)
  expect(deliver.main.exitCode).toBe(0)
  expect(deliver.outputs).toMatchObject({ success: 'true', 'pr-operation': 'created', verified: 'true' })
  expect(p.remoteGit('rev-parse', 'refs/heads/ralph/fix-tests').trim()).toBe(agent.outputs.commit)
})
