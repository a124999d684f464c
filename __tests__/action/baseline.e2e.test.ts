// The baseline, skip-if-green and parallel gates through dist/index.js, as the runner runs it: the gates'
// failures reach iteration 1's prompt (one agent run fewer), a green start ends already_green without an
// agent, and a time budget that runs out while the gates run together kills every gate's tree.
import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { expect, test } from '@jest/globals'
import { neutralizeWorkflowCommands } from '../../src/security/index.js'
import { DONE, FIX, RALPH_DIR, agentScript, projectFiles, ralph } from './fixtures.js'
import { alive, runAction } from './harness.js'
import { e2eSuite } from './suite.js'

const { stand, scratch, project, expectClean, recordOf } = e2eSuite()

const text = (files: Map<string, Buffer>, name: string): string => {
  const file = files.get(name)
  if (!file) throw new Error(`${name} is not in the record`)
  return file.toString('utf8')
}

/** An agent that fixes calc.js only when its prompt names the failing test, and counts its runs in `runs`. */
function informedAgent(runs: string): string {
  return agentScript({
    any: [
      `fs.appendFileSync(${JSON.stringify(runs)}, 'ran\\n')`,
      "if (prompt.includes('add returns the sum')) {",
      FIX,
      DONE,
      '} else {',
      "  say('Nothing in the prompt says what fails.')",
      '}'
    ].join('\n')
  })
}

const runsOf = (file: string): number =>
  existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean).length : 0

test("the baseline's failures reach iteration 1's prompt: one agent run, recorded as iteration 0 in the record, summary and PR", async () => {
  const runs = path.join(scratch(), 'informed.runs')
  // The gate also prints workflow commands: shown in the baseline's group, they must stay text (neutralised).
  const gate =
    'node --test --test-reporter=spec; code=$?; echo "::error file=calc.js,line=1::injected by a gate"; echo "::add-mask::calc"; exit $code'
  const p = await project(projectFiles(informedAgent(runs), ralph({ checks: [gate] })))
  const run = await runAction(p, stand(), { inputs: { ralph: 'fix-tests' } })
  expect(run.main.exitCode).toBe(0)
  expect(run.outputs).toMatchObject({
    'stop-reason': 'all_checks_passed',
    iterations: '1',
    'pr-operation': 'created'
  })
  expect(runsOf(runs)).toBe(1)

  const files = await recordOf(run)
  // What node's test runner printed before any agent ran is in the first prompt.
  const prompt = text(files, 'logs/iteration-001/prompt.md')
  expect(prompt).toContain(
    '### Failing checks now (run before this iteration)\n\n`tests` failed (exit code 1).'
  )
  expect(prompt).toContain('add returns the sum')
  expect(text(files, 'logs/iteration-000/checks/tests.log')).toContain('✖ add returns the sum')
  expect(JSON.parse(text(files, 'status.json')).baseline).toMatchObject({
    verdict: 'failing',
    checks: [{ name: 'tests', passed: false }]
  })
  expect(text(files, 'progress.md')).toMatch(
    /## Baseline \(iteration 0\): 1 of 1 checks failing[\s\S]*## Iteration 1: passed/
  )

  const row0 = /\| 0 \| 🔎 baseline: gates failing \| ✗ \d+\.\ds \| – \| \d+s \|/
  expect(run.summary).toMatch(row0)
  expect(run.summary).toMatch(/\| 1 \| ✅ passed \| ✓ \d+\.\ds \|/)
  expect(p.api.state.pulls[0].body).toMatch(row0)
  const groups = run.main.commands.filter(c => c.command === 'group').map(c => c.message)
  const baselineGroup = groups.indexOf('Baseline: the 1 gate before the first agent run')
  expect(baselineGroup).toBeGreaterThan(-1)
  expect(groups[baselineGroup + 1]).toBe('Iteration 1 of 10')
  expect(run.main.stdout).toContain(
    neutralizeWorkflowCommands('::error file=calc.js,line=1::injected by a gate')
  )
  expect(run.main.commands.filter(c => c.message.includes('injected by a gate'))).toEqual([])
  expect(run.main.commands.filter(c => c.command === 'add-mask' && c.message === 'calc')).toEqual([])
  expectClean(p)
})

test('baseline: false lets the same agent work blind in iteration 1: two agent runs', async () => {
  const runs = path.join(scratch(), 'blind.runs')
  const p = await project(projectFiles(informedAgent(runs)))
  const run = await runAction(p, stand(), { inputs: { ralph: 'fix-tests', baseline: 'false' } })
  expect(run.main.exitCode).toBe(0)
  expect(run.outputs).toMatchObject({ 'stop-reason': 'all_checks_passed', iterations: '2' })
  expect(runsOf(runs)).toBe(2)
  const files = await recordOf(run)
  expect(files.has('logs/iteration-000/checks/tests.log')).toBe(false)
  expect(text(files, 'logs/iteration-001/prompt.md')).toContain('None yet: this is the first iteration.')
  expect(run.summary).not.toContain('baseline')
  expectClean(p)
})

