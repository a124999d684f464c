// Two runs on one machine (issue #29): self-hosted hosts run several runner services, and every process of the
// agent's uid is killed when an agent's run ends. Two overlapping runs with the default agent-user each hold a
// user of their own, so neither kills the other's agent or gates, nor names them as its own.
import { existsSync } from 'node:fs'
import path from 'node:path'
import { expect, test } from '@jest/globals'
import { DONE, FIX, agentScript, projectFiles, ralph } from './fixtures.js'
import { runAction } from './harness.js'
import { e2eSuite } from './suite.js'
import { describeIsolated } from '../support/isolation.js'

const e2e = e2eSuite()

describeIsolated('two runs on one machine (isolation: user)')('two runs on one machine', () => {
  test('two overlapping runs with the default agent-user both succeed: each holds a user of its own', async () => {
    const scratch = e2e.scratch()
    const marker = (name: string): string => JSON.stringify(path.join(scratch, name))
    const waitFor = (name: string): string =>
      `for (let i = 0; i < 1200 && !fs.existsSync(${marker(name)}); i++) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50)\n` +
      `if (!fs.existsSync(${marker(name)})) { say('gave up waiting for ${name}'); process.exit(1) }`
    // A fixes its tests once B's agent runs; its gate marks that A's agent has ended and its gates ran.
    const a = await e2e.project(
      projectFiles(
        agentScript({
          1: `fs.writeFileSync(${marker('a-started')}, '')\n${waitFor('b-started')}\n${FIX}\n${DONE}`
        }),
        ralph({ checks: [`node --test --test-reporter=spec && touch ${marker('a-gated')}`] })
      )
    )
    // B's agent is still running when A's agent ends and A's gates run: sharing a uid, A's run would kill it.
    const b = await e2e.project(
      projectFiles(
        agentScript({
          1: `fs.writeFileSync(${marker('b-started')}, '')\n${waitFor('a-gated')}\n${FIX}\n${DONE}`
        })
      )
    )
    const inputs = { ralph: 'fix-tests', isolation: 'user', 'agent-user': 'ralph-agent' }
    const [runA, runB] = await Promise.all([
      runAction(a, e2e.stand(), { inputs }),
      runAction(b, e2e.stand(), { inputs })
    ])
    for (const run of [runA, runB]) {
      expect(run.main.exitCode).toBe(0)
      expect(run.outputs).toMatchObject({ 'stop-reason': 'all_checks_passed', iterations: '1' })
      // Nothing of the other run's was found and killed as this run's leftovers.
      expect(run.main.stdout).not.toMatch(/Killed \d+ process/)
    }
    expect(existsSync(path.join(scratch, 'a-gated'))).toBe(true)
    const users = [runA, runB].map(run => /run as (ralph-agent(?:-\d+)?) \(uid/.exec(run.main.stdout)?.[1])
    expect(users.sort()).toEqual(['ralph-agent', 'ralph-agent-2'])
    // The run that found the default held said so, naming the other run's process.
    const second = [runA, runB].find(run => run.main.stdout.includes('run as ralph-agent-2'))
    expect(second?.main.stdout).toMatch(
      /The agent's user ralph-agent is held by another run \(pid \d+\): trying ralph-agent-2\./
    )
    e2e.expectClean(a)
    e2e.expectClean(b)
  }, 180_000)
})
