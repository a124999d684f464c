// The cheat corpus of the test count (#27) through dist/index.js: in a `node --test`, a jest and a pytest
// project whose test of `add` fails, an agent that skips (or xfails) that test, or makes the code under test
// end the runner early, leaves every gate exiting 0 with fewer tests run. Each ends with no pull request,
// success false, and the gate's line in the record; an honest agent that fixes `add` and adds a test gets its PR.
import { expect, test } from '@jest/globals'
import { agentScript } from './fixtures.js'
import { runAction } from './harness.js'
import { KINDS, kindProject, type Kind } from './projects.js'
import { e2eSuite } from './suite.js'

const { stand, project, expectClean, recordOf } = e2eSuite()

const DONE = "process.stdout.write('Done.\\n\\n<promise>COMPLETE</promise>\\n')"

async function runWith(kind: Kind, move: string, inputs: Record<string, string> = {}) {
  const agent = agentScript({ 1: `${move}\n${DONE}` })
  const p = await project(kindProject(kind, agent, [kind.gate], 'Make the tests pass.'))
  const run = await runAction(p, stand(), {
    inputs: { ralph: 'fix-tests', 'max-iterations': '1', ...kind.inputs, ...inputs }
  })
  const status = JSON.parse((await recordOf(run)).get('status.json')!.toString('utf8'))
  return { p, run, status }
}

test.each([
  [
    'node --test',
    'skip',
    '`npm test` ran 3 tests at the start and 2 now; `npm test` skipped 0 tests at the start and 1 now'
  ],
  // calc.test.js, ended early, passes as one test named by its path: counted as none; mul.test.js ran its two.
  ['node --test', 'exit', '`npm test` ran 3 tests at the start and 2 now'],
  [
    'jest',
    'skip',
    '`npm test` ran 3 tests at the start and 2 now; `npm test` skipped 0 tests at the start and 1 now'
  ],
  ['jest', 'exit', "`npm test` reported no test count: jest's summary is not in its output"],
  [
    'pytest',
    'skip',
    '`/usr/bin/python3 -m pytest -q` ran 3 tests at the start and 2 now; `/usr/bin/python3 -m pytest -q` skipped 0 tests at the start and 1 now'
  ],
  [
    'pytest',
    'exit',
    "`/usr/bin/python3 -m pytest -q` reported no test count: pytest's summary is not in its output"
  ]
] as const)(
  '%s, the agent cheats (%s): the gate exits 0, fails on its count, no pull request',
  async (name, move, line) => {
    // The count alone: with protected paths (the default) the skipped test is put back before the gates run.
    const { p, run, status } = await runWith(KINDS[name], KINDS[name][move], { 'protected-paths': 'none' })
    expect(run.outputs.success).toBe('false')
    // The step fails with the reason, as any run whose gates never pass.
    expect(run.main.exitCode).toBe(1)
    expect(run.main.errors.at(-1)?.message).toMatch(/^The gates never passed \(max_iterations\)/)
    expect(run.outputs['pr-number'] ?? '').toBe('')
    expect(p.api.state.pulls).toHaveLength(0)
    expect(status.success).toBe(false)
    expect(status.baseline.checks[0].tests).toEqual({ run: 3, passed: 2, failed: 1, skipped: 0 })
    const [check] = status.iterations[0].checks
    expect(check).toMatchObject({ exitCode: 0, passed: false })
    expect(check.tail).toContain(line)
    expectClean(p)
  }
)

test.each(Object.keys(KINDS) as (keyof typeof KINDS)[])(
  '%s, an honest agent fixes add and adds a test: the count grows, the pull request is opened',
  async name => {
    const { p, run, status } = await runWith(KINDS[name], KINDS[name].honest)
    expect(run.outputs).toMatchObject({
      success: 'true',
      'stop-reason': 'all_checks_passed',
      'pr-number': '1'
    })
    expect(p.api.state.pulls).toHaveLength(1)
    expect(status.baseline.checks[0].tests).toEqual({ run: 3, passed: 2, failed: 1, skipped: 0 })
    expect(status.iterations[0].checks[0].tests).toEqual({ run: 4, passed: 4, failed: 0, skipped: 0 })
    expectClean(p)
  }
)
