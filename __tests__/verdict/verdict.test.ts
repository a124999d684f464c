// The verdict's pure parts: how each runner is told to write its report (and when a gate's command cannot carry
// it), the canaries' plan and judgement, counts by name, and the evidence the pull request shows for review.
import { describe, expect, test } from '@jest/globals'
import { recogniseRunner } from '../../src/loop/test-count.js'
import { judgeCanaries, planCanaries } from '../../src/verdict/canaries.js'
import { countProblems, namesRun, parseCollected, parseListedFiles } from '../../src/verdict/counts.js'
import { reviewSection, scanDiff } from '../../src/verdict/evidence.js'
import type { ReportRunner, RunnerReport } from '../../src/verdict/report.js'
import { reportInvocation, withRunnerArgs } from '../../src/verdict/report-files.js'
import { seeded } from './runners.js'

describe('report invocation', () => {
  test('pytest and node get theirs through the environment, after the job’s own value', () => {
    expect(reportInvocation('pytest', '/r/report.xml', { jobEnv: { PYTEST_ADDOPTS: '-x' } })).toEqual({
      args: [],
      env: { PYTEST_ADDOPTS: '-x --junitxml=/r/report.xml -o junit_family=xunit1' }
    })
    expect(
      reportInvocation('node --test', '/r/my report.jsonl', {
        reporter: '/r/reporter.mjs',
        jobEnv: { NODE_OPTIONS: '--max-old-space-size=4096' }
      }).env
    ).toEqual({
      NODE_OPTIONS:
        '--max-old-space-size=4096 --test-reporter=/r/reporter.mjs "--test-reporter-destination=/r/my report.jsonl" --test-reporter=spec --test-reporter-destination=stdout'
    })
  })

  test.each([
    [
      ['--test', '--test-reporter=spec'],
      '--test-reporter=/r/n.mjs --test-reporter-destination=/r/x --test-reporter-destination=stdout'
    ],
    [
      ['--test', '--test-reporter', 'tap', '--test-reporter-destination', 'stdout'],
      '--test-reporter=/r/n.mjs --test-reporter-destination=/r/x'
    ],
    [
      ['--test', '--test-reporter=spec', '--test-reporter=dot'],
      '--test-reporter=/r/n.mjs --test-reporter-destination=/r/x --test-reporter-destination=stdout --test-reporter-destination=stdout'
    ]
  ])('node %j: NODE_OPTIONS pairs each reporter with a destination (%s)', (nodeArgs, options) => {
    expect(reportInvocation('node --test', '/r/x', { reporter: '/r/n.mjs', nodeArgs }).env.NODE_OPTIONS).toBe(
      options
    )
  })

  const scripts = {
    test: 'node node_modules/jest/bin/jest.js --ci',
    unit: 'npm run inner',
    inner: 'jest',
    lint: 'jest && eslint .',
    chained: 'tsc && jest',
    withPost: 'jest',
    postwithPost: 'echo done'
  }
  const runnerOf = (step: string) => recogniseRunner(step, scripts).runner as ReportRunner | undefined
  const jest = reportInvocation('jest', '/r/out dir/report.json')

  test.each([
    ['jest --ci', "jest --ci --json '--outputFile=/r/out dir/report.json'"],
    ['npx jest src', "npx jest src --json '--outputFile=/r/out dir/report.json'"],
    ['npm test', "npm test -- --json '--outputFile=/r/out dir/report.json'"],
    ['npm run chained', "npm run chained -- --json '--outputFile=/r/out dir/report.json'"],
    ['yarn test', "yarn test --json '--outputFile=/r/out dir/report.json'"],
    ['npm ci && npx jest', "npm ci && npx jest --json '--outputFile=/r/out dir/report.json'"]
  ])('jest: `%s` becomes `%s`', (command, expected) => {
    expect(withRunnerArgs(command, jest, '/r/out dir/report.json', runnerOf, scripts)).toEqual({
      command: expected
    })
  })

  test.each([
    ['jest && eslint .', 'its test runner is not its last step'],
    ['npm run lint', 'its test runner is not its last step'],
    ['npm run unit', 'its package.json script runs another script before its test runner'],
    ['npm run withPost', "package.json's `postwithPost` runs after its test runner"],
    ['jest | tee log', 'it is not a plain command (or an `&&` chain of them)'],
    ['npm run missing', 'its test runner is not its last step']
  ])('jest: `%s` cannot carry the report: %s', (command, why) => {
    expect(withRunnerArgs(command, jest, '/r/x', runnerOf, scripts)).toEqual({ why })
  })

  test('go: -json, its standard output sent to the report', () => {
    const go = reportInvocation('go test', '/r/go.jsonl')
    expect(withRunnerArgs('go test -v ./...', go, '/r/go.jsonl', runnerOf)).toEqual({
      command: 'go test -v ./... -json > /r/go.jsonl'
    })
  })

  test('a runner reached through the environment keeps its command as it is', () => {
    const pytest = reportInvocation('pytest', '/r/x.xml')
    expect(withRunnerArgs('make test | tee log', pytest, '/r/x.xml', runnerOf)).toEqual({
      command: 'make test | tee log'
    })
  })
})

