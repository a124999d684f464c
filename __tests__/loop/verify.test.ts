// The verdict is the action's (#27): a passing tree passes once more on a clean checkout of its commit before
// the loop calls it a success; setup runs before the baseline and in that checkout; verify: tree skips it.
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import path from 'node:path'
import { tempDir } from '../git/temp-repo.js'
import { decideStop, missingSetupHint } from '../../src/loop/stop.js'
import type { CheckRun, IterationRecord, VerificationRecord } from '../../src/loop/index.js'
import { countRuns, harness, type Harness } from './harness.js'

let h: Harness
beforeEach(() => {
  h = harness()
  h.repo.git('add', '-A')
})
afterEach(() => h.cleanup())

/** The ralph: one gate that needs `file` (default `answer`, which git ignores) to say 42. */
function project(agentBody: string, extra = '', file = 'answer'): void {
  const agent = h.script('agent.sh', `${countRuns(h.tools)}\ncat >/dev/null\n${agentBody}`)
  h.writeRalph(
    `agent: ${agent}\nchecks:\n  - name: answer\n    run: grep -q 42 ${file}\n${extra}`,
    'Make the answer 42.'
  )
  h.repo.write('.gitignore', 'answer\n')
  h.repo.git('add', '-A')
  h.repo.git('commit', '-q', '-m', 'the project')
}

test('a tree that passes only thanks to an ignored file fails on the clean checkout: fed forward, then verify_failed', async () => {
  project('echo 42 > answer')
  const clean = tempDir('ralph-clean-parent-')
  const { result, events } = await h.run(
    { maxIterations: 2, commit: true, completionTag: '' },
    { verify: { tempDir: clean } }
  )
  expect(result.stopReason).toBe('verify_failed')
  expect(result.success).toBe(false)
  expect(result.verify).toBe('clean')
  expect(result.iterations.map(it => it.verdict)).toEqual(['checks_failed', 'checks_failed'])
  // The loop's own tree passed; the clean checkout of exactly HEAD did not.
  expect(result.iterations[0].checks.every(c => c.passed)).toBe(true)
  expect(result.verification).toMatchObject({
    verdict: 'failed',
    commit: h.repo.git('rev-parse', 'HEAD').trim()
  })
  expect(events.filter(e => e.type === 'verify_finished')).toHaveLength(2)
  const prompt = h.readRecord('logs/iteration-002/prompt.md')
  expect(prompt).toContain('`answer (on a clean checkout)` failed')
  expect(prompt).toContain('no ignored or untracked file of your tree')
  expect(h.readRecord('progress.md')).toContain('FAILED, so the iteration does not count as passing')
  // The clean checkout is gone, and git no longer lists it.
  expect(h.repo.git('worktree', 'list').trim().split('\n')).toHaveLength(1)
  expect(readdirSync(clean)).toEqual([])
  rmSync(clean, { recursive: true, force: true })
})

test('a clean checkout missing what an install left (node_modules) with no setup stops the loop at the first, naming setup: no agent can fix it', async () => {
  // node_modules is ignored, as a step's npm ci before the action leaves it: only the loop's tree has it.
  h.repo.write('node_modules/dep/index.js', 'module.exports = 42\n')
  h.repo.write('uses-dep.js', "process.exit(require('dep') === 42 ? 0 : 1)\n")
  const agent = h.script('agent.sh', `${countRuns(h.tools)}\ncat >/dev/null\necho work >> work.txt`)
  h.writeRalph(`agent: ${agent}\nchecks:\n  - name: uses-dep\n    run: node uses-dep.js`, 'Work.')
  h.repo.write('.gitignore', 'node_modules/\n')
  h.repo.git('add', '-A')
  h.repo.git('commit', '-q', '-m', 'the project')
  const { result } = await h.run({ maxIterations: 5, commit: true, completionTag: '', baseline: false })
  expect(result.stopReason).toBe('verify_failed')
  expect(result.iterations).toHaveLength(1)
  expect(result.iterations[0].checks.every(c => c.passed)).toBe(true)
  expect(result.verification?.checks[0].tail).toContain("Cannot find module 'dep'")
  expect(result.stopDetail).toMatch(
    /^the gates passed in the loop's tree in iteration 1 but failed on a clean checkout of [0-9a-f]{12}; .*no setup ran: .*\(a JavaScript project's: setup: npm ci\); no agent can fix that, so the loop stopped there$/
  )
  // The agent ran once, not five times.
  expect(readFileSync(path.join(h.tools, 'count'), 'utf8').trim()).toBe('1')
})

test('committed work passes on the clean checkout: success, verified on HEAD', async () => {
  project('echo 42 > committed', '', 'committed')
  const { result } = await h.run({ maxIterations: 2, commit: true, completionTag: '' })
  expect(result.stopReason).toBe('all_checks_passed')
  const head = h.repo.git('rev-parse', 'HEAD').trim()
  expect(result.verification).toMatchObject({ verdict: 'passed', commit: head, iteration: 1 })
  expect(h.readRecord('progress.md')).toContain(`Verified on a clean checkout of \`${head.slice(0, 12)}\``)
})

test('setup runs before the baseline and in the clean checkout, so a gate that needs it passes there', async () => {
  // `answer` is ignored: setup makes it from a tracked template, as npm ci makes node_modules.
  h.repo.write('answer.template', '42\n')
  project('true', 'setup: cp answer.template answer')
  const { result } = await h.run({ maxIterations: 1, commit: true, completionTag: '' })
  expect(result.setup?.map(run => [run.run, run.passed])).toEqual([['cp answer.template answer', true]])
  expect(result.baseline?.verdict).toBe('green')
  expect(result.stopReason).toBe('all_checks_passed')
  expect(result.verification?.setup.map(run => run.passed)).toEqual([true])
  expect(
    existsSync(path.join(h.record, 'logs/iteration-001/clean/setup/cp_answer.template_answer.log'))
  ).toBe(true)
})

