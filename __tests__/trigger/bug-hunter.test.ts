// The example bug-hunter ralph, run by the real loop on a small npm project with scripted agents: its
// gates accept a fix only with a regression test that fails before the fix, and only a small one that
// leaves CI and dependencies alone.
import { cpSync } from 'node:fs'
import path from 'node:path'
import { loadRalph, validateRalph } from '../../src/ralph/index.js'
import { loopConfig, runLoop } from '../../src/loop/index.js'
import { renderTaskBlock } from '../../src/trigger/sanitize.js'
import { tempDir, tempRepo, type TempRepo } from '../git/temp-repo.js'
import { countRuns } from '../loop/harness.js'
import { chmodSync, readFileSync, rmSync, writeFileSync } from 'node:fs'

const EXAMPLE = path.resolve('examples/ralphs/bug-hunter')
let repo: TempRepo
let tools: string

beforeEach(() => {
  repo = tempRepo()
  tools = tempDir('bug-hunter-tools-')
  repo.write(
    'package.json',
    JSON.stringify({ name: 'p', private: true, type: 'module', scripts: { test: 'node --test' } }, null, 2)
  )
  // The bug: the loop starts at 1, so the first number is never added.
  repo.write(
    'src/sum.js',
    'export function sum(xs) {\n  let t = 0\n  for (let i = 1; i < xs.length; i++) t += xs[i]\n  return t\n}\n'
  )
  repo.write(
    'test/sum.test.js',
    "import test from 'node:test'\nimport assert from 'node:assert'\nimport { sum } from '../src/sum.js'\ntest('empty', () => assert.equal(sum([]), 0))\n"
  )
  cpSync(EXAMPLE, path.join(repo.dir, '.agents/ralphs/bug-hunter'), { recursive: true })
  repo.git('add', '-A')
  repo.git('commit', '-q', '-m', 'project')
})
afterEach(() => {
  repo.cleanup()
  rmSync(tools, { recursive: true, force: true })
})

const REGRESSION_TEST =
  "import test from 'node:test'\nimport assert from 'node:assert'\nimport { sum } from '../src/sum.js'\ntest('one number', () => assert.equal(sum([5]), 5))\n"
const WEAK_TEST =
  "import test from 'node:test'\nimport assert from 'node:assert'\nimport { sum } from '../src/sum.js'\ntest('still empty', () => assert.equal(sum([]), 0))\n"
const FIX = "sed -i 's/let i = 1/let i = 0/' src/sum.js"

/** A scripted agent: `steps[n-1]` is the bash its n-th run does; it saves each prompt. */
function agent(steps: string[]): string {
  const file = path.join(tools, 'agent.sh')
  const cases = steps.map((step, i) => `  ${i + 1}) ${step} ;;`).join('\n')
  writeFileSync(
    file,
    `#!/usr/bin/env bash\n${countRuns(tools)}\ncat > '${tools}'/prompt-$n.md\ncase $n in\n${cases}\nesac\necho '<promise>COMPLETE</promise>'\n`
  )
  chmodSync(file, 0o755)
  return file
}

const write = (file: string, content: string): string =>
  `mkdir -p "$(dirname ${file})" && printf '%s' '${content.replace(/'/g, `'"'"'`)}' > ${file}`

async function hunt(steps: string[], maxIterations = 3) {
  const file = path.join(repo.dir, '.agents/ralphs/bug-hunter/RALPH.md')
  const loaded = loadRalph(file, { cwd: repo.dir, skipAgentLookup: true })
  const ralph = { ...loaded, agentArgv: [agent(steps)] }
  return runLoop(
    loopConfig({
      ralph,
      projectRoot: repo.dir,
      recordDir: path.join(tools, 'record'),
      userArgs: { focus: 'src/', task: renderTaskBlock('## Issue #4: sum is wrong', { source: 'issue #4' }) },
      maxIterations,
      commit: true,
      killGraceMs: 300
    })
  )
}

const gates = (result: Awaited<ReturnType<typeof hunt>>) =>
  result.iterations.map(it => Object.fromEntries(it.checks.map(c => [c.name, c.passed])))

test('the example is a valid ralph', () => {
  expect(validateRalph(path.join(EXAMPLE, 'RALPH.md'), { cwd: repo.dir, skipAgentLookup: true })).toEqual([])
})

test('a regression test that fails before the fix, then the fix: every gate passes', async () => {
  const result = await hunt([write('test/sum-one.test.js', REGRESSION_TEST), FIX])
  expect(gates(result)).toEqual([
    { tests: false, 'fails-before-fix': true, 'small-fix': true, lint: true, typecheck: true },
    { tests: true, 'fails-before-fix': true, 'small-fix': true, lint: true, typecheck: true }
  ])
  expect(result.stopReason).toBe('all_checks_passed')
  const prompt = readFileSync(path.join(tools, 'prompt-1.md'), 'utf8')
  expect(prompt).toMatch(/The hunt started at [0-9a-f]{40} \(project\)\./)
  expect(prompt).toContain('## Issue #4: sum is wrong')
  expect(prompt).toContain('Where to look first, if anything is given here: src/')
  expect(prompt).toContain('## Loop status')
})

test('a fix whose test passes without it is not proof: the gate says so', async () => {
  const result = await hunt([`${FIX} && ${write('test/sum-weak.test.js', WEAK_TEST)}`], 1)
  expect(gates(result)).toEqual([
    { tests: true, 'fails-before-fix': false, 'small-fix': true, lint: true, typecheck: true }
  ])
  const log = readFileSync(path.join(tools, 'record', result.iterations[0].checks[1].log), 'utf8')
  expect(log).toContain('The regression tests PASS on the code from before the fix')
})

test('a fix without any test, or one that touches CI, fails its gates', async () => {
  const result = await hunt(
    [
      FIX,
      `${write('test/sum-one.test.js', REGRESSION_TEST)} && ${write('.github/workflows/ci.yml', 'on: push')}`
    ],
    2
  )
  expect(gates(result)).toEqual([
    { tests: true, 'fails-before-fix': false, 'small-fix': true, lint: true, typecheck: true },
    { tests: true, 'fails-before-fix': true, 'small-fix': false, lint: true, typecheck: true }
  ])
  const log = readFileSync(path.join(tools, 'record', result.iterations[1].checks[2].log), 'utf8')
  expect(log).toContain('A bug hunt may not change these files')
  expect(log).toContain('.github/workflows/ci.yml')
})