const report = (
  runner: ReportRunner,
  tests: RunnerReport['tests'],
  more: Partial<RunnerReport> = {}
): RunnerReport => ({
  runner,
  tests,
  fileFailures: [],
  emptyFiles: [],
  ...more
})

describe('canaries', () => {
  const tests = [
    { path: 'test/b.spec.ts', text: '' },
    { path: 'test/a.spec.ts', text: '' }
  ]

  test('node: a failing canary appended to each protected file, a pass and a fail in a new file beside the first', () => {
    const plan = planCanaries('node --test', tests, seeded('one'))
    expect(plan.appended.map(a => a.path)).toEqual(['test/a.spec.ts', 'test/b.spec.ts'])
    expect(plan.files).toHaveLength(1)
    expect(plan.files[0].path).toMatch(/^test\/[a-z]{6}\.spec\.ts$/)
    expect(plan.expected.map(c => [c.file, c.outcome])).toEqual([
      ['test/a.spec.ts', 'failed'],
      ['test/b.spec.ts', 'failed'],
      [plan.files[0].path, 'passed'],
      [plan.files[0].path, 'failed']
    ])
    // Each appended canary is its file's own test, with its name and message in it; they begin a statement.
    for (const [i, a] of plan.appended.entries()) {
      // …and run only under the key the judged gate alone gets (another gate over the same files runs none).
      const [[name, value]] = Object.entries(plan.env)
      expect(
        a.text.startsWith(`;process.env[${JSON.stringify(name)}] === ${JSON.stringify(value)} && import(`)
      ).toBe(true)
      expect(a.text).toContain(JSON.stringify(plan.expected[i].name))
      expect(a.text).toContain(JSON.stringify(plan.expected[i].message))
    }
  })

  test('names and messages are drawn anew: two plans share none, and none says what it is', () => {
    const a = planCanaries('jest', tests, seeded('a'))
    const b = planCanaries('jest', tests, seeded('b'))
    const words = (p: typeof a) => p.expected.flatMap(c => [c.name, c.message ?? ''])
    expect(words(a).filter(w => words(b).includes(w))).toEqual([''])
    expect(words(a).join(' ')).not.toMatch(/canary|ralph/i)
  })

  test.each([
    [
      'pytest',
      [{ path: 'tests/test_calc.py', text: '' }],
      /^tests\/test_[a-z]{6}\.py$/,
      /^test_[a-z]{6}_[a-z]{6}$/
    ],
    ['pytest', [{ path: 'calc_test.py', text: '' }], /^[a-z]{6}_test\.py$/, /^test_/],
    [
      'jest',
      [{ path: 'src/__tests__/calc.js', text: '' }],
      /^src\/__tests__\/[a-z]{6}\.test\.js$/,
      /^[a-z]{6} [a-z]{6}$/
    ],
    [
      'go test',
      [{ path: 'pkg/calc_test.go', text: 'package calc\n\nimport "testing"\n' }],
      /^pkg\/[a-z]{6}_test\.go$/,
      /^Test[A-Z][a-z]{5}[A-Z][a-z]{5}$/
    ]
  ] as const)('%s beside %j: the new file is %s, the names %s', (runner, files, file, name) => {
    const plan = planCanaries(runner, files, seeded('x'))
    expect(plan.files[0].path).toMatch(file)
    for (const c of plan.expected) expect(c.name).toMatch(name)
  })

  test('go: the new file is in its neighbour’s package; a file that does not import "testing" gets no canary', () => {
    const plan = planCanaries(
      'go test',
      [
        { path: 'calc_test.go', text: 'package calc_test\n\nimport (\n\t"testing"\n)\n' },
        { path: 'doc_test.go', text: 'package calc_test\n\nfunc Example() {}\n' }
      ],
      seeded('go')
    )
    expect(plan.files[0].content.startsWith('package calc_test\n\nimport "testing"\n')).toBe(true)
    expect(plan.appended.map(a => a.path)).toEqual(['calc_test.go'])
    expect(plan.without).toEqual([{ path: 'doc_test.go', why: 'it does not import "testing" by that name' }])
    // go reports packages, not files: a canary is the folder's.
    expect(plan.expected.map(c => c.file)).toEqual(['.', '.', '.'])
  })

  const plan = planCanaries('jest', [{ path: 'calc.test.js', text: '' }], seeded('judge'))
  const [appended, pass, fail] = plan.expected
  const asPlanned = (): RunnerReport['tests'] => [
    { file: 'calc.test.js', name: 'add', outcome: 'passed' },
    {
      file: appended.file,
      name: appended.name,
      outcome: 'failed',
      message: `Error: ${appended.message}\n  at x`
    },
    { file: pass.file, name: pass.name, outcome: 'passed' },
    { file: fail.file, name: fail.name, outcome: 'failed', message: `Error: ${fail.message}` }
  ]

  test('reported exactly as planned: the report without the canaries', () => {
    expect(judgeCanaries(plan, report('jest', asPlanned()), 1)).toEqual({
      ok: true,
      report: report('jest', [{ file: 'calc.test.js', name: 'add', outcome: 'passed' }])
    })
  })

  test.each([
    [
      'missing',
      (t: RunnerReport['tests']) => t.filter(x => x.name !== appended.name),
      /^the canary `.+` in calc\.test\.js was not reported$/
    ],
    [
      'passed',
      (t: RunnerReport['tests']) =>
        t.map(x => (x.name === fail.name ? { file: x.file, name: x.name, outcome: 'passed' as const } : x)),
      /was reported passed, not failed$/
    ],
    [
      'failed without its message',
      (t: RunnerReport['tests']) =>
        t.map(x => (x.name === fail.name ? { ...x, message: 'Error: something else' } : x)),
      /failed without its message$/
    ],
    ['reported twice', (t: RunnerReport['tests']) => [...t, t[2]], /was reported 2 times$/],
    [
      'in another file',
      (t: RunnerReport['tests']) =>
        t.map(x => (x.name === appended.name ? { ...x, file: 'other.test.js' } : x)),
      /in calc\.test\.js was not reported$/
    ]
  ])('a canary %s: refused with the line that says so', (_, change, line) => {
    const verdict = judgeCanaries(plan, report('jest', change(asPlanned())), 1)
    expect(verdict).toEqual({ ok: false, problems: [expect.stringMatching(line)] })
  })

  test('a runner that exits 0 with failing canaries is refused (atexit ended it with 0)', () => {
    expect(judgeCanaries(plan, report('jest', asPlanned()), 0)).toEqual({
      ok: false,
      problems: ['the runner exited 0 although tests failed']
    })
  })
})

