// A JavaScript project's gates need its devDependencies, and node_modules is never in a clean checkout (#28).
// The example workflows run `npm ci` as a step before the action: that fills the loop's tree only. Without
// `setup: npm ci`, the gates pass in the loop's tree and fail on the clean checkout every run (verify_failed);
// with it, the work is verified and delivered. The dependency is a folder of the project (`file:`), so no
// registry is asked.
import { execFileSync } from 'node:child_process'
import { expect, test } from '@jest/globals'
import { DONE, RALPH_DIR, agentScript, ralph } from './fixtures.js'
import { runAction, type Files } from './harness.js'
import { e2eSuite } from './suite.js'

const e2e = e2eSuite()
const { project, expectClean } = e2e

/** calc.test.js imports `sum`, a devDependency: `node --test` needs node_modules. */
const NPM_PROJECT: Files = {
  'package.json': JSON.stringify({
    name: 'calc',
    private: true,
    type: 'module',
    devDependencies: { sum: 'file:./vendor/sum' }
  }),
  'package-lock.json': JSON.stringify({
    name: 'calc',
    lockfileVersion: 3,
    requires: true,
    packages: {
      '': { name: 'calc', devDependencies: { sum: 'file:./vendor/sum' } },
      'node_modules/sum': { resolved: 'vendor/sum', link: true },
      'vendor/sum': { version: '1.0.0', dev: true }
    }
  }),
  // No registry is asked: nothing to download, no audit.
  '.npmrc': 'offline=true\naudit=false\nfund=false\nupdate-notifier=false\n',
  '.gitignore': 'node_modules/\n',
  'vendor/sum/package.json': JSON.stringify({
    name: 'sum',
    version: '1.0.0',
    type: 'module',
    main: 'index.js'
  }),
  'vendor/sum/index.js': 'export const sum = (a, b) => a + b\n',
  'calc.js': 'export const add = (a, b) => a - b\n',
  'calc.test.js': [
    "import { test } from 'node:test'",
    "import assert from 'node:assert/strict'",
    "import { sum } from 'sum'",
    "import { add } from './calc.js'",
    "test('add', () => assert.equal(add(1, 2), sum(1, 2)))",
    ''
  ].join('\n'),
  [`${RALPH_DIR}/agent.mjs`]: agentScript({
    1: `fs.writeFileSync('calc.js', 'export const add = (a, b) => a + b\\n')\n${DONE}`
  }),
  [`${RALPH_DIR}/RALPH.md`]: ralph()
}

/** The project checked out, then `npm ci` as the example workflows' step runs it. */
async function npmProject() {
  const p = await project(NPM_PROJECT)
  execFileSync('npm', ['ci'], { cwd: p.workspace, stdio: 'pipe' })
  return p
}

test('npm ci before the action and no setup: the gates pass in the loop’s tree, fail on the clean checkout, and the loop stops there (verify_failed), its failure saying to give setup npm ci', async () => {
  const p = await npmProject()
  const run = await runAction(p, e2e.stand(), { inputs: { ralph: 'fix-tests', 'max-iterations': '5' } })
  // No agent can mend a missing install: one iteration paid, not five.
  expect(run.outputs).toMatchObject({
    'stop-reason': 'verify_failed',
    success: 'false',
    verified: 'false',
    iterations: '1'
  })
  expect(p.api.state.pulls).toHaveLength(0)
  expect(p.remoteGit('branch', '--list', 'ralph/fix-tests').trim()).toBe('')
  const status = JSON.parse((await e2e.recordOf(run)).get('status.json')!.toString('utf8'))
  const [iteration] = status.iterations
  // The loop's tree has the workspace's node_modules: its gate passes.
  expect(iteration.checks).toEqual([expect.objectContaining({ name: 'tests', passed: true })])
  expect(iteration.verification).toMatchObject({ verdict: 'failed', setup: [] })
  expect(iteration.verification.checks[0].tail).toMatch(/Cannot find package 'sum'/)
  // The step's failure names the fix.
  expect(run.main.errors.map(e => e.message)).toEqual([
    expect.stringMatching(
      /no setup ran: .*node_modules.*\(a JavaScript project's: setup: npm ci\); no agent can fix that, so the loop stopped there/
    )
  ])
  expectClean(p)
})

test('npm ci before the action and setup: npm ci: verified on the clean checkout, the pull request is opened', async () => {
  const p = await npmProject()
  const run = await runAction(p, e2e.stand(), {
    inputs: { ralph: 'fix-tests', 'max-iterations': '1', setup: 'npm ci' }
  })
  expect(run.main.stderr).toBe('')
  expect(run.outputs).toMatchObject({
    'stop-reason': 'all_checks_passed',
    success: 'true',
    verified: 'true',
    'pr-operation': 'created'
  })
  const pushed = p.remoteGit('rev-parse', 'refs/heads/ralph/fix-tests').trim()
  expect(p.remoteGit('ls-tree', '-r', '--name-only', pushed)).not.toContain('node_modules')
  expect(p.api.state.pulls[0].body).toContain(`Verified on a clean checkout of \`${pushed.slice(0, 12)}\``)
  const status = JSON.parse((await e2e.recordOf(run)).get('status.json')!.toString('utf8'))
  expect(status.iterations[0].verification).toMatchObject({
    verdict: 'passed',
    setup: [expect.objectContaining({ run: 'npm ci', passed: true })]
  })
  expectClean(p)
})
