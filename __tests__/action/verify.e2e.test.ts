// The verdict is the action's (#27, parts 3 and 4): before anything is pushed, the gates pass once more on a
// clean checkout of exactly the commit delivered (no ignored or untracked file of the loop's tree, `setup`
// first, as the agent's user). A tree that passes only because of a file git ignores gets no pull request, in
// the `node --test`, jest and pytest projects too.
import { expect, test } from '@jest/globals'
import { DONE, FIX, agentScript, projectFiles, ralph } from './fixtures.js'
import { runAction } from './harness.js'
import { TEST_AGENT_USER } from '../support/agent-user.js'
import { KINDS, kindProject } from './projects.js'
import { e2eSuite } from './suite.js'

const e2e = e2eSuite()
const { project, expectClean } = e2e

/** The cheat: calc.js takes its answer from a file .gitignore keeps out of every commit. */
const CHEAT = [
  "fs.writeFileSync('answer.js', 'export const add = (a, b) => a + b\\n')",
  "fs.writeFileSync('calc.js', \"export { add } from './answer.js'\\n\")"
].join('\n')

const cheatingProject = (agent: string, extra?: string) => ({
  ...projectFiles(agent, ralph(extra ? { extra } : {})),
  '.gitignore': 'answer.js\n'
})

test('a tree that passes only thanks to a git-ignored file gets no pull request: verify_failed', async () => {
  const p = await project(cheatingProject(agentScript({ any: `${CHEAT}\n${DONE}` })))
  const run = await runAction(p, e2e.stand(), { inputs: { ralph: 'fix-tests', 'max-iterations': '2' } })
  expect(run.main.stderr).toBe('')
  expect(run.outputs).toMatchObject({ 'stop-reason': 'verify_failed', success: 'false', verified: 'false' })
  expect(p.api.state.pulls).toHaveLength(0)
  expect(p.remoteGit('branch', '--list', 'ralph/fix-tests').trim()).toBe('')
  // Fed forward: iteration 2's prompt holds the clean checkout's failure.
  const record = await e2e.recordOf(run)
  const prompt = record.get('logs/iteration-002/prompt.md')!.toString('utf8')
  expect(prompt).toContain('clean checkout')
  expect(prompt).toMatch(/answer\.js/)
  expect(run.summary).toContain('verify_failed')
  expectClean(p)
})

test.each(Object.keys(KINDS) as (keyof typeof KINDS)[])(
  '%s: an agent that takes add from a file it has git ignore gets no pull request: verify_failed',
  async name => {
    const kind = KINDS[name]
    const p = await project(kindProject(kind, agentScript({ any: `${kind.ignored}\n${DONE}` })))
    const run = await runAction(p, e2e.stand(), {
      inputs: { ralph: 'fix-tests', 'max-iterations': '1', ...kind.inputs }
    })
    expect(run.outputs).toMatchObject({ 'stop-reason': 'verify_failed', success: 'false', verified: 'false' })
    expect(p.api.state.pulls).toHaveLength(0)
    const status = JSON.parse((await e2e.recordOf(run)).get('status.json')!.toString('utf8'))
    expect(status.iterations[0].verification).toMatchObject({ verdict: 'failed' })
    expect(status.iterations[0].verification.checks[0].tail).toMatch(/answer/)
    expectClean(p)
  }
)

test('the clean checkout’s failure is fed forward; the honest fix that follows is pushed, verified', async () => {
  const agent = agentScript({
    1: `${CHEAT}\n${DONE}`,
    2: `if (prompt.includes('on a clean checkout')) { ${FIX}; fs.rmSync('answer.js') }\n${DONE}`
  })
  const p = await project(cheatingProject(agent))
  const run = await runAction(p, e2e.stand(), { inputs: { ralph: 'fix-tests' } })
  expect(run.main.stderr).toBe('')
  expect(run.outputs).toMatchObject({
    'stop-reason': 'all_checks_passed',
    success: 'true',
    iterations: '2',
    verified: 'true',
    'pr-operation': 'created'
  })
  const pushed = p.remoteGit('rev-parse', 'refs/heads/ralph/fix-tests').trim()
  expect(run.outputs.commit).toBe(pushed)
  expect(p.remoteGit('show', `${pushed}:calc.js`)).toContain('a + b')
  const [pr] = p.api.state.pulls
  expect(pr.body).toContain(`Verified on a clean checkout of \`${pushed.slice(0, 12)}\``)
  expect(run.summary).toContain(`Verified on a clean checkout of \`${pushed.slice(0, 12)}\``)
  const record = await e2e.recordOf(run)
  expect(record.get('progress.md')!.toString('utf8')).toContain(
    `Verified on a clean checkout of \`${pushed.slice(0, 12)}\``
  )
  // The clean log holds the action's canaries too (#37): the project's one test passed there, by its name.
  expect(record.get('logs/iteration-002/clean/checks/tests.log')!.toString('utf8')).toMatch(
    /✔ add returns the sum/
  )
  expectClean(p)
})

test('setup runs before the baseline and in the clean checkout; the pull request shows each gate start to end', async () => {
  // The gates need config.json, which git ignores: setup makes it from the tracked template, as `npm ci` would.
  const fix = [
    "fs.writeFileSync('calc.js', [",
    '  "import fs from \'node:fs\'",',
    "  \"const { offset } = JSON.parse(fs.readFileSync(new URL('./config.json', import.meta.url), 'utf8'))\",",
    '  "export function add(a, b) {", "  return a + b + offset", "}", ""',
    "].join('\\n'))"
  ].join('\n')
  const p = await project({
    ...projectFiles(
      agentScript({ 1: `${fix}\n${DONE}` }),
      ralph({ extra: 'setup:\n  - cp config.template.json config.json\n  - id -un' })
    ),
    'config.template.json': '{ "offset": 0 }\n',
    '.gitignore': 'config.json\n'
  })
  const run = await runAction(p, e2e.stand(), { inputs: { ralph: 'fix-tests' } })
  expect(run.main.stderr).toBe('')
  expect(run.outputs).toMatchObject({ 'stop-reason': 'all_checks_passed', verified: 'true', iterations: '1' })
  const pushed = p.remoteGit('rev-parse', 'refs/heads/ralph/fix-tests').trim()
  expect(p.remoteGit('ls-tree', '--name-only', pushed)).not.toContain('config.json')
  const [pr] = p.api.state.pulls
  // Start: failing, with why; end: passing on the clean checkout.
  expect(pr.body).toContain('| Gate | Command | At the start | At the end |')
  expect(pr.body).toMatch(
    /\| `tests` \| `node --test --test-reporter=spec` \| ✗ exit 1: `[^`|]*(fail|Assert)[^|]*` \| ✓ 1\/1 tests passed \|/
  )
  expect(pr.body).toContain(`Verified on a clean checkout of \`${pushed.slice(0, 12)}\``)
  expect(pr.body).toContain('after the setup commands')
  const record = await e2e.recordOf(run)
  expect([...record.keys()]).toEqual(
    expect.arrayContaining([
      'logs/iteration-000/setup/cp_config.template.json_config.json.log',
      'logs/iteration-001/clean/setup/cp_config.template.json_config.json.log',
      'logs/iteration-001/clean/checks/tests.log'
    ])
  )
  // As the agent's user, like the gates.
  expect(record.get('logs/iteration-001/clean/setup/id_-un.log')!.toString('utf8').trim()).toBe(
    TEST_AGENT_USER
  )
  expectClean(p)
})