test('a setup that fails stops the run before any agent runs', async () => {
  project('true', 'setup: exit 3')
  const { result } = await h.run({ maxIterations: 1, commit: true, completionTag: '' })
  expect(result.stopReason).toBe('agent_error')
  expect(result.stopDetail).toContain('the setup command `exit 3` failed (exit 3) before any agent ran')
  expect(result.iterations).toEqual([])
})

test('verify: tree trusts the loop’s tree: the ignored file is enough', async () => {
  project('echo 42 > answer', 'verify: tree')
  const { result } = await h.run({ maxIterations: 1, commit: true, completionTag: '' })
  expect(result.stopReason).toBe('all_checks_passed')
  expect(result.verify).toBe('tree')
  expect(result.verification).toBeUndefined()
})

test('the clean checkout gets protected paths from the base through the hook', async () => {
  project('echo 42 > committed', '', 'committed')
  const calls: string[][] = []
  const { result } = await h.run(
    { maxIterations: 1, commit: true, completionTag: '' },
    {
      verify: {
        restoreProtected: async (checkout, base) => {
          calls.push([path.basename(checkout), base])
          return ['tests/']
        }
      }
    }
  )
  expect(calls).toEqual([['checkout', result.start.commit]])
  expect(result.verification?.protectedReverts).toEqual(['tests/'])
})

test('out of iterations after a failed clean checkout, the stop reason is verify_failed', () => {
  const last = {
    iteration: 3,
    verification: { verdict: 'failed', commit: 'abcdef0123456789', setup: [], checks: [] }
  } as unknown as IterationRecord
  const budgets = {
    maxIterations: 3,
    ran: 3,
    last,
    timeSpent: false,
    costSpent: false,
    finishAsked: false,
    gated: true,
    stopOnError: false
  }
  expect(decideStop(undefined, budgets)?.reason).toBe('verify_failed')
  const { verification: _, ...unverified } = last
  expect(decideStop(undefined, { ...budgets, last: unverified })?.reason).toBe('max_iterations')
})

test.each([
  ["Error [ERR_MODULE_NOT_FOUND]: Cannot find package 'sum' imported from /t/calc.test.js", 'node, ESM'],
  ["Error: Cannot find module 'sum'\nRequire stack:\n- /t/calc.test.js", 'node, CommonJS'],
  ["Cannot find module 'lodash' from 'calc.test.js'", 'jest'],
  ['> calc@1.0.0 test\n> jest\n\nsh: 1: jest: not found', 'an npm script'],
  ['bash: line 1: vitest: command not found', 'bash'],
  ["ModuleNotFoundError: No module named 'requests'", 'python']
])(
  'a clean checkout whose gate misses %j (%s) and ran no setup: the stop says to give setup the install',
  tail => {
    const gate = { name: 'tests', passed: false, tail } as CheckRun
    const verification = { verdict: 'failed', commit: 'abcdef0123456789', setup: [], checks: [gate] }
    expect(missingSetupHint(verification as unknown as VerificationRecord)).toContain('setup: npm ci')
    const last = { iteration: 1, verification } as unknown as IterationRecord
    const budgets = { maxIterations: 1, ran: 1, last, timeSpent: false, costSpent: false, finishAsked: false }
    expect(decideStop(undefined, { ...budgets, gated: true, stopOnError: false })?.detail).toMatch(
      /no setup ran: .*node_modules.*install command \(a JavaScript project's: setup: npm ci\)$/
    )
  }
)

test('no hint where it would mislead: a gate that fails on its own, or a setup that ran', () => {
  const failing = (tail: string) => ({ name: 'tests', passed: false, tail }) as CheckRun
  const record = (setup: CheckRun[], tail: string) =>
    ({ verdict: 'failed', commit: 'abc', setup, checks: [failing(tail)] }) as unknown as VerificationRecord
  expect(missingSetupHint(record([], 'AssertionError: 3 !== -1'))).toBe('')
  const ranSetup = { name: 'npm ci', passed: true, tail: '' } as CheckRun
  expect(missingSetupHint(record([ranSetup], "Cannot find module 'sum'"))).toBe('')
})

test('a round of gates during which a protected path changed does not count: gate 1 rewrites gate 2’s script', async () => {
  // Gate 2 judges by check.sh (protected: a gate runs it); the agent's code, run by gate 1, makes it pass.
  h.repo.write('check.sh', 'grep -q 42 committed\n')
  h.repo.write('rewrite.sh', "printf 'exit 0\\n' > check.sh\n")
  h.repo.git('add', '-A')
  h.repo.git('commit', '-q', '-m', 'gates')
  const agent = h.script('agent.sh', `${countRuns(h.tools)}\ncat >/dev/null\necho 41 > committed`)
  h.writeRalph(
    `agent: ${agent}\nchecks:\n  - name: first\n    run: sh rewrite.sh\n  - name: second\n    run: sh check.sh\nprotected: [auto]`,
    'Make it 42.'
  )
  h.repo.git('add', '-A')
  h.repo.git('commit', '-q', '-m', 'ralph')
  const { result } = await h.run({ maxIterations: 1, commit: true, completionTag: '', protect: ['auto'] })
  const [first] = result.iterations
  expect(first.checks.map(c => [c.name, c.passed])).toEqual([
    ['first', true],
    ['second', true],
    ['protected paths', false]
  ])
  expect(first.checks[2].tail).toContain('While the gates ran, protected paths changed: check.sh (changed)')
  expect(result.success).toBe(false)
  expect(result.verification).toBeUndefined()
})
