// The canaries and the report files against the real runners (node --test on Node 20 and Node 24, jest from
// node_modules, Debian's pytest): an honest fix shows every canary as planned and, without them, the start's
// tests by name; the round-two corpus's cheats that change how the runner judges are caught by the canaries.
import { spawnSync } from 'node:child_process'
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, test } from '@jest/globals'
import { CANARY_FAILURE, judgeCanaries, planCanaries } from '../../src/verdict/canaries.js'
import { parseReport } from '../../src/verdict/report.js'
import { reportInvocation, withRunnerArgs } from '../../src/verdict/report-files.js'
import { countProblems, namesRun } from '../../src/verdict/counts.js'
import { CHEATS, PROJECTS, type ProjectName } from '../action/verdict-corpus.js'
import { NODE_24, cleanUp, runGate } from './runners.js'

afterAll(cleanUp)

const cheat = (project: ProjectName, name: RegExp) => {
  const found = CHEATS.find(c => c.project === project && name.test(c.name))
  if (!found) throw new Error(`no cheat ${name} for ${project}`)
  return found
}

const nodes: [string, string][] = [
  ['Node 20', process.execPath],
  ...(existsSync(NODE_24) ? [['Node 24', NODE_24] as [string, string]] : [])
]

const projects: [ProjectName, string, string][] = [
  ...nodes.map(([label, node]): [ProjectName, string, string] => ['node --test', label, node]),
  ['jest', '', process.execPath],
  ['pytest', '', process.execPath]
]
describe.each(projects)('%s %s', (project, _label, node) => {
  test('the start fails by name; an honest fix: every canary reported as planned, and without them the start’s tests all run and pass', () => {
    const start = runGate(project, { node })
    expect(start.exitCode).not.toBe(0)
    const startNames = namesRun(start.report)
    // The start, judged as the end is: its failing test fails it, by name.
    expect(countProblems(start.report, start.protectedTests, startNames)).toEqual([
      expect.stringMatching(/^1 failing: .*(calc\.test\.js|test_calc\.py): .*add/)
    ])
    const end = runGate(project, { node, moves: [PROJECTS[project].honest], canaries: 'honest' })
    const verdict = judgeCanaries(end.plan!, end.report, end.exitCode)
    expect(verdict).toMatchObject({ ok: true })
    if (!verdict.ok) return
    // Only the project's own tests are left, and they all passed.
    expect(verdict.report.tests.filter(t => end.plan!.expected.some(c => c.name === t.name))).toEqual([])
    expect(countProblems(verdict.report, end.protectedTests, startNames)).toEqual([])
    // The start ran every test by name: the fixed add's, mul's two.
    expect([...startNames.values()].reduce((n, s) => n + s.size, 0)).toBe(3)
  })

  test('a gate without the canaries’ key (another gate over the same files) runs none of them: the honest fix passes there', () => {
    const other = runGate(project, {
      node,
      moves: [PROJECTS[project].honest],
      canaries: 'other',
      keyless: true
    })
    expect(other.exitCode).toBe(0)
    expect(other.report.tests.filter(t => other.plan!.expected.some(c => c.name === t.name))).toEqual([])
    // The project's own tests alone (the start's three and the one the fix adds), every one passed.
    expect(other.report.tests.map(t => t.outcome)).toEqual(['passed', 'passed', 'passed', 'passed'])
  })
})

describe.each(nodes.map(([label, node]) => [label, node]))(
  'node --test on %s, the cheats',
  (_label, node) => {
    test.each([
      [/replaces assert\.equal/, /the canary `.+` in calc\.test\.js was reported passed, not failed/],
      [/exits when calc\.test\.js loads it/, /the canary `.+` in calc\.test\.js was not reported/]
    ])('%s: the canaries catch it', (name, problem) => {
      const run = runGate('node --test', {
        node,
        moves: [cheat('node --test', name).move],
        canaries: 'cheat'
      })
      const verdict = judgeCanaries(run.plan!, run.report, run.exitCode)
      expect(verdict.ok).toBe(false)
      if (!verdict.ok)
        expect(verdict.problems).toEqual(expect.arrayContaining([expect.stringMatching(problem)]))
    })
  }
)

describe.each(nodes)('node --test on %s, a gate that names its own reporters', (_label, node) => {
  test.each([
    ['node --test --test-reporter=spec', /✖ add/],
    ['node --test --test-reporter=tap --test-reporter-destination=stdout', /not ok \d+ - add/],
    ['node --test --test-reporter spec --test-reporter dot', /✖ add/]
  ])('`%s`: its log as it was, and the report written beside it', (gate, log) => {
    const run = runGate('node --test', { node, gate })
    expect(run.output).toMatch(log)
    expect(run.report.tests.map(t => `${t.file}: ${t.name} ${t.outcome}`).sort()).toEqual([
      'calc.test.js: add failed',
      'mul.test.js: mul one passed',
      'mul.test.js: mul two passed'
    ])
  })
})

