// The runners' reports, parsed: jest's JSON, pytest's JUnit XML (xunit1), the action's node reporter's lines and
// go test -json's events, each giving tests by file and full name with their outcome and failure message. The
// samples are the runners' own output on this machine (jest 30, pytest 7.2, Node 20 and 24, go 1.19), cut down.
import { describe, expect, test } from '@jest/globals'
import {
  ReportError,
  parseGoJson,
  parseJUnitXml,
  parseJestJson,
  parseNodeEvents,
  parseReport,
  parseXml
} from '../../src/verdict/report.js'

const ROOT = '/w/p'

describe('pytest JUnit XML (xunit1)', () => {
  const xml = [
    '<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite name="pytest" errors="0" failures="2" tests="5">',
    '<testcase classname="tests.test_calc" name="test_add" file="tests/test_calc.py" line="1" time="0.001">',
    '<failure message="assert -1 == 3&#10; +  where -1 = add(1, 2)">&gt;   def test_add(): assert add(1, 2) == 3</failure></testcase>',
    '<testcase classname="tests.test_cls.TestAdd" name="test_one" file="tests/test_cls.py" line="2" time="0.000" />',
    '<testcase classname="tests.test_cls.TestAdd" name="test_two" file="tests/test_cls.py" line="4" time="0.000">',
    '<skipped type="pytest.skip" message="later">tests/test_cls.py:4: later</skipped></testcase>',
    '<testcase classname="tests.test_cls" name="test_p[2]" file="tests/test_cls.py" line="6" time="0.000">',
    '<failure message="AssertionError: canary &lt;msg&gt; &amp; &quot;q&quot;"><![CDATA[raw <text>]]></failure></testcase>',
    '<testcase classname="" name="tests.test_broken" file="tests/test_broken.py" time="0.000">',
    '<error message="collection failure">ImportError while importing test module</error></testcase>',
    '</testsuite></testsuites>'
  ].join('\n')

  test('each testcase by file and name (a method under its class), its outcome, entities decoded', () => {
    const report = parseJUnitXml(xml, ROOT)
    expect(report.tests).toEqual([
      {
        file: 'tests/test_calc.py',
        name: 'test_add',
        outcome: 'failed',
        message: 'assert -1 == 3\n +  where -1 = add(1, 2)\n>   def test_add(): assert add(1, 2) == 3'
      },
      { file: 'tests/test_cls.py', name: 'TestAdd::test_one', outcome: 'passed' },
      { file: 'tests/test_cls.py', name: 'TestAdd::test_two', outcome: 'skipped' },
      {
        file: 'tests/test_cls.py',
        name: 'test_p[2]',
        outcome: 'failed',
        message: 'AssertionError: canary <msg> & "q"\nraw <text>'
      }
    ])
  })

  test('a module that failed to collect is a failure of its file, not a test', () => {
    expect(parseJUnitXml(xml, ROOT).fileFailures).toEqual([
      { file: 'tests/test_broken.py', message: 'collection failure\nImportError while importing test module' }
    ])
  })

  test('XML that does not nest is refused with a line saying so', () => {
    expect(() => parseXml('<a><b></a>')).toThrow(new ReportError('the XML report closes <a> unopened'))
    expect(() => parseXml('<testsuites><testcase name="x">')).toThrow(/ends inside <testcase>/)
  })
})

describe('jest --json', () => {
  const json = JSON.stringify({
    numTotalTests: 3,
    testResults: [
      {
        name: `${ROOT}/calc.test.js`,
        status: 'failed',
        message: '  ● calc › add',
        assertionResults: [
          {
            ancestorTitles: ['calc'],
            title: 'add',
            status: 'failed',
            failureMessages: ['Error: expected 3']
          },
          { ancestorTitles: [], title: 'later', status: 'pending', failureMessages: [] },
          { ancestorTitles: [], title: 'soon', status: 'todo', failureMessages: [] },
          { ancestorTitles: ['a', 'b'], title: 'deep', status: 'passed', failureMessages: [] }
        ]
      },
      {
        name: `${ROOT}/boom.test.js`,
        status: 'failed',
        message: 'Test suite failed to run: load boom',
        assertionResults: []
      }
    ]
  })

  test('each assertion by file and full name; a suite that failed to run is a failure of its file', () => {
    const report = parseJestJson(json, ROOT)
    expect(report.tests).toEqual([
      { file: 'calc.test.js', name: 'calc > add', outcome: 'failed', message: 'Error: expected 3' },
      { file: 'calc.test.js', name: 'later', outcome: 'skipped' },
      { file: 'calc.test.js', name: 'soon', outcome: 'skipped' },
      { file: 'calc.test.js', name: 'a > b > deep', outcome: 'passed' }
    ])
    expect(report.fileFailures).toEqual([
      { file: 'boom.test.js', message: 'Test suite failed to run: load boom' }
    ])
  })

  test('a report that is not jest’s is refused', () => {
    expect(() => parseJestJson('{"numTotalTests": 3}', ROOT)).toThrow("jest's report has no testResults")
    expect(() => parseReport('jest', 'Tests: 3 passed', ROOT)).toThrow("jest's report is not JSON")
    expect(() => parseReport('jest', '  \n', ROOT)).toThrow('jest wrote an empty report')
  })
})

