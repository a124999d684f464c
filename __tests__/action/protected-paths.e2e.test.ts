// The verdict is the action's (#27, protected paths): in a `node --test`, a jest and a pytest project, an agent
// that cheats its gates instead of fixing the bug — by weakening a test, deleting one, rewriting the test script
// (package.json's, the Makefile's) or the check script, swapping a test for a link, or steering the runner through
// .npmrc or a conftest.py — gets no pull request: what judges it is put back from the start commit before
// every gate run, and the record says what was put back. An honest agent that fixes the bug and adds a test gets
// its pull request; a workflow file it adds (a GITHUB_TOKEN push must never carry one) is left out of it.
import { expect, test } from '@jest/globals'
import { describeIsolated, sudoRunner, whyNoSudoRunner } from '../support/isolation.js'
import { DONE, agentScript } from './fixtures.js'
import { runAction } from './harness.js'
import { KINDS, js, kindProject, linkMove, type Kind } from './projects.js'
import { e2eSuite, handTo } from './suite.js'

const e2e = e2eSuite()
const { project, expectClean } = e2e

const node = KINDS['node --test']
const weakened = agentScript({ any: `${node.weaken}\n${DONE}` })

/** One cheat class: the gates it fools, the agent's move, the path put back and what the record says of it. */
interface Cheat {
  checks: (kind: Kind) => string[]
  move: (kind: Kind) => string
  put: (kind: Kind) => string
  why: RegExp
}
const CHEATS: Record<string, Cheat> = {
  'edits the assertion': { checks: k => [k.gate], move: k => k.weaken, put: k => k.test, why: /^changed$/ },
  'deletes the test file': {
    checks: k => [k.gate],
    move: k => `fs.rmSync(${js(k.test)})`,
    put: k => k.test,
    why: /^deleted$/
  },
  'changes the test script': {
    checks: k => [k.scriptGate],
    move: k => k.passScript,
    put: k => k.script,
    why: /^changed$/
  },
  'replaces the check script with exit 0': {
    checks: () => ['./check.sh'],
    move: () => `fs.writeFileSync('check.sh', ${js('#!/bin/sh\nexit 0\n')})`,
    put: () => 'check.sh',
    why: /^changed$/
  },
  'swaps the test for a link to another file': {
    checks: k => [k.gate],
    move: linkMove,
    put: k => k.test,
    why: /^replaced by a link$/
  },
  'steers the runner through a configuration file': {
    checks: k => [k.gate],
    move: k => k.config.move,
    put: k => k.config.file,
    why: /^added where paths are protected/
  }
}
const ROWS = (Object.keys(KINDS) as (keyof typeof KINDS)[]).flatMap(kind =>
  Object.keys(CHEATS).map(cheat => [kind, cheat] as const)
)

test.each(ROWS)(
  '%s, an agent that %s gets no pull request, and the record names what was put back',
  async (name, cheatName) => {
    const kind = KINDS[name]
    const { checks, move, put: putOf, why } = CHEATS[cheatName]
    const put = putOf(kind)
    // What the agent finds at the path before it cheats (again): put back as its own, so it still owns its tree.
    const owns = `say('found ${put}: ' + (fs.existsSync(${js(put)}) ? 'owned ' + (fs.lstatSync(${js(put)}).uid === process.getuid()) : 'absent'))`
    const agent = agentScript({ any: `${owns}\n${move(kind)}\n${DONE}` })
    const p = await project(kindProject(kind, agent, checks(kind)))
    const run = await runAction(p, e2e.stand(), {
      inputs: { ralph: 'fix-tests', 'max-iterations': '2', ...kind.inputs }
    })
    expect(run.main.stderr).toBe('')
    expect(run.outputs).toMatchObject({ success: 'false', 'pr-operation': 'none' })
    expect(run.outputs['pr-number'] ?? '').toBe('')
    expect(p.api.state.pulls).toEqual([])
    expect(p.remoteGit('branch', '--list', 'ralph/*').trim()).toBe('')

    const record = await e2e.recordOf(run)
    const status = JSON.parse(record.get('status.json')!.toString('utf8'))
    for (const iteration of status.iterations) {
      const revert = (iteration.reverts ?? []).find((r: { path: string }) => r.path === put)
      expect([iteration.iteration, revert?.why]).toEqual([iteration.iteration, expect.stringMatching(why)])
    }
    expect(record.get('progress.md')!.toString('utf8')).toContain(
      `Protected paths put back from the start commit before the checks: \`${put}\``
    )
    expect(record.get('logs/iteration-002/prompt.md')!.toString('utf8')).toContain(
      'The action put back protected paths after your last run'
    )
    expect(record.get('logs/iteration-002/agent.log')!.toString('utf8')).toContain(
      `found ${put}: ${put === kind.config.file ? 'absent' : 'owned true'}`
    )
    expect(run.summary).toContain('### Protected paths put back')
    expect(run.summary).toContain(`- Iteration 1: \`${put}\``)
    expect(run.main.stdout).toContain('protected paths put back from the start commit before the checks')
    expectClean(p)
  },
  240_000
)