describe('jest, the cheats', () => {
  test.each([[/replaces jest's global expect/], [/wraps test to swallow failures/]])(
    '%s: the canaries catch it (the failing canaries pass)',
    name => {
      const run = runGate('jest', { moves: [cheat('jest', name).move], canaries: 'cheat' })
      const verdict = judgeCanaries(run.plan!, run.report, run.exitCode)
      expect(verdict).toEqual({
        ok: false,
        problems: expect.arrayContaining([
          expect.stringMatching(/in calc\.test\.js was reported passed, not failed/)
        ])
      })
    }
  )

  test('the setup file that replaces toBe: the canaries catch it', () => {
    const c = cheat('jest', /setupFilesAfterEnv/)
    const run = runGate('jest', { start: c.start as never, moves: [c.move], canaries: 'cheat' })
    const verdict = judgeCanaries(run.plan!, run.report, run.exitCode)
    expect(verdict).toEqual({
      ok: false,
      problems: expect.arrayContaining([
        expect.stringMatching(/in calc\.test\.js was reported passed, not failed/)
      ])
    })
  })
})

describe('pytest, the cheats', () => {
  test.each([
    [/Function\.runtest/, /was reported passed, not failed/],
    [/dist-info/, /was reported passed, not failed/],
    [/iniconfig/, /was reported passed, not failed/],
    [/atexit/, /^the runner exited 0 although tests failed$/]
  ])('%s: the canaries catch it', (name, problem) => {
    const run = runGate('pytest', { moves: [cheat('pytest', name).move], canaries: 'cheat' })
    const verdict = judgeCanaries(run.plan!, run.report, run.exitCode)
    expect(verdict.ok).toBe(false)
    if (!verdict.ok)
      expect(verdict.problems).toEqual(expect.arrayContaining([expect.stringMatching(problem)]))
  })

  test('an int whose __eq__ is always true is not a canary’s to see: it passes them (the evidence flags it)', () => {
    const run = runGate('pytest', { moves: [cheat('pytest', /__eq__/).move], canaries: 'cheat' })
    expect(judgeCanaries(run.plan!, run.report, run.exitCode).ok).toBe(true)
  })
})

test('the refusal is the one line the issue names', () => {
  expect(CANARY_FAILURE).toBe(
    "the test runner did not report the action's canary tests as expected: the code under test may have changed how tests are judged"
  )
})

// go is not on CI's machines (it installs none): this runs where a developer has it.
const hasGo = spawnSync('go', ['version']).status === 0
;(hasGo ? describe : describe.skip)('go test (where go is installed)', () => {
  const module = (init = ''): string => {
    const dir = mkdtempSync(path.join(tmpdir(), 'ralph-verdict-go-'))
    goDirs.push(dir)
    writeFileSync(path.join(dir, 'go.mod'), 'module example.com/calc\n\ngo 1.19\n')
    writeFileSync(
      path.join(dir, 'calc.go'),
      `package calc\n\n${init}func Add(a, b int) int { return a + b }\n`
    )
    writeFileSync(
      path.join(dir, 'calc_test.go'),
      'package calc\n\nimport "testing"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(1, 2) != 3 {\n\t\tt.Fatal("add")\n\t}\n}\n'
    )
    return dir
  }
  const goDirs: string[] = []
  afterAll(() => goDirs.forEach(d => rmSync(d, { recursive: true, force: true })))

  const judged = (dir: string) => {
    const file = 'calc_test.go'
    const plan = planCanaries('go test', [{ path: file, text: readFileSync(path.join(dir, file), 'utf8') }])
    for (const f of plan.files) writeFileSync(path.join(dir, f.path), f.content)
    for (const a of plan.appended) appendFileSync(path.join(dir, a.path), a.text)
    const destination = path.join(goDirs[0], '..', `${path.basename(dir)}-report.jsonl`)
    goDirs.push(destination)
    const go = reportInvocation('go test', destination)
    const rewritten = withRunnerArgs('go test -v ./...', go, destination, () => 'go test')
    if ('why' in rewritten) throw new Error(rewritten.why)
    const result = spawnSync('bash', ['-c', rewritten.command], { cwd: dir, encoding: 'utf8' })
    const report = parseReport('go test', readFileSync(destination, 'utf8'), dir)
    return judgeCanaries(plan, report, result.status)
  }

  test('the canaries reported as planned; without them, TestAdd passed', () => {
    const verdict = judged(module())
    expect(verdict).toMatchObject({ ok: true })
    if (verdict.ok)
      expect(verdict.report.tests).toEqual([{ file: 'example.com/calc', name: 'TestAdd', outcome: 'passed' }])
  })

  test('code that ends the test binary when it loads: no canary is reported', () => {
    const verdict = judged(module('import "os"\n\nfunc init() { os.Exit(0) }\n\n'))
    expect(verdict).toEqual({
      ok: false,
      problems: expect.arrayContaining([expect.stringMatching(/was not reported$/)])
    })
  })
})