describe("node --test, the action's reporter", () => {
  const line = (o: object): string => JSON.stringify(o)
  const events = (fileName: (file: string) => string): string =>
    [
      line({ type: 'test:pass', file: `${ROOT}/a.test.mjs`, name: 'passes', nesting: 0 }),
      line({ type: 'test:fail', file: `${ROOT}/a.test.mjs`, name: 'fails', nesting: 0, message: '1 !== 2' }),
      line({ type: 'test:pass', file: `${ROOT}/a.test.mjs`, name: 'inner', nesting: 2 }),
      line({ type: 'test:pass', file: `${ROOT}/a.test.mjs`, name: 'middle', nesting: 1 }),
      line({ type: 'test:pass', file: `${ROOT}/a.test.mjs`, name: 'leaf', nesting: 1 }),
      line({ type: 'test:pass', file: `${ROOT}/a.test.mjs`, name: 'group', nesting: 0 }),
      line({ type: 'test:pass', file: `${ROOT}/a.test.mjs`, name: 'skipped', nesting: 0, skip: true }),
      line({ type: 'test:pass', file: `${ROOT}/b.test.mjs`, name: fileName('b.test.mjs'), nesting: 0 }),
      line({
        type: 'test:fail',
        file: `${ROOT}/c.test.mjs`,
        name: fileName('c.test.mjs'),
        nesting: 0,
        message: 'test failed'
      }),
      ''
    ].join('\n')

  test.each([
    ['Node 20 (a file named by its absolute path)', (f: string) => `${ROOT}/${f}`],
    ['Node 24 (by its path from the folder it ran in)', (f: string) => f]
  ])(
    '%s: full names through the suites; a file that ended with no test, or failed to load, is the file’s',
    (_, fileName) => {
      const report = parseNodeEvents(events(fileName), ROOT)
      expect(report.tests).toEqual([
        { file: 'a.test.mjs', name: 'passes', outcome: 'passed' },
        { file: 'a.test.mjs', name: 'fails', outcome: 'failed', message: '1 !== 2' },
        { file: 'a.test.mjs', name: 'group > middle > inner', outcome: 'passed' },
        { file: 'a.test.mjs', name: 'group > leaf', outcome: 'passed' },
        { file: 'a.test.mjs', name: 'skipped', outcome: 'skipped' }
      ])
      expect(report.emptyFiles).toEqual(['b.test.mjs'])
      expect(report.fileFailures).toEqual([{ file: 'c.test.mjs', message: 'test failed' }])
    }
  )

  test('a failing suite is kept as a failure (a hook of its failed), its passing subtests too', () => {
    const report = parseNodeEvents(
      [
        line({ type: 'test:pass', file: `${ROOT}/a.test.mjs`, name: 'one', nesting: 1 }),
        line({
          type: 'test:fail',
          file: `${ROOT}/a.test.mjs`,
          name: 'suite',
          nesting: 0,
          message: 'after hook'
        })
      ].join('\n'),
      ROOT
    )
    expect(report.tests.map(t => [t.name, t.outcome])).toEqual([
      ['suite > one', 'passed'],
      ['suite', 'failed']
    ])
  })

  test('a line that is not JSON is refused (the report was written by something else)', () => {
    expect(() => parseNodeEvents('# tests 3\n# pass 3\n', ROOT)).toThrow(
      "node's report has a line that is not JSON"
    )
  })
})

describe('go test -json', () => {
  const ev = (o: object): string =>
    JSON.stringify({ Time: '2026-11-28T09:49:06Z', Package: 'example.com/calc', ...o })
  const text = [
    ev({ Action: 'run', Test: 'TestAdd' }),
    ev({ Action: 'output', Test: 'TestAdd', Output: '=== RUN   TestAdd\n' }),
    ev({ Action: 'output', Test: 'TestAdd', Output: '    calc_test.go:7: add(1, 2) = -1\n' }),
    ev({ Action: 'fail', Test: 'TestAdd', Elapsed: 0 }),
    ev({ Action: 'run', Test: 'TestSub/one' }),
    ev({ Action: 'pass', Test: 'TestSub/one', Elapsed: 0 }),
    ev({ Action: 'pass', Test: 'TestSub', Elapsed: 0 }),
    ev({ Action: 'skip', Test: 'TestLater', Elapsed: 0 }),
    ev({ Action: 'output', Output: 'FAIL\texample.com/calc\t0.004s\n' }),
    ev({ Action: 'fail', Elapsed: 0.004 }),
    JSON.stringify({
      Action: 'output',
      Package: 'example.com/broken',
      Output: '# example.com/broken\nsyntax error\n'
    }),
    JSON.stringify({ Action: 'fail', Package: 'example.com/broken', Elapsed: 0 }),
    'not json'
  ].join('\n')

  test('each test and subtest by package and name; its output is a failure’s message; a package that failed alone is its own failure', () => {
    const report = parseGoJson(text)
    expect(report.tests).toEqual([
      {
        file: 'example.com/calc',
        name: 'TestAdd',
        outcome: 'failed',
        message: '=== RUN   TestAdd\n    calc_test.go:7: add(1, 2) = -1\n'
      },
      { file: 'example.com/calc', name: 'TestSub/one', outcome: 'passed' },
      { file: 'example.com/calc', name: 'TestSub', outcome: 'passed' },
      { file: 'example.com/calc', name: 'TestLater', outcome: 'skipped' }
    ])
    expect(report.fileFailures).toEqual([
      { file: 'example.com/broken', message: '# example.com/broken\nsyntax error\n' }
    ])
  })
})