test('skip-if-green on a green tree: already_green, exit 0, no agent, $0, nothing pushed, the record uploaded', async () => {
  const runs = path.join(scratch(), 'green.runs')
  const p = await project({
    ...projectFiles(informedAgent(runs)),
    'calc.js': 'export function add(a, b) {\n  return a + b\n}\n'
  })
  const run = await runAction(p, stand(), { inputs: { ralph: 'fix-tests', 'skip-if-green': 'true' } })
  expect(run.main.stderr).toBe('')
  expect(run.main.exitCode).toBe(0)
  expect(run.main.errors).toEqual([])
  expect(run.outputs).toMatchObject({
    'stop-reason': 'already_green',
    success: 'true',
    iterations: '0',
    cost: '0.0000',
    'pr-number': '',
    'pr-operation': 'none'
  })
  expect(runsOf(runs)).toBe(0)
  expect(p.remoteGit('branch', '--list', 'ralph/*').trim()).toBe('')
  expect(p.api.state.pulls).toEqual([])
  expect(run.summary).toContain(
    '✅ **fix-tests**: every gate already passed before any agent ran (skip-if-green), so no agent ran and nothing was spent.'
  )
  expect(run.summary).toMatch(/\| 0 \| ✅ baseline: gates pass \| ✓ \d+\.\ds \|/)
  const files = await recordOf(run)
  expect(JSON.parse(text(files, 'status.json'))).toMatchObject({
    stopReason: 'already_green',
    success: true,
    iterations: [],
    baseline: { verdict: 'green' }
  })
  expect([...files.keys()].some(name => name.startsWith('logs/iteration-001'))).toBe(false)
  expectClean(p)
})

test('skip-if-green on a ralph without gates fails the step before anything runs, naming the fix', async () => {
  const p = await project({
    ...projectFiles(informedAgent(path.join(scratch(), 'none.runs'))),
    [`${RALPH_DIR}/RALPH.md`]: `---\nagent: node ${RALPH_DIR}/agent.mjs\n---\n\nFix it.\n`
  })
  const run = await runAction(p, stand(), { inputs: { ralph: 'fix-tests', 'skip-if-green': 'true' } })
  expect(run.main.exitCode).toBe(1)
  expect(run.main.errors.map(e => e.message)).toEqual([
    "skip-if-green needs gates (the ralph's checks:, --check or the checks input): without them nothing can be found green."
  ])
  expect(runsOf(path.join(scratch(), 'none.runs'))).toBe(0)
  expectClean(p)
})

test("a time budget that runs out while the gates run together kills every gate's tree: timeout", async () => {
  const markers = path.join(scratch(), 'parallel')
  // Each gate passes at the baseline; once the agent has left slow.flag, it starts a child and waits.
  const gate = `#!/bin/bash\nif [ -f slow.flag ]; then sleep 120 & echo "$$ $!" > ${JSON.stringify(markers)}-$1.pids; wait; fi\nexit 0\n`
  const p = await project({
    ...projectFiles(
      agentScript({ any: "fs.writeFileSync('slow.flag', 'now\\n')\nsay('Left the flag.')" }),
      ralph({ checks: ['bash gate.sh one', 'bash gate.sh two'], extra: 'checks_parallel: true' })
    ),
    'gate.sh': { content: gate, mode: 0o755 }
  })
  // Seconds, so both gates have started long before it runs out, even on a loaded machine.
  // The gates pass at the baseline by design: the run must go on to the agent (a workflow_dispatch is a hunt).
  const run = await runAction(p, stand(), {
    inputs: { ralph: 'fix-tests', 'max-time': '20s', 'skip-if-green': 'false' }
  })
  expect(run.main.exitCode).toBe(1)
  expect(run.outputs).toMatchObject({ 'stop-reason': 'timeout', iterations: '1' })
  const pids = ['one', 'two'].flatMap(name =>
    readFileSync(`${markers}-${name}.pids`, 'utf8').trim().split(/\s+/).map(Number)
  )
  expect(pids).toHaveLength(4)
  expect(pids.filter(alive)).toEqual([])

  const status = JSON.parse(text(await recordOf(run), 'status.json'))
  expect(status.baseline).toMatchObject({ verdict: 'green', parallel: true })
  expect(status.enforcement).toMatchObject({ cause: 'timeout', killed: 'check' })
  expect(
    status.iterations[0].checks.map((c: { name: string; killedBy?: string }) => [c.name, c.killedBy])
  ).toEqual([
    ['tests', 'timeout'],
    ['gate-2', 'timeout']
  ])
  expect(run.main.errors.find(e => !e.properties.file)?.message).toMatch(
    /^The time budget ran out before the gates passed \(timeout\)/
  )
  expectClean(p)
})
