// The test count in the loop (#27), with real `node --test` runs: a gate whose runner ran fewer tests than at
// the baseline, or skipped more, fails with one line the next prompt and the record both have; npm's scripts
// are the start commit's, whatever the agent makes of package.json; a count that grows passes.
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { countRuns, harness, type Harness } from './harness.js'

let h: Harness
beforeEach(() => {
  h = harness()
  h.repo.write('package.json', JSON.stringify({ type: 'module', scripts: { test: 'node --test' } }))
  h.repo.write('calc.js', 'export const add = (a, b) => a + b\n')
  h.repo.write('calc.test.js', calcTests(['one', 'two']))
  h.repo.git('add', '-A')
  h.repo.git('commit', '--quiet', '-m', 'project')
})
afterEach(() => h.cleanup())

function calcTests(names: string[], skip: string[] = []): string {
  return [
    "import { test } from 'node:test'",
    "import assert from 'node:assert/strict'",
    "import { add } from './calc.js'",
    ...names.map(n => `test${skip.includes(n) ? '.skip' : ''}('${n}', () => assert.equal(add(1, 2), 3))`),
    ''
  ].join('\n')
}

/** An agent whose first run runs `first` (bash, in the work tree); it keeps each prompt and says it is done. */
function agent(first: string): string {
  return h.script(
    'agent.sh',
    `${countRuns(h.tools)}
cat > '${h.tools}/prompt-'$n.txt
if [ $n -eq 1 ]; then ${first}; fi
echo '<promise>COMPLETE</promise>'`
  )
}

const prompt = (n: number): string => readFileSync(path.join(h.tools, `prompt-${n}.txt`), 'utf8')

function gate(run: string): string {
  return `checks:\n  - name: tests\n    run: ${run}`
}

test('a skipped test fails the gate with its line: in the next prompt, the log and status.json', async () => {
  const skipped = calcTests(['one', 'two'], ['two']).replace(/'/g, "'\\''")
  h.writeRalph(`agent: ${agent(`printf '%s' '${skipped}' > calc.test.js`)}\n${gate('npm test')}`, 'Work.')
  const { result } = await h.run({ maxIterations: 2 })
  const line =
    '`npm test` ran 2 tests at the start and 1 now; `npm test` skipped 0 tests at the start and 1 now'
  expect(result.baseline?.checks[0]).toMatchObject({
    passed: true,
    tests: { run: 2, passed: 2, failed: 0, skipped: 0 }
  })
  const [first] = result.iterations
  expect(first.verdict).toBe('checks_failed')
  expect(first.checks[0]).toMatchObject({ exitCode: 0, passed: false, tests: { run: 1, skipped: 1 } })
  expect(first.checks[0].tail).toContain(line)
  expect(h.readRecord('logs/iteration-001/checks/tests.log')).toContain(line)
  expect(prompt(2)).toContain(line)
  expect(h.status().iterations[0].checks[0].tests).toEqual({ run: 1, passed: 1, failed: 0, skipped: 1 })
  expect(result.success).toBe(false)
})

test("npm's scripts are the start commit's: a posttest the agent adds to print a summary fails the gate", async () => {
  const summary = ['tests 9', 'pass 9', 'fail 0', 'skipped 0'].map(l => `# ${l}`).join('\\n')
  const scripts = { test: 'node --test', posttest: `printf '${summary}\\n'` }
  const forged = JSON.stringify({ type: 'module', scripts }).replace(/'/g, "'\\''")
  h.writeRalph(`agent: ${agent(`printf '%s' '${forged}' > package.json`)}\n${gate('npm test')}`, 'Work.')
  const { result } = await h.run({ maxIterations: 1 })
  const [check] = result.iterations[0].checks
  // The forged summary is the last in the output: believed, it would count 9 tests.
  expect(check).toMatchObject({ exitCode: 0, passed: false, tests: { run: 9 } })
  expect(check.tail).toContain(
    "`npm test` ran package.json's script `posttest` as the tree has it, not as the start had it: its count is not believed"
  )
  expect(result.success).toBe(false)
})

test('the code under test ending the runner early (process.exit) is fewer tests, and fails', async () => {
  h.writeRalph(
    `agent: ${agent(`echo 'process.exit(0); export const add = (a, b) => a + b' > calc.js`)}\n${gate('node --test')}`,
    'Work.'
  )
  const { result } = await h.run({ maxIterations: 1 })
  // node names the file ended early as its one passing test: it ran none.
  expect(result.iterations[0].checks[0]).toMatchObject({ exitCode: 0, passed: false, tests: { run: 0 } })
  expect(result.iterations[0].checks[0].tail).toContain('`node --test` ran 2 tests at the start and 0 now')
})

test('a test added (the count grows) passes; an uncounted gate is said once in status.json', async () => {
  const more = calcTests(['one', 'two', 'three']).replace(/'/g, "'\\''")
  h.writeRalph(
    `agent: ${agent(`printf '%s' '${more}' > calc.test.js`)}
checks:
  - name: tests
    run: npm test
  - name: lint
    run: "true"`,
    'Work.'
  )
  const { result } = await h.run({ maxIterations: 2 })
  expect(result.stopReason).toBe('all_checks_passed')
  expect(result.iterations[0].checks.map(c => c.tests)).toEqual([
    { run: 3, passed: 3, failed: 0, skipped: 0 },
    undefined
  ])
  expect(h.status().uncounted).toEqual([
    { check: 'lint', why: expect.stringMatching(/^it runs none of the runners counted/) }
  ])
  // progress.md says each counted gate's count.
  expect(h.readRecord('progress.md')).toMatch(
    /- PASS `tests` \(\d+\.\ds, 2 tests\)[\s\S]*- PASS `tests` \(\d+\.\ds, 3 tests\)/
  )
})

const pytest = ['/usr/bin/python3', '-c', 'import pytest'] as const
const hasPytest = (() => {
  try {
    return execFileSync(pytest[0], pytest.slice(1), { stdio: 'ignore' }) !== undefined
  } catch {
    return false
  }
})()

;(hasPytest || process.env.CI ? test : test.skip)(
  'a failing test fails the gate whatever the exit code: code under test that ends pytest with 0 after its summary',
  async () => {
    h.repo.write('calc.py', 'def add(a, b):\n    return a - b\n')
    h.repo.write(
      'test_calc.py',
      'from calc import add\ndef test_add(): assert add(1, 2) == 3\ndef test_ok(): assert True\n'
    )
    h.repo.write('.gitignore', '__pycache__/\n.pytest_cache/\n')
    h.repo.git('add', '-A')
    h.repo.git('commit', '--quiet', '-m', 'python')
    const cheat = "printf 'import atexit, os\\natexit.register(lambda: os._exit(0))\\n' >> calc.py"
    h.writeRalph(
      `agent: ${agent(cheat)}\n${gate('/usr/bin/python3 -m pytest -q -p no:cacheprovider')}`,
      'Work.'
    )
    const { result } = await h.run({ maxIterations: 1 })
    const [first] = result.iterations
    expect(first.checks[0]).toMatchObject({ exitCode: 0, passed: false, tests: { failed: 1 } })
    expect(first.checks[0].tail).toContain('reported 1 test failing')
    expect(result.success).toBe(false)
  }
)
