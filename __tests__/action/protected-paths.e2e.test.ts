// The verdict is the action's (#27, protected paths): an agent that cheats its gates instead of fixing the bug —
// by weakening a test, deleting one, rewriting the test script or the check script, swapping a test for a link,
// or steering npm through .npmrc — gets no pull request: what judges it is put back from the start commit before
// every gate run, and the record says what was put back. An honest agent that fixes the bug and adds a test gets
// its pull request; a workflow file it adds (a GITHUB_TOKEN push must never carry one) is left out of it.
import { execFileSync } from 'node:child_process'
import { chownSync } from 'node:fs'
import path from 'node:path'
import { expect, test } from '@jest/globals'
import { describeIsolated, sudoRunner, whyNoSudoRunner } from '../support/isolation.js'
import { DONE, FIX, RALPH_DIR, agentScript, ralph } from './fixtures.js'
import { runAction, type Files } from './harness.js'
import { e2eSuite } from './suite.js'

const e2e = e2eSuite()
const { project, expectClean } = e2e

const calcTest = [
  "import { test } from 'node:test'",
  "import assert from 'node:assert/strict'",
  "import { add } from './calc.js'",
  '',
  "test('add returns the sum', () => {",
  '  assert.equal(add(1, 2), 3)',
  '})',
  ''
].join('\n')

/** A small `node --test` project whose test fails on a real bug (add subtracts), with gates as given. */
function files(agent: string, checks: string[]): Files {
  return {
    'package.json':
      '{ "name": "calc", "private": true, "type": "module", "scripts": { "test": "node --test" } }\n',
    'calc.js': 'export function add(a, b) {\n  return a - b\n}\n',
    'calc.test.js': calcTest,
    'check.sh': { content: '#!/bin/sh\nexec node --test\n', mode: 0o755 },
    [`${RALPH_DIR}/RALPH.md`]: ralph({ checks }),
    [`${RALPH_DIR}/agent.mjs`]: agent
  }
}

const js = (text: string): string => JSON.stringify(text)
const CHEATS: [name: string, checks: string[], cheat: string, put: string, why: RegExp][] = [
  [
    'edits the assertion',
    ['node --test'],
    `fs.writeFileSync('calc.test.js', fs.readFileSync('calc.test.js', 'utf8').replace('3)', '-1)'))`,
    'calc.test.js',
    /^changed$/
  ],
  ['deletes the test file', ['node --test'], "fs.rmSync('calc.test.js')", 'calc.test.js', /^deleted$/],
  [
    'changes the test script in package.json',
    ['npm test'],
    `fs.writeFileSync('package.json', ${js('{ "name": "calc", "private": true, "type": "module", "scripts": { "test": "echo ok" } }\n')})`,
    'package.json',
    /^changed$/
  ],
  [
    'replaces the check script with exit 0',
    ['./check.sh'],
    `fs.writeFileSync('check.sh', ${js('#!/bin/sh\nexit 0\n')})`,
    'check.sh',
    /^changed$/
  ],
  [
    'swaps the test for a link to another file',
    ['node --test'],
    [
      `fs.writeFileSync('always.js', ${js("import { test } from 'node:test'\ntest('fine', () => {})\n")})`,
      "fs.rmSync('calc.test.js')",
      "fs.symlinkSync('always.js', 'calc.test.js')"
    ].join('\n'),
    'calc.test.js',
    /^replaced by a link$/
  ],
  [
    'steers npm through .npmrc',
    ['npm test'],
    `fs.writeFileSync('.npmrc', 'script-shell=/bin/true\\n')`,
    '.npmrc',
    /^added where paths are protected/
  ]
]

test.each(CHEATS)(
  'an agent that %s gets no pull request, and the record names what was put back',
  async (_name, checks, cheat, put, why) => {
    // What the agent finds at the path before it cheats (again): put back as its own, so it still owns its tree.
    const owns = `say('found ${put}: ' + (fs.existsSync(${js(put)}) ? 'owned ' + (fs.lstatSync(${js(put)}).uid === process.getuid()) : 'absent'))`
    const agent = agentScript({ any: `${owns}\n${cheat}\n${DONE}` })
    const p = await project(files(agent, checks))
    const run = await runAction(p, e2e.stand(), { inputs: { ralph: 'fix-tests', 'max-iterations': '2' } })
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
      `found ${put}: ${put === '.npmrc' ? 'absent' : 'owned true'}`
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
      FIX,
      `fs.writeFileSync('calc.more.test.js', ${js("import { test } from 'node:test'\nimport assert from 'node:assert/strict'\nimport { add } from './calc.js'\ntest('add(2, 2)', () => assert.equal(add(2, 2), 4))\n")})`,
      "fs.mkdirSync('.github/workflows', { recursive: true })",
      "fs.writeFileSync('.github/workflows/ci.yml', 'on: push\\njobs: {}\\n')",
      DONE
    ].join('\n')
  })
  const p = await project(files(agent, ['npm test', './check.sh']))
  const run = await runAction(p, e2e.stand(), { inputs: { ralph: 'fix-tests' } })
  expect(run.main.stderr).toBe('')
  expect(run.main.exitCode).toBe(0)
  expect(run.outputs).toMatchObject({ success: 'true', 'pr-operation': 'created' })
  const pushed = run.outputs.commit
  expect(p.remoteGit('show', `${pushed}:calc.js`)).toContain('a + b')
  expect(p.remoteGit('show', `${pushed}:calc.more.test.js`)).toContain('add(2, 2)')
  expect(p.remoteGit('ls-tree', '-r', '--name-only', pushed)).not.toContain('.github/')
  // The log and the pull request say what was put back.
  expect(run.main.stdout).toContain('.github/workflows/ci.yml (added where paths are protected')
  expect(p.api.state.pulls[0].body).toContain('### Protected paths put back')
  expect(p.api.state.pulls[0].body).toContain('`.github/workflows/ci.yml`')
  expectClean(p)
}, 240_000)

test('protected-paths: none turns it off: the weakened assertion is what the gates judge', async () => {
  const agent = agentScript({
    any: `fs.writeFileSync('calc.test.js', fs.readFileSync('calc.test.js', 'utf8').replace('3)', '-1)'))\n${DONE}`
  })
  const p = await project(files(agent, ['node --test']))
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
      const agent = agentScript({
        any: `fs.writeFileSync('calc.test.js', fs.readFileSync('calc.test.js', 'utf8').replace('3)', '-1)'))\n${DONE}`
      })
      const p = await project(files(agent, ['node --test']))
      chownSync(p.dir, user.uid, user.gid)
      for (const dir of [path.join(p.dir, 'runner'), p.home])
        execFileSync('chown', ['-R', `${user.uid}:${user.gid}`, dir])
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
