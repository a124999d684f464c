// Canaries: tests the action adds to the clean checkout only, with names and messages drawn at random, so the code
// under test cannot see them coming. A new file beside the first protected test holds one that must pass and one
// that must fail; each protected test file gets one more that must fail, appended. The failing ones call the
// runner's own assertions first (each must throw), so code that replaced `assert.equal`, jest's `expect` or a
// matcher makes them pass. The runner's report must show exactly these results, and a runner with failing tests
// must not exit 0; otherwise the code under test changed how tests are judged. Then the canaries are taken out.
import { randomBytes } from 'node:crypto'
import path from 'node:path'
import type { ReportRunner, ReportedTest, RunnerReport } from './report.js'

/** The line a clean verification fails with when the canaries were not reported as expected. */
export const CANARY_FAILURE =
  "the test runner did not report the action's canary tests as expected: the code under test may have changed how tests are judged"

export interface Canary {
  /** The file it is in, relative to the project root (go: the folder, as go reports packages not files). */
  file: string
  name: string
  outcome: 'passed' | 'failed'
  /** A failing canary's message, which its report must carry. */
  message?: string
}

export interface CanaryPlan {
  runner: ReportRunner
  /** New files, relative to the project root. */
  files: { path: string; content: string }[]
  /** Text appended to protected test files. */
  appended: { path: string; text: string }[]
  expected: Canary[]
  /** Protected test files that get no canary, and why (a go file that does not import "testing"). */
  without: { path: string; why: string }[]
  /**
   * The key the canaries wait for: set only in the judged gate's environment, so another gate running the same
   * files (a script the action cannot read) judges the project's tests alone. Go's canaries cannot read it.
   */
  env: Record<string, string>
}

/** The random key in the text: an environment variable's name and value. */
interface Key {
  name: string
  value: string
}

/** `n` random bytes: crypto's by default, a fixed source in tests. */
export type RandomBytes = (n: number) => Buffer

const CONSONANTS = 'bdfgklmnprstvz'
const VOWELS = 'aeiou'

/** A word of three syllables drawn from `random`: a name no code can guess, that reads like any other. */
function word(random: RandomBytes): string {
  const bytes = random(6)
  let out = ''
  for (let i = 0; i < 6; i += 2)
    out += CONSONANTS[bytes[i] % CONSONANTS.length] + VOWELS[bytes[i + 1] % VOWELS.length]
  return out
}

const capital = (w: string): string => w[0].toUpperCase() + w.slice(1)

/** What a canary is called and says, in the runner's way of naming tests. */
function draw(runner: ReportRunner, random: RandomBytes): { name: string; message: string } {
  const [a, b, c] = [word(random), word(random), word(random)]
  const message = `expected ${a} to match ${b} ${random(4).readUInt32BE(0)}`
  if (runner === 'pytest') return { name: `test_${a}_${c}`, message }
  if (runner === 'go test') return { name: `Test${capital(a)}${capital(c)}`, message }
  return { name: `${a} ${c}`, message }
}

const js = (value: string): string => JSON.stringify(value)

/** Calls that must each throw (node's assert, strict and legacy), or the code under test replaced them. */
const NODE_MUST_THROW = [
  'ok(false)',
  'equal(1, 2)',
  'notEqual(1, 1)',
  'strictEqual(1, 2)',
  'notStrictEqual(1, 1)',
  'deepEqual({ a: 1 }, { a: 2 })',
  'deepStrictEqual({ a: 1 }, { a: 2 })',
  'notDeepStrictEqual({ a: 1 }, { a: 1 })',
  "match('a', /b/)",
  'throws(() => {})',
  'fail()'
]
const JEST_MUST_THROW = [
  'expect(1).toBe(2)',
  'expect(1).not.toBe(1)',
  'expect({ a: 1 }).toEqual({ a: 2 })',
  'expect([1]).toStrictEqual([2])',
  'expect(0).toBeTruthy()',
  'expect(1).toBeFalsy()',
  'expect(1).toBeNull()',
  'expect(undefined).toBeDefined()',
  "expect('a').toMatch(/b/)",
  'expect([1]).toContain(2)',
  'expect([]).toHaveLength(1)',
  'expect(1).toBeGreaterThan(2)',
  'expect(() => {}).toThrow()'
]

