// Failing gate output → annotations at file:line, for the formats people's gates print.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, expect, test } from '@jest/globals'
import { annotationsFor, findProblems, MAX_ANNOTATIONS } from '../../src/report/annotations.js'

let root: string
beforeAll(() => {
  root = mkdtempSync(path.join(tmpdir(), 'ralph-annotations-'))
  for (const file of [
    'src/calc.ts',
    'src/calc.test.ts',
    'tests/test_calc.py',
    'calc_test.go',
    'main.go',
    'src/main.rs',
    'calc.test.js',
    'web/app.js'
  ]) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true })
    writeFileSync(path.join(root, file), '\n')
  }
})
afterAll(() => rmSync(root, { recursive: true, force: true }))

const one = (output: string) => findProblems(output).map(({ at: _at, ...p }) => p)

test('tsc, plain and pretty', () => {
  expect(one("src/calc.ts(12,5): error TS2322: Type 'string' is not assignable to type 'number'.")).toEqual([
    {
      file: 'src/calc.ts',
      line: 12,
      column: 5,
      title: 'TS2322',
      message: "Type 'string' is not assignable to type 'number'."
    }
  ])
  expect(
    one(
      "\u001b[96msrc/calc.ts\u001b[0m:\u001b[93m3\u001b[0m:\u001b[93m7\u001b[0m - \u001b[91merror\u001b[0m TS2304: Cannot find name 'x'."
    )
  ).toEqual([{ file: 'src/calc.ts', line: 3, column: 7, title: 'TS2304', message: "Cannot find name 'x'." }])
})

test('ESLint stylish: errors under their file, warnings left out', () => {
  const output = [
    '',
    '/repo/web/app.js',
    "   3:10  error    'x' is defined but never used  no-unused-vars",
    '   7:1   warning  Unexpected console statement  no-console',
    '',
    '✖ 2 problems (1 error, 1 warning)'
  ].join('\n')
  expect(one(output)).toEqual([
    {
      file: '/repo/web/app.js',
      line: 3,
      column: 10,
      message: "'x' is defined but never used",
      title: 'no-unused-vars'
    }
  ])
})

test('jest: the failure heading, the message, the first frame in the project', () => {
  const output = [
    ' FAIL  src/calc.test.ts',
    '  ● calc › adds numbers',
    '',
    '    expect(received).toBe(expected) // Object.is equality',
    '',
    '    Expected: 4',
    '    Received: 3',
    '',
    '      3 | test("adds numbers", () => {',
    '    > 4 |   expect(add(1, 2)).toBe(4)',
    '        |                     ^',
    '',
    '      at Object.<anonymous> (src/calc.test.ts:4:21)',
    '      at Promise.then.completed (node_modules/jest-circus/build/utils.js:298:28)'
  ].join('\n')
  expect(one(output)).toEqual([
    {
      file: 'src/calc.test.ts',
      line: 4,
      column: 21,
      title: 'calc › adds numbers',
      message: 'expect(received).toBe(expected) // Object.is equality\n\nExpected: 4\nReceived: 3\n'
    }
  ])
})

test('vitest: FAIL file > test, the error, the ❯ frame', () => {
  const output = [
    ' FAIL  src/calc.test.ts > calc > adds',
    'AssertionError: expected 3 to be 4 // Object.is equality',
    ' ❯ src/calc.test.ts:5:23',
    '      3| test("adds", () => {'
  ].join('\n')
  expect(one(output)).toEqual([
    {
      file: 'src/calc.test.ts',
      line: 5,
      column: 23,
      title: 'src/calc.test.ts > calc > adds',
      message: 'AssertionError: expected 3 to be 4 // Object.is equality'
    }
  ])
})

test('pytest: the E lines and the place in the traceback, under the test’s name', () => {
  const output = [
    '___________________________ test_add ___________________________',
    '',
    '    def test_add():',
    '>       assert add(1, 2) == 4',
    'E       assert 3 == 4',
    'E        +  where 3 = add(1, 2)',
    '',
    'tests/test_calc.py:5: AssertionError',
    '=========================== short test summary info ===========================',
    'FAILED tests/test_calc.py::test_add - assert 3 == 4'
  ].join('\n')
  expect(one(output)).toEqual([
    {
      file: 'tests/test_calc.py',
      line: 5,
      title: 'test_add',
      message: 'assert 3 == 4\n+  where 3 = add(1, 2)\n(AssertionError)'
    }
  ])
})

test('go: build errors and test failures', () => {
  const output = [
    '# example.com/calc',
    './main.go:12:5: undefined: x',
    '=== RUN   TestAdd',
    '    calc_test.go:9: add(1, 2) = 3, want 4',
    '--- FAIL: TestAdd (0.00s)'
  ].join('\n')
  expect(one(output)).toEqual([
    { file: './main.go', line: 12, column: 5, message: 'undefined: x' },
    { file: 'calc_test.go', line: 9, title: 'TestAdd', message: 'add(1, 2) = 3, want 4' }
  ])
})

test('rustc: the error line and its --> place', () => {
  const output = [
    'error[E0308]: mismatched types',
    ' --> src/main.rs:4:18',
    '  |',
    '4 |     let x: i32 = "a";',
    '  |            ---   ^^^ expected `i32`, found `&str`'
  ].join('\n')
  expect(one(output)).toEqual([{ file: 'src/main.rs', line: 4, column: 18, message: 'mismatched types' }])
})

test('paths are made relative to the repository, files that do not exist are dropped, places are not repeated', () => {
  const output = [
    `${root}/src/calc.ts(1,1): error TS1: one`,
    'src/calc.ts(1,1): error TS1: the same place again',
    'gone.ts(2,2): error TS2: a file that is not there',
    '../outside.ts(3,3): error TS3: outside the repository'
  ].join('\n')
  expect(annotationsFor([{ name: 'types', output, cwd: root }], root)).toEqual([
    { file: 'src/calc.ts', line: 1, column: 1, title: 'types: TS1', message: 'one' }
  ])
})

test(`at most ${MAX_ANNOTATIONS}: GitHub shows no more for a step`, () => {
  const output = Array.from(
    { length: 30 },
    (_, i) => `src/calc.ts(${i + 1},1): error TS1: problem ${i}`
  ).join('\n')
  const annotations = annotationsFor([{ name: 'types', output, cwd: root }], root)
  expect(annotations).toHaveLength(MAX_ANNOTATIONS)
  expect(annotations[0].message).toBe('problem 0')
})
