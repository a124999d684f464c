// A gate's test count (#27): which runner a gate runs (package.json's scripts as the start commit holds them),
// its count read from the runner's own summary (real output of each runner, __tests__/fixtures/test-runners),
// and the line that fails a gate whose count is missing or shrank.
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import {
  countProblem,
  goTestCount,
  parseTestCount,
  recogniseGates,
  recogniseRunner
} from '../../src/loop/test-count.js'

const captured = (name: string): string =>
  readFileSync(
    path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'test-runners', name),
    'utf8'
  )

const NOT_A_RUNNER =
  'it runs none of the runners counted (node --test, jest, vitest, pytest, go test -v/-json)'

const SCRIPTS = {
  test: 'jest --ci',
  unit: 'node --test',
  py: 'python3 -m pytest -q',
  vt: 'vitest run',
  all: 'npm run unit',
  lint: 'eslint .',
  loop: 'npm run loop',
  jestpath: 'node --experimental-vm-modules node_modules/jest/bin/jest.js'
}

test.each([
  ['node --test', 'node --test'],
  ['node --test --test-reporter=spec', 'node --test'],
  ['node --test --test-reporter=dot --test-reporter=tap', 'node --test'],
  ['NODE_OPTIONS=--no-warnings node --import tsx --test test/', 'node --test'],
  ['node node_modules/jest/bin/jest.js', 'jest'],
  ['node --experimental-vm-modules node_modules/.bin/jest --ci', 'jest'],
  ['jest', 'jest'],
  ['npx jest --ci', 'jest'],
  ['npx --yes vitest run', 'vitest'],
  ['vitest run', 'vitest'],
  ['pytest -q', 'pytest'],
  ['/usr/bin/python3 -m pytest -rA tests', 'pytest'],
  ["pytest -k 'not slow'", 'pytest'],
  ['go test -v ./...', 'go test'],
  ['go test -json ./...', 'go test'],
  ['npm ci && npm test', 'jest'],
  ['npm test -- --runInBand', 'jest'],
  ['npm run unit', 'node --test'],
  ['npm run-script all', 'node --test'],
  ['npm --silent run py', 'pytest'],
  ['yarn test', 'jest'],
  ['yarn vt', 'vitest'],
  ['pnpm run unit', 'node --test'],
  ['pnpm jestpath', 'jest']
])('%s is counted as %s', (command, runner) => {
  expect(recogniseRunner(command, SCRIPTS)).toMatchObject({ runner })
})

test('the scripts a gate goes through are kept as the start has them, with their pre and post scripts', () => {
  expect(recogniseRunner('npm run all', { ...SCRIPTS, preunit: 'echo hi' })).toEqual({
    runner: 'node --test',
    scripts: {
      all: 'npm run unit',
      preall: undefined,
      postall: undefined,
      unit: 'node --test',
      preunit: 'echo hi',
      postunit: undefined
    }
  })
  expect(recogniseRunner('pytest', SCRIPTS)).toEqual({ runner: 'pytest' })
})

test.each([
  ['eslint .', NOT_A_RUNNER],
  ['npm run lint', NOT_A_RUNNER],
  ['npm run missing', 'package.json at the start has no script `missing`'],
  ['npm run loop', 'its scripts call scripts more than 4 deep'],
  [
    'go test ./...',
    '`go test` prints no count without -v or -json: add -v to the gate to have its tests counted'
  ],
  ['node --test | tee out.txt', 'it is not a plain command (or an `&&` chain of them)'],
  ['node --test; true', 'it is not a plain command (or an `&&` chain of them)'],
  ['node --test || true', 'it is not a plain command (or an `&&` chain of them)'],
  ['node --test > out.txt', 'it is not a plain command (or an `&&` chain of them)'],
  ['$(echo node) --test', 'it is not a plain command (or an `&&` chain of them)'],
  ['cd app && npm test', 'it changes folder (`cd`) before the runner'],
  ['npm test && pytest', 'it runs more than one test runner'],
  ['vitest watch', NOT_A_RUNNER],
  [
    'node --test --test-reporter=dot',
    '`node --test` prints no count with these reporters: add `--test-reporter=spec` to have its tests counted'
  ],
  [
    'node --test --test-reporter spec --test-reporter-destination out.txt',
    '`node --test` prints no count with these reporters: add `--test-reporter=spec` to have its tests counted'
  ],
  ['pytest -qq', 'pytest prints no count with `-qq` or `-p no:terminal`: use `-q` to have its tests counted'],
  [
    'python3 -m pytest -q --quiet',
    'pytest prints no count with `-qq` or `-p no:terminal`: use `-q` to have its tests counted'
  ],
  [
    'pytest -p no:terminal',
    'pytest prints no count with `-qq` or `-p no:terminal`: use `-q` to have its tests counted'
  ]
])('%s is not counted: %s', (command, why) => {
  expect(recogniseRunner(command, SCRIPTS)).toEqual({ why })
})

test("npm scripts are read from the start commit's package.json text, and a broken one is named", () => {
  const pkg = JSON.stringify({ scripts: { test: 'node --test', n: 7 } })
  expect(recogniseGates(['npm test', 'npm run n', 'pytest'], pkg)).toEqual([
    { runner: 'node --test', scripts: { test: 'node --test', pretest: undefined, posttest: undefined } },
    { why: 'package.json at the start has no script `n`' },
    { runner: 'pytest' }
  ])
  expect(recogniseGates(['npm test', 'pytest'], '{ nope')).toEqual([
    { why: 'package.json at the start is not valid JSON' },
    { runner: 'pytest' }
  ])
  expect(recogniseGates(['npm test'], undefined)).toEqual([
    { why: 'package.json at the start has no script `test`' }
  ])
})