/** The body of a failing canary: every call must throw, and only then does it fail with `message`. */
const failingBody = (calls: string[], message: string): string =>
  `for (const call of [${calls.map(c => `() => ${c}`).join(', ')}]) { let threw = false; try { call() } catch { threw = true } if (!threw) return } throw new Error(${js(message)})`

// node: the test module is imported, not named, so the text is valid in CommonJS and ES modules alike; a file
// whose code ends its process before the import resolves never reports the canary.
const nodeTest = (name: string, body: string, key: Key): string =>
  `;${jsKeyed(key)} && import('node:assert').then(async ({ default: assert }) => { const strict = assert.strict; const { test } = await import('node:test'); test(${js(name)}, () => { ${body} }) })\n`
const nodeFailing = (name: string, message: string, key: Key): string =>
  nodeTest(
    name,
    failingBody(
      NODE_MUST_THROW.flatMap(c => [`assert.${c}`, `strict.${c}`]),
      message
    ),
    key
  )
const jsKeyed = (key: Key): string => `process.env[${js(key.name)}] === ${js(key.value)}`
const pyKeyed = (key: Key): string => `if __import__('os').environ.get(${js(key.name)}) == ${js(key.value)}:`
// jest: its globals, as the test files use them (a replaced global `test` or `expect` is what it catches).
const jestFailing = (name: string, message: string, key: Key): string =>
  `;${jsKeyed(key)} && test(${js(name)}, () => { ${failingBody(JEST_MUST_THROW, message)} })\n`
// pytest: a plain assert, which pytest rewrites in test modules, with the message.
const pytestFailing = (name: string, message: string, key: Key): string =>
  `\n\n${pyKeyed(key)}\n    def ${name}():\n        assert [1] == [2], ${js(message)}\n`
const goFailing = (name: string, message: string): string =>
  `\nfunc ${name}(t *testing.T) {\n\tt.Fatal(${js(message)})\n}\n`

/** The failing canary appended to one protected test file of `runner`. */
function appendix(runner: ReportRunner, name: string, message: string, key: Key): string {
  switch (runner) {
    case 'node --test':
      return nodeFailing(name, message, key)
    case 'jest':
      return jestFailing(name, message, key)
    case 'pytest':
      return pytestFailing(name, message, key)
    case 'go test':
      return goFailing(name, message)
  }
}

/** The new canary file's name beside `neighbour`, so the runner's pattern that found it finds this one too. */
function newFileName(runner: ReportRunner, neighbour: string | undefined, base: string): string {
  const dir = neighbour ? path.posix.dirname(neighbour) : '.'
  const name = neighbour ? path.posix.basename(neighbour) : ''
  const inDir = (file: string): string => (dir === '.' ? file : `${dir}/${file}`)
  if (runner === 'pytest') return inDir(/_test\.py$/.test(name) ? `${base}_test.py` : `test_${base}.py`)
  if (runner === 'go test') return inDir(`${base}_test.go`)
  const marker = /\.(test|spec)\.[^.]+$/.exec(name)?.[1] ?? 'test'
  const ext = /\.([cm]?[jt]sx?)$/.exec(name)?.[1] ?? 'js'
  return inDir(`${base}.${marker}.${ext}`)
}

/** The go package clause of a test file, and whether it imports "testing" as itself. */
function goFacts(text: string): { pkg?: string; testing: boolean } {
  const pkg = /^\s*package\s+([A-Za-z_]\w*)/m.exec(text)?.[1]
  const testing = /^\s*import\s+"testing"|^\s*import\s*\([^)]*^\s*"testing"/m.test(text)
  return { ...(pkg ? { pkg } : {}), testing }
}

/**
 * The canaries for a clean checkout whose gate runs `runner` over `protectedTests` (their paths relative to the
 * project root, and their text at the start: go needs its package clause).
 */
