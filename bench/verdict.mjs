// What the verdict's judges (#37) add to a gate at the clean verification: the canaries (a passing and a failing
// test with random names, one failing test appended to each protected test file) and the runner's report written
// to a file outside the tree and read back. The same gate on a fresh copy of the same project, run plain and run
// as prepareJudges (src/loop/clean/judges.ts, transpiled as the sources are now) makes it, judged by its report:
// prepare (canaries written), the gate, judge (report read, canaries checked). Figures only, no goal.
import { cpSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { spawnSync } from 'node:child_process'
import { transpileModules } from '../scripts/transpile.mjs'
import { ROOT, median, ms, progress, runTimed, tempDir } from './lib.mjs'

export const title = 'The verdict: what canaries and report files add to a gate at the clean verification'

const REPEATS = Number(process.env.BENCH_VERDICT_REPEATS ?? 5)

const CALC_TEST = (runner, file) =>
  runner === 'jest'
    ? `const { add } = require('../calc.js')\n\ntest('${file} adds', () => expect(add(1, 2)).toBe(3))\ntest('${file} adds zero', () => expect(add(2, 0)).toBe(2))\n`
    : `const test = require('node:test')\nconst assert = require('node:assert')\nconst { add } = require('../calc.js')\n\ntest('${file} adds', () => assert.strictEqual(add(1, 2), 3))\ntest('${file} adds zero', () => assert.strictEqual(add(2, 0), 2))\n`

/** A passing project of `runner` with four test files (two tests each); answers its folder and test files. */
function template(runner) {
  const dir = tempDir(`verdict-${runner.replace(/\W+/g, '')}`)
  const tests = []
  const put = (rel, text) => {
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true })
    writeFileSync(path.join(dir, rel), text)
  }
  if (runner === 'pytest') {
    put('calc.py', 'def add(a, b):\n    return a + b\n')
    for (let i = 0; i < 4; i++) {
      const file = `tests/test_calc${i}.py`
      put(
        file,
        `from calc import add\n\ndef test_add():\n    assert add(1, 2) == 3\n\ndef test_add_zero():\n    assert add(2, 0) == 2\n`
      )
      tests.push(file)
    }
    return { dir, tests, gate: '/usr/bin/python3 -m pytest -q -p no:cacheprovider', packageJson: undefined }
  }
  const packageJson = JSON.stringify({
    name: 'calc',
    private: true,
    scripts: { test: runner === 'jest' ? 'jest' : 'node --test test/' }
  })
  put('package.json', `${packageJson}\n`)
  put('calc.js', 'exports.add = (a, b) => a + b\n')
  for (let i = 0; i < 4; i++) {
    const file = `test/calc${i}.test.js`
    put(file, CALC_TEST(runner, file))
    tests.push(file)
  }
  if (runner === 'jest') symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'))
  return { dir, tests, gate: 'npm test', packageJson }
}

/** Whether `runner` can run here (pytest needs the system's python3 with pytest). */
function available(runner) {
  if (runner !== 'pytest') return true
  return spawnSync('/usr/bin/python3', ['-m', 'pytest', '--version'], { stdio: 'ignore' }).status === 0
}

function copy(project) {
  const dir = tempDir('verdict-run')
  cpSync(project.dir, dir, { recursive: true, verbatimSymlinks: true })
  return dir
}

const sh = (command, cwd) => runTimed('/bin/sh', ['-c', command], { cwd })

async function plain(project) {
  const result = await sh(project.gate, copy(project))
  if (result.code !== 0)
    throw new Error(`the plain gate failed: ${result.stderr.slice(-1000)}${result.stdout.slice(-1000)}`)
  return { totalMs: result.wallMs }
}

async function judged(project, modules) {
  const [judges, counts] = modules
  const cwd = copy(project)
  const folder = tempDir('verdict-folder')
  const check = { name: 'tests', run: project.gate, timeout: 600 }
  const started = performance.now()
  const prepared = judges.prepareJudges({
    checks: [check],
    runners: counts.recogniseGates([check.run], project.packageJson),
    baseline: undefined,
    protectedTests: project.tests,
    cwd,
    folder
  })
  const prepareMs = performance.now() - started
  if (prepared.checks[0].run === check.run)
    throw new Error(`the gate was not judged: ${prepared.notes.join('; ')}`)
  const result = await sh(prepared.checks[0].run, cwd)
  const judgeStarted = performance.now()
  const run = {
    name: check.name,
    run: check.run,
    passed: result.code === 0,
    exitCode: result.code,
    timedOut: false,
    durationMs: result.wallMs,
    outputBytes: result.stdoutBytes + result.stderrBytes,
    tail: (result.stdout + result.stderr).slice(-2000),
    log: ''
  }
  const failures = prepared.judge([run])
  const judgeMs = performance.now() - judgeStarted
  if (failures.length > 0 || !run.passed)
    throw new Error(`the judged gate failed: ${failures.map(f => f.output).join('\n')}${run.tail}`)
  return { totalMs: performance.now() - started, prepareMs, gateMs: result.wallMs, judgeMs, tests: run.tests }
}

export async function run() {
  const modules = transpileModules('verdict-bench', [
    'src/loop/clean/judges.ts',
    'src/loop/test-count.ts'
  ]).map(file => import(pathToFileURL(file).href))
  const loaded = await Promise.all(modules)
  const rows = []
  const data = {}
  const skipped = []
  for (const runner of ['node --test', 'jest', 'pytest']) {
    if (!available(runner)) {
      skipped.push(`${runner}: /usr/bin/python3 -m pytest is not installed here`)
      continue
    }
    const project = template(runner)
    const runs = { plain: [], judged: [] }
    for (let i = 1; i <= REPEATS; i++) {
      progress(`verdict: ${runner}, run ${i} of ${REPEATS}`)
      // Alternated, so a slower minute of the machine weighs on both.
      runs.plain.push(await plain(project))
      runs.judged.push(await judged(project, loaded))
    }
    data[runner] = runs
    const med = (list, field) => median(list.map(r => r[field]))
    const added = med(runs.judged, 'totalMs') - med(runs.plain, 'totalMs')
    const counted = runs.judged[0].tests
    rows.push({
      figure: `judged gate, ${runner} (4 test files, 8 tests)`,
      display: `+${ms(added)}`,
      goal: '—',
      met: null,
      detail:
        `median of ${REPEATS}: plain ${ms(med(runs.plain, 'totalMs'))}, judged ${ms(med(runs.judged, 'totalMs'))} = ` +
        `prepare (canaries written) ${ms(med(runs.judged, 'prepareMs'))} + gate ${ms(med(runs.judged, 'gateMs'))} + ` +
        `judge (report read) ${ms(med(runs.judged, 'judgeMs'))}; the report counted ${counted?.run ?? '?'} tests without the canaries.`
    })
  }
  return {
    rows,
    notes: [
      'The gate is `npm test` (node --test, jest) or python3 -m pytest, on a fresh copy of the project each run, plain and as the clean verification runs it.',
      ...skipped.map(s => `Skipped ${s}.`)
    ],
    data
  }
}