describe('counts by name', () => {
  const start = new Map([
    ['calc.test.js', new Set(['add'])],
    ['mul.test.js', new Set(['mul one', 'mul two'])]
  ])
  const files = ['calc.test.js', 'mul.test.js']

  test('every test the start ran, by name, ran and passed: no problem; a new test is welcome', () => {
    const now = report('node --test', [
      { file: 'calc.test.js', name: 'add', outcome: 'passed' },
      { file: 'mul.test.js', name: 'mul one', outcome: 'passed' },
      { file: 'mul.test.js', name: 'mul two', outcome: 'passed' },
      { file: 'pad.test.js', name: 'pad 1', outcome: 'passed' }
    ])
    expect(countProblems(now, files, start)).toEqual([])
    expect(namesRun(now).get('mul.test.js')).toEqual(new Set(['mul one', 'mul two']))
  })

  test('a file that exits on load runs none of its names: 50 new tests elsewhere do not make up for it', () => {
    const now = report(
      'node --test',
      [
        { file: 'mul.test.js', name: 'mul one', outcome: 'passed' },
        { file: 'mul.test.js', name: 'mul two', outcome: 'skipped' },
        ...Array.from({ length: 50 }, (_, i) => ({
          file: 'pad.test.js',
          name: `pad ${i}`,
          outcome: 'passed' as const
        }))
      ],
      { emptyFiles: ['calc.test.js'] }
    )
    expect(countProblems(now, files, start)).toEqual([
      'calc.test.js ran 1 named tests at the start; now it does not run `add`',
      'mul.test.js ran 2 named tests at the start; now it does not run `mul two`'
    ])
  })

  test('no count at the start: each protected file must run a test, and every test it declares', () => {
    const now = report('pytest', [{ file: 'tests/test_mul.py', name: 'test_mul_one', outcome: 'passed' }], {
      fileFailures: [{ file: 'tests/test_broken.py', message: 'collection failure' }]
    })
    const declared = parseCollected(
      'tests/test_calc.py::test_add\ntests/test_mul.py::test_mul_one\ntests/test_mul.py::test_mul_two\n\n3 tests collected in 0.01s\n'
    )
    expect(countProblems(now, ['tests/test_calc.py', 'tests/test_mul.py'], undefined, declared)).toEqual([
      'tests/test_broken.py failed to run',
      'tests/test_calc.py ran no test (and there is no count at the start to compare with)',
      'tests/test_calc.py declares `test_add`, which did not run',
      'tests/test_mul.py declares `test_mul_two`, which did not run'
    ])
  })

  test('a failing test fails the count, named', () => {
    const now = report('jest', [{ file: 'calc.test.js', name: 'add', outcome: 'failed', message: 'x' }])
    expect(countProblems(now, ['calc.test.js'], start)).toEqual(['1 failing: `calc.test.js: add`'])
  })

  test('pytest’s collected ids by file (a class’s method, a parametrised id); jest’s listed files', () => {
    expect(
      parseCollected('tests/test_cls.py::TestAdd::test_one\ntests/test_cls.py::test_p[1-2]\nno tests ran\n')
    ).toEqual(new Map([['tests/test_cls.py', new Set(['TestAdd::test_one', 'test_p[1-2]'])]]))
    expect(parseListedFiles('["/w/p/calc.test.js","/w/p/test/a.test.js"]', '/w/p')).toEqual([
      'calc.test.js',
      'test/a.test.js'
    ])
  })
})