export function planCanaries(
  runner: ReportRunner,
  protectedTests: readonly { path: string; text: string }[],
  random: RandomBytes = randomBytes
): CanaryPlan {
  const key = { name: `RALPH_${word(random).toUpperCase()}`, value: random(12).toString('hex') }
  const plan: CanaryPlan = {
    runner,
    files: [],
    appended: [],
    expected: [],
    without: [],
    env: { [key.name]: key.value }
  }
  const sorted = [...protectedTests].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
  const reported = (file: string): string => (runner === 'go test' ? path.posix.dirname(file) : file)
  for (const test of sorted) {
    if (runner === 'go test' && !goFacts(test.text).testing) {
      plan.without.push({ path: test.path, why: 'it does not import "testing" by that name' })
      continue
    }
    const { name, message } = draw(runner, random)
    plan.appended.push({ path: test.path, text: appendix(runner, name, message, key) })
    plan.expected.push({ file: reported(test.path), name, outcome: 'failed', message })
  }
  const neighbour = sorted[0]
  const file = newFileName(runner, neighbour?.path, word(random))
  const pass = draw(runner, random)
  const fail = draw(runner, random)
  plan.files.push({ path: file, content: canaryFile(runner, pass.name, fail, key, neighbour?.text) })
  plan.expected.push({ file: reported(file), name: pass.name, outcome: 'passed' })
  plan.expected.push({ file: reported(file), name: fail.name, outcome: 'failed', message: fail.message })
  return plan
}

/** The new file: one canary that passes and one that fails. */
function canaryFile(
  runner: ReportRunner,
  pass: string,
  fail: { name: string; message: string },
  key: Key,
  neighbourText = ''
): string {
  switch (runner) {
    case 'node --test':
      return nodeTest(pass, 'assert.strictEqual(1, 1)', key) + nodeFailing(fail.name, fail.message, key)
    case 'jest':
      return `;${jsKeyed(key)} && test(${js(pass)}, () => { expect(1).toBe(1) })\n${jestFailing(fail.name, fail.message, key)}`
    case 'pytest':
      return `${pyKeyed(key)}\n    def ${pass}():\n        assert [1] == [1]\n${pytestFailing(fail.name, fail.message, key)}`
    case 'go test':
      return `package ${goFacts(neighbourText).pkg ?? 'main'}\n\nimport "testing"\n\nfunc ${pass}(t *testing.T) {}\n${goFailing(fail.name, fail.message)}`
  }
}

export type CanaryVerdict = { ok: true; report: RunnerReport } | { ok: false; problems: string[] }

/**
 * Whether `report` (and the runner's exit code) shows exactly the canaries' expected results; when it does, the
 * report without them, to count and judge the project's own tests.
 */
export function judgeCanaries(
  plan: CanaryPlan,
  report: RunnerReport,
  exitCode: number | null
): CanaryVerdict {
  const problems: string[] = []
  const isCanary = (test: ReportedTest, canary: Canary): boolean =>
    test.name === canary.name && (plan.runner === 'go test' || test.file === canary.file)
  for (const canary of plan.expected) {
    const found = report.tests.filter(t => isCanary(t, canary))
    const where = `the canary \`${canary.name}\` in ${canary.file}`
    if (found.length === 0) problems.push(`${where} was not reported`)
    else if (found.length > 1) problems.push(`${where} was reported ${found.length} times`)
    else if (found[0].outcome !== canary.outcome)
      problems.push(`${where} was reported ${found[0].outcome}, not ${canary.outcome}`)
    else if (canary.message !== undefined && !(found[0].message ?? '').includes(canary.message))
      problems.push(`${where} failed without its message`)
  }
  if (exitCode === 0 && plan.expected.some(c => c.outcome === 'failed'))
    problems.push('the runner exited 0 although tests failed')
  if (problems.length > 0) return { ok: false, problems }
  return {
    ok: true,
    report: { ...report, tests: report.tests.filter(t => !plan.expected.some(c => isCanary(t, c))) }
  }
}