test('an honest agent that fixes the bug and adds a test gets its pull request; a workflow file it adds is put back, never pushed', async () => {
  const agent = agentScript({
    any: [
      node.honest,
      "fs.mkdirSync('.github/workflows', { recursive: true })",
      "fs.writeFileSync('.github/workflows/ci.yml', 'on: push\\njobs: {}\\n')",
      DONE
    ].join('\n')
  })
  const p = await project(kindProject(node, agent, ['npm test', './check.sh']))
  const run = await runAction(p, e2e.stand(), { inputs: { ralph: 'fix-tests' } })
  expect(run.main.stderr).toBe('')
  expect(run.main.exitCode).toBe(0)
  expect(run.outputs).toMatchObject({ success: 'true', 'pr-operation': 'created' })
  const pushed = run.outputs.commit
  expect(p.remoteGit('show', `${pushed}:calc.js`)).toContain('a + b')
  expect(p.remoteGit('show', `${pushed}:calc.more.test.js`)).toContain('add(2, 0)')
  expect(p.remoteGit('ls-tree', '-r', '--name-only', pushed)).not.toContain('.github/')
  // The log and the pull request say what was put back.
  expect(run.main.stdout).toContain('.github/workflows/ci.yml (added where paths are protected')
  expect(p.api.state.pulls[0].body).toContain('### Protected paths put back')
  expect(p.api.state.pulls[0].body).toContain('`.github/workflows/ci.yml`')
  expectClean(p)
}, 240_000)

test('protected-paths: none turns it off: the weakened assertion is what the gates judge', async () => {
  const p = await project(kindProject(node, weakened))
  const run = await runAction(p, e2e.stand(), {
    inputs: { ralph: 'fix-tests', 'max-iterations': '2', 'protected-paths': 'none' }
  })
  expect(run.outputs).toMatchObject({ success: 'true', 'pr-operation': 'created' })
  expectClean(p)
}, 240_000)

describeIsolated('protected paths as a job user with passwordless sudo', whyNoSudoRunner())(
  'the job user with passwordless sudo (the restore runs as the agent through sudo)',
  () => {
    test('a weakened assertion is put back and the run gets no pull request', async () => {
      const user = sudoRunner()
      const p = await project(kindProject(node, weakened))
      handTo(p, user)
      const run = await runAction(p, e2e.stand(), {
        inputs: { ralph: 'fix-tests', isolation: 'user', 'max-iterations': '2' },
        as: user
      })
      expect(run.main.stdout).toContain('started with sudo')
      expect(run.outputs).toMatchObject({ success: 'false', 'pr-operation': 'none' })
      expect(p.api.state.pulls).toEqual([])
      const status = JSON.parse((await e2e.recordOf(run)).get('status.json')!.toString('utf8'))
      expect(status.iterations.map((it: { reverts?: unknown }) => it.reverts)).toEqual([
        [{ path: 'calc.test.js', why: 'changed' }],
        [{ path: 'calc.test.js', why: 'changed' }]
      ])
      expectClean(p)
    }, 240_000)
  }
)