// Each capture: 2 passed, 1 failed, 1 skipped + 1 todo (or xfailed), and a test printing a forged summary first.
const MIXED = { run: 3, passed: 2, failed: 1, skipped: 2 }

test.each([
  ['node-test-tap.txt', 'node --test', MIXED],
  ['node-test-spec.txt', 'node --test', MIXED],
  ['node-test-node24.txt', 'node --test', MIXED],
  // A file ended early passes as one test named by its path: it ran none.
  ['node-test-exit.txt', 'node --test', { run: 0, passed: 0, failed: 0, skipped: 0 }],
  ['node-test-exit-files.txt', 'node --test', { run: 2, passed: 2, failed: 0, skipped: 0 }],
  ['node-test-exit-files-node24.txt', 'node --test', { run: 2, passed: 2, failed: 0, skipped: 0 }],
  ['jest.txt', 'jest', MIXED],
  ['vitest.txt', 'vitest', MIXED],
  // pytest: an xpass counts as passed, an xfail as skipped.
  ['pytest.txt', 'pytest', { run: 4, passed: 3, failed: 1, skipped: 2 }],
  ['pytest-q.txt', 'pytest', { run: 4, passed: 3, failed: 1, skipped: 2 }],
  ['pytest-rA.txt', 'pytest', { run: 4, passed: 3, failed: 1, skipped: 2 }]
] as const)(
  "%s: %s's own count, from its last summary (not the forged one printed before it)",
  (file, runner, count) => {
    expect(parseTestCount(runner, captured(file))).toEqual(count)
  }
)

test('a runner ended early by the code under test (jest, process.exit) reports no count', () => {
  expect(parseTestCount('jest', captured('jest-exit.txt'))).toBeUndefined()
  expect(parseTestCount('pytest', 'collected 3 items\n\ntest_calc.py .')).toBeUndefined()
  expect(parseTestCount('node --test', '✔ one (1ms)\n')).toBeUndefined()
})

test('node --test: only a top-level pass named by a script is a file that ran none', () => {
  const summary = ['tests 3', 'pass 3', 'fail 0'].map(l => `ℹ ${l}`).join('\n')
  const spec = (...names: string[]): string => `${names.map(n => `${n} (1.5ms)`).join('\n')}\n${summary}`
  expect(parseTestCount('node --test', spec('✔ reads a.js', '✔ b.test.mjs', '  ✔ c.js'))).toMatchObject({
    passed: 2
  })
  expect(parseTestCount('node --test', spec('✔ /w/my dir/a.test.ts', '✔ x', '✔ y'))).toMatchObject({
    passed: 2
  })
})

test("pytest's other summaries: errors, no tests, a long run's clock", () => {
  expect(parseTestCount('pytest', '==== 1 error in 0.10s ====')).toEqual({
    run: 1,
    passed: 0,
    failed: 1,
    skipped: 0
  })
  expect(parseTestCount('pytest', '===== no tests ran in 0.01s =====')).toEqual({
    run: 0,
    passed: 0,
    failed: 0,
    skipped: 0
  })
  expect(parseTestCount('pytest', '== 3 passed, 2 warnings in 75.20s (0:01:15) ==')).toMatchObject({ run: 3 })
})

test('go test: -json counts the events of tests, -v every --- line, subtests included', () => {
  const lines = (file: string): string[] => captured(file).split('\n')
  // TestFive prints `--- PASS: TestFake`: go 1.19's test2json reads the text too, so both count it (a
  // residual risk; go 1.20 frames its own lines for -json).
  const counted = { run: 6, passed: 5, failed: 1, skipped: 2 }
  expect(goTestCount(lines('go-test-json.txt'))).toEqual(counted)
  expect(goTestCount(lines('go-test-v.txt'))).toEqual(counted)
  expect(goTestCount(['no go here'])).toBeUndefined()
})

test('the line that fails a gate: no count, fewer run, more skipped', () => {
  const start = { run: 2, passed: 2, failed: 0, skipped: 0 }
  expect(countProblem('npm test', 'jest', undefined, start)).toBe(
    "`npm test` reported no test count: jest's summary is not in its output"
  )
  expect(countProblem('npm test', 'jest', { run: 1, passed: 1, failed: 0, skipped: 0 }, start)).toBe(
    '`npm test` ran 2 tests at the start and 1 now'
  )
  expect(countProblem('pytest', 'pytest', { run: 1, passed: 1, failed: 0, skipped: 1 }, start)).toBe(
    '`pytest` ran 2 tests at the start and 1 now; `pytest` skipped 0 tests at the start and 1 now'
  )
  expect(
    countProblem('npm test', 'jest', { run: 3, passed: 3, failed: 0, skipped: 0 }, start)
  ).toBeUndefined()
  // Without a baseline's count there is nothing to compare: only a missing count fails.
  expect(
    countProblem('npm test', 'jest', { run: 0, passed: 0, failed: 0, skipped: 0 }, undefined)
  ).toBeUndefined()
})
