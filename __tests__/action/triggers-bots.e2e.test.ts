// Issue #35, through the shipped bundle: a bot never drives the action unless allowed-bots names it, whatever
// the event. A push needs no permission check, so renovate's push once started a paid loop.
import { existsSync } from 'node:fs'
import { expect, test } from '@jest/globals'
import { projectFiles } from './fixtures.js'
import { runAction } from './harness.js'
import { e2eSuite } from './suite.js'

const e2e = e2eSuite()
const { project, expectClean, fixingAgent } = e2e

test("a bot's push starts no loop: one log line says why, the step ends green, nothing is asked of GitHub", async () => {
  const agent = fixingAgent()
  const p = await project(projectFiles(agent.script))
  p.api.state.addUser('renovate[bot]', { type: 'Bot', role: 'write' })
  const run = await runAction(p, e2e.stand(), {
    inputs: { ralph: 'fix-tests' },
    eventName: 'push',
    event: p.api.events.push('main', { sender: 'renovate[bot]' }),
    noPost: true
  })
  expect(run.main.exitCode).toBe(0)
  const said = run.main.stdout.split('\n').filter(line => /renovate\[bot\]/.test(line))
  expect(said).toEqual([
    'Nothing to do: this push event was sent by `renovate[bot]`, a bot (a GitHub App), and bots may start a loop only when the workflow names them in the allowed-bots input.'
  ])
  expect(run.outputs).not.toHaveProperty('stop-reason')
  expect(existsSync(agent.ran)).toBe(false)
  expect(p.api.requests).toEqual([])
  expectClean(p)
})