describe('evidence', () => {
  const diff = [
    'diff --git a/calc.js b/calc.js',
    'index 1111111..2222222 100644',
    '--- a/calc.js',
    '+++ b/calc.js',
    '@@ -1,3 +1,6 @@',
    " import assert from 'node:assert/strict'",
    '+assert.equal = () => {}',
    "+if (process.argv[1]?.endsWith('calc.test.js')) process.exit(0)",
    ' export const add = (a, b) => a - b',
    '-export const old = 1',
    "+const assert = require('assert'); const expected = 3; let f = expect => expect; if (expected === 3) {}",
    '+if (process.env.JEST_WORKER_ID) globalThis.expect = v => v',
    'diff --git "a/caf\\351.py" "b/caf\\351.py"',
    'new file mode 100644',
    '--- /dev/null',
    '+++ "b/caf\\351.py"',
    '@@ -0,0 +1,7 @@',
    '+import atexit, sys',
    "+sys.modules['iniconfig'] = None",
    '+import _pytest.python',
    '+class N(int):',
    '+    def __eq__(self, other): return True',
    "+x = os.environ.get('PYTEST_CURRENT_TEST')",
    '+expect.extend({ toBe: () => ({ pass: true }) })',
    'diff --git a/gone.js b/gone.js',
    'deleted file mode 100644',
    '--- a/gone.js',
    '+++ /dev/null',
    '@@ -1 +0,0 @@',
    '-process.exit(1)'
  ].join('\n')

  test('each added line that touches the runner’s names, with its file and line in the delivered file', () => {
    expect(scanDiff(diff).map(f => `${f.file}:${f.line} ${f.what}`)).toEqual([
      'calc.js:2 replaces an assertion (`assert.*` or `expect` assigned)',
      'calc.js:3 ends the process (`process.exit`)',
      'calc.js:6 replaces an assertion (`assert.*` or `expect` assigned)',
      "calc.js:6 reads the test runner's environment",
      '"caf\\351.py":1 runs code at exit (`atexit`)',
      '"caf\\351.py":2 changes the module table (`sys.modules`)',
      '"caf\\351.py":3 reaches into pytest\'s internals (`_pytest`)',
      '"caf\\351.py":5 defines `__eq__` (a value that may equal anything)',
      '"caf\\351.py":6 reads the test runner\'s environment',
      '"caf\\351.py":7 extends or replaces jest\'s matchers (`expect.extend`)'
    ])
  })

  test('the section: "Review these", one line a flag; nothing when there is none', () => {
    const section = reviewSection(scanDiff(diff).slice(0, 2))
    expect(section).toBe(
      [
        '### Review these',
        '',
        'The delivered code touches what a test runner judges by. No gate refuses these; a reviewer should look:',
        '',
        '- `calc.js:2`: replaces an assertion (`assert.*` or `expect` assigned)',
        '- `calc.js:3`: ends the process (`process.exit`)',
        ''
      ].join('\n')
    )
    expect(reviewSection([])).toBe('')
  })
})
