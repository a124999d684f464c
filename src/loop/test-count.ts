// A gate's test count, which may not shrink (#27): which runner a gate's command runs (npm/yarn/pnpm scripts
// read from the start commit's package.json, never the tree's), and that runner's own count, read from the
// summary it prints anyway. No flag or report file is added: the gate runs as the user wrote it, and a report
// file would be written by the same uid as the code under test, so it would be no harder to forge than the
// output. The LAST summary in the output counts: one the code under test prints while its tests run comes
// before the runner's own; a script the gate runs that the tree changed (a `posttest` that prints one) makes
// the count unbelieved. Residual risk: code under test that writes a forged summary after the runner's (a
// child left printing to the runner's stdout, or /proc/<runner>/fd/1), or `--- PASS:` lines that go test
// (1.19's -json too) cannot tell from its own, is believed. This catches `.skip`, `xfail`, `t.Skip`, deleted
// tests and a test run cut short, not a deliberate forgery of the runner's output.
import { closeSync, openSync, readSync } from 'node:fs'
import path from 'node:path'
import type { Workspace } from '../git/workspace.js'
import { readTreeFile } from '../ralph/index.js'
import { codeCell } from '../text/markdown.js'
import { readFileTail } from './checks.js'
import type { CheckContext } from './checks.js'
import type { CheckRun, TestCount } from './types.js'

export type TestRunner = 'node --test' | 'jest' | 'vitest' | 'pytest' | 'go test'

/**
 * A gate's runner, with the start's text of each package.json script it goes through (and of their pre and
 * post scripts, undefined when absent), or why none.
 */
export type Recognition =
  { runner: TestRunner; scripts?: Record<string, string | undefined> } | { runner?: undefined; why: string }

/** The runners counted, as the record names them. */
export const COUNTED_RUNNERS = 'node --test, jest, vitest, pytest, go test -v/-json'

/** Bytes read back from the end of a gate's log to find its summary. */
const SUMMARY_BYTES = 64 * 1024
/** How deep scripts may call scripts (`npm test` → `npm run unit` → `jest`). */
const SCRIPT_DEPTH = 4

/**
 * The test runner `command` (a gate's `run`) runs, through package.json `scripts` (the start commit's) for
 * `npm test`, `npm run X`, `yarn X`, `pnpm X`. A chain `a && b` counts when exactly one step is a runner.
 */
export function recogniseRunner(command: string, scripts?: Record<string, string>, depth = 0): Recognition {
  const steps = splitChain(command)
  if (!steps) return { why: 'it is not a plain command (or an `&&` chain of them)' }
  const found: Recognition[] = steps.map(argv => recogniseArgv(argv, scripts, depth))
  const runners = found.filter(r => r.runner !== undefined)
  if (runners.length === 1) {
    if (steps.some(argv => argv[0] === 'cd')) return { why: 'it changes folder (`cd`) before the runner' }
    return runners[0]
  }
  if (runners.length > 1) return { why: 'it runs more than one test runner' }
  const reasons = found.filter(r => r.runner === undefined && r.why !== NOT_A_RUNNER)
  return reasons.length > 0 ? reasons[0] : { why: NOT_A_RUNNER }
}

const NOT_A_RUNNER = `it runs none of the runners counted (${COUNTED_RUNNERS})`

function recogniseArgv(
  argv: string[],
  scripts: Record<string, string> | undefined,
  depth: number
): Recognition {
  let args = argv
  while (args.length > 0 && /^[A-Za-z_][A-Za-z0-9_]*=/.test(args[0])) args = args.slice(1)
  if (args[0] === 'npx' || args[0] === 'exec')
    args = args.slice(1).filter((a, i) => i > 0 || !a.startsWith('-'))
  if (args.length === 0) return { why: NOT_A_RUNNER }
  const program = path.basename(args[0])
  const rest = args.slice(1)
  if (program === 'node' || program === 'nodejs') return recogniseNode(rest)
  if (program === 'jest') return { runner: 'jest' }
  if (program === 'vitest')
    return rest[0] === 'watch' || rest[0] === 'bench' ? { why: NOT_A_RUNNER } : { runner: 'vitest' }
  if (['pytest', 'pytest-3', 'py.test'].includes(program)) return recognisePytest(rest)
  if (/^python[0-9.]*$/.test(program)) {
    const m = rest.indexOf('-m')
    return m >= 0 && rest[m + 1] === 'pytest' ? recognisePytest(rest.slice(m + 2)) : { why: NOT_A_RUNNER }
  }
  if (program === 'go' && rest[0] === 'test') {
    // Without -v or -json go test prints no count, only `ok  pkg`.
    if (rest.some(a => /^--?(v|json)(=true)?$/.test(a))) return { runner: 'go test' }
    return {
      why: '`go test` prints no count without -v or -json: add -v to the gate to have its tests counted'
    }
  }
  if (['npm', 'yarn', 'pnpm'].includes(program)) {
    const name = scriptName(
      program,
      rest.filter(a => !a.startsWith('-') || a === '--')
    )
    if (name === undefined) return { why: NOT_A_RUNNER }
    const script = scripts?.[name]
    if (script === undefined) return { why: `package.json at the start has no script \`${name}\`` }
    if (depth >= SCRIPT_DEPTH) return { why: `its scripts call scripts more than ${SCRIPT_DEPTH} deep` }
    const found = recogniseRunner(script, scripts, depth + 1)
    if (found.runner === undefined) return found
    return {
      ...found,
      scripts: {
        ...found.scripts,
        [name]: script,
        [`pre${name}`]: scripts?.[`pre${name}`],
        [`post${name}`]: scripts?.[`post${name}`]
      }
    }
  }
  return { why: NOT_A_RUNNER }
}

/** pytest, unless told to print no summary (`-qq`, `-p no:terminal`). */
function recognisePytest(args: string[]): Recognition {
  const quiet = args.reduce((n, a) => n + (/^-q+$/.test(a) ? a.length - 1 : a === '--quiet' ? 1 : 0), 0)
  const noTerminal = args.some(
    (a, i) => a === '-pno:terminal' || (a === '-p' && args[i + 1] === 'no:terminal')
  )
  if (quiet >= 2 || noTerminal)
    return {
      why: 'pytest prints no count with `-qq` or `-p no:terminal`: use `-q` to have its tests counted'
    }
  return { runner: 'pytest' }
}

/** `node --test` prints its summary with its own reporters (tap, spec) to stdout, not with dot, junit or a file. */
function nodeTestReporters(args: string[]): Recognition {
  const values = (flag: string): string[] =>
    args.flatMap((a, i) =>
      a === flag ? [args[i + 1] ?? ''] : a.startsWith(`${flag}=`) ? [a.slice(flag.length + 1)] : []
    )
  const reporters = values('--test-reporter')
  const destinations = values('--test-reporter-destination')
  const summary =
    reporters.length === 0 ||
    reporters.some(
      (r, i) => ['spec', 'tap'].includes(r) && ['stdout', 'stderr', undefined].includes(destinations[i])
    )
  if (summary) return { runner: 'node --test' }
  return {
    why: '`node --test` prints no count with these reporters: add `--test-reporter=spec` to have its tests counted'
  }
}

/** `node --test …`, or node running jest's or vitest's own script (`node node_modules/jest/bin/jest.js`). */
function recogniseNode(args: string[]): Recognition {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]
    if (arg === '--test') return nodeTestReporters(args)
    if (
      ['-r', '--require', '--import', '--loader', '--experimental-loader', '-C', '--conditions'].includes(arg)
    ) {
      i++
      continue
    }
    if (arg.startsWith('-')) continue
    const parts = arg.split('/')
    const file = parts.at(-1) ?? ''
    if (file === 'jest' || (file === 'jest.js' && parts.at(-3) === 'jest')) return { runner: 'jest' }
    if (file === 'vitest' || file === 'vitest.mjs') return { runner: 'vitest' }
    return { why: NOT_A_RUNNER }
  }
  return { why: NOT_A_RUNNER }
}

/** The script `npm test` / `npm run X` / `yarn X` / `pnpm run X` runs (args: its words past the program). */
function scriptName(program: string, words: string[]): string | undefined {
  const [verb, name] = words
  if (verb === undefined || verb === '--') return undefined
  if (['test', 't', 'tst'].includes(verb)) return 'test'
  if (verb === 'run' || verb === 'run-script') return name === '--' ? undefined : name
  // yarn and pnpm run a script by its name alone.
  if (program !== 'npm' && !['install', 'add', 'exec', 'dlx', 'x', 'install-test', 'it'].includes(verb))
    return verb
  return undefined
}

/**
 * The command as argv lists, one per `&&` step, or undefined when it is more than that (pipes, `;`, `||`,
 * redirections, substitutions, subshells, several lines): what such a command counts is not knowable.
 */
function splitChain(command: string): string[][] | undefined {
  const steps: string[][] = [[]]
  let word: string | undefined
  const end = (): void => {
    if (word !== undefined) steps[steps.length - 1].push(word)
    word = undefined
  }
  for (let i = 0; i < command.length; i++) {
    const c = command[i]
    if (c === "'") {
      const close = command.indexOf("'", i + 1)
      if (close < 0) return undefined
      word = (word ?? '') + command.slice(i + 1, close)
      i = close
    } else if (c === '"') {
      const close = command.indexOf('"', i + 1)
      const inner = close < 0 ? undefined : command.slice(i + 1, close)
      if (inner === undefined || /[$`\\]/.test(inner)) return undefined
      word = (word ?? '') + inner
      i = close
    } else if (c === ' ' || c === '\t') end()
    else if (c === '&' && command[i + 1] === '&') {
      end()
      if (steps[steps.length - 1].length === 0) return undefined
      steps.push([])
      i++
    } else if (/[|;<>()`$\\\n\r&*?[\]{}~#]/.test(c)) {
      // A glob or `~` in an argument is fine; anywhere else these change what runs.
      if (/[*?[\]{}~]/.test(c)) word = (word ?? '') + c
      else return undefined
    } else word = (word ?? '') + c
  }
  end()
  return steps.every(step => step.length > 0) ? steps : undefined
}

// ANSI colour and cursor codes (vitest colours its output even off a terminal).
// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;?]*[A-Za-z]/g

/** The runner's count from the end of its output (the last summary in it), or undefined when it has none. */
export function parseTestCount(
  runner: Exclude<TestRunner, 'go test'>,
  output: string
): TestCount | undefined {
  const lines = output.replace(ANSI, '').split(/\r?\n/)
  switch (runner) {
    case 'node --test':
      return nodeCount(lines)
    case 'jest':
      return jestCount(lines)
    case 'vitest':
      return vitestCount(lines)
    case 'pytest':
      return pytestCount(lines)
  }
}

const lastLine = (lines: string[], test: (line: string) => boolean): string | undefined => {
  for (let i = lines.length - 1; i >= 0; i--) if (test(lines[i])) return lines[i]
  return undefined
}

const count = (passed: number, failed: number, skipped: number): TestCount => ({
  run: passed + failed,
  passed,
  failed,
  skipped
})

/** Parts such as `2 passed`, `1 failed` of a summary line, by name. */
function parts(text: string): Map<string, number> {
  const found = new Map<string, number>()
  for (const m of text.matchAll(/(\d+) ([a-z]+)/g)) found.set(m[2], (found.get(m[2]) ?? 0) + Number(m[1]))
  return found
}

/** A top-level test that passed, named by a script's path: `ok 1 - /w/calc.test.js`, `✔ calc.test.js (9ms)`. */
const NODE_FILE_PASSED = /^(?:ok \d+ - |✔ )(?:\/.*|\S+)\.[cm]?[jt]sx?(?: \([\d.]+m?s\))?$/

/** `# tests 5` / `ℹ tests 5` then pass, fail, cancelled, skipped, todo (tap or spec, Node 20 to 24). */
function nodeCount(lines: string[]): TestCount | undefined {
  for (let i = lines.length - 1; i >= 0; i--) {
    if (!/^(# |ℹ )tests \d+$/.test(lines[i])) continue
    const found = new Map<string, number>()
    for (const line of lines.slice(i + 1, i + 9)) {
      const m = /^(?:# |ℹ )([a-z_]+) (\d+)/.exec(line)
      if (m) found.set(m[1], Number(m[2]))
    }
    const get = (name: string): number | undefined => found.get(name)
    const [pass, fail] = [get('pass'), get('fail')]
    if (pass === undefined || fail === undefined) return undefined
    // A file that ended with no test reported (process.exit from the code under test) passes as one test
    // named by its path: it ran none, or a one-test file cut short would keep its count.
    const filesPassed = lines.slice(0, i).filter(line => NODE_FILE_PASSED.test(line)).length
    return count(
      Math.max(0, pass - filesPassed),
      fail + (get('cancelled') ?? 0),
      (get('skipped') ?? 0) + (get('todo') ?? 0)
    )
  }
  return undefined
}

/** `Tests:       1 failed, 1 skipped, 1 todo, 2 passed, 5 total`. */
function jestCount(lines: string[]): TestCount | undefined {
  const line = lastLine(lines, l => /^Tests:\s+(\d+ [a-z]+, )*\d+ total\s*$/.test(l))
  if (!line) return undefined
  const p = parts(line)
  return count(p.get('passed') ?? 0, p.get('failed') ?? 0, (p.get('skipped') ?? 0) + (p.get('todo') ?? 0))
}

/** `      Tests  1 failed | 2 passed | 1 skipped | 1 todo (5)`. */
function vitestCount(lines: string[]): TestCount | undefined {
  const line = lastLine(lines, l => /^\s*Tests\s+\d+ [a-z]+( \| \d+ [a-z]+)* \(\d+\)\s*$/.test(l))
  if (!line) return undefined
  const p = parts(line)
  return count(p.get('passed') ?? 0, p.get('failed') ?? 0, (p.get('skipped') ?? 0) + (p.get('todo') ?? 0))
}

/** `===== 1 failed, 2 passed, 1 skipped, 1 xfailed, 1 xpassed in 0.02s =====` (or without the rules, -q). */
function pytestCount(lines: string[]): TestCount | undefined {
  const summary = /^=*\s*((?:\d+ [a-z]+(?:, )?)+|no tests ran) in [\d.]+s( \([\d:]+\))?\s*=*\s*$/
  const line = lastLine(lines, l => summary.test(l))
  if (!line) return undefined
  const p = parts(line)
  const n = (name: string): number => p.get(name) ?? 0
  return count(
    n('passed') + n('xpassed'),
    n('failed') + n('error') + n('errors'),
    n('skipped') + n('xfailed')
  )
}

/**
 * `go test -json`'s pass/fail/skip events of tests (not packages), or `go test -v`'s `--- PASS:` lines,
 * subtests included, over the whole log: go prints no total.
 */
export function goTestCount(lines: Iterable<string>): TestCount | undefined {
  const n = { PASS: 0, FAIL: 0, SKIP: 0 }
  let seen = false
  for (const raw of lines) {
    const line = raw.replace(ANSI, '')
    if (line.startsWith('{')) {
      let event: { Action?: unknown; Test?: unknown }
      try {
        event = JSON.parse(line) as { Action?: unknown; Test?: unknown }
      } catch {
        // A line that only looks like JSON is the tests' own output, not a go test event: not counted.
        continue
      }
      if (typeof event.Test !== 'string') continue
      const action = String(event.Action).toUpperCase()
      if (action === 'PASS' || action === 'FAIL' || action === 'SKIP') {
        n[action]++
        seen = true
      }
      continue
    }
    const m = /^\s*--- (PASS|FAIL|SKIP): /.exec(line)
    if (m) {
      n[m[1] as keyof typeof n]++
      seen = true
    } else if (/^(ok|FAIL|\?)\s+\S+/.test(line)) seen = true
  }
  return seen ? count(n.PASS, n.FAIL, n.SKIP) : undefined
}

/** The lines of a file, read in pieces (a go test log has a line per test: it may be large). */
function* fileLines(file: string): Generator<string> {
  let fd: number
  try {
    fd = openSync(file, 'r')
  } catch {
    // No log (the gate never started): no lines, so no count, which the caller reports.
    return
  }
  try {
    const buf = Buffer.alloc(1024 * 1024)
    let carry = ''
    for (let read = readSync(fd, buf); read > 0; read = readSync(fd, buf)) {
      const text = carry + buf.subarray(0, read).toString('latin1')
      const lines = text.split('\n')
      carry = lines.pop() ?? ''
      yield* lines
    }
    if (carry) yield carry
  } finally {
    closeSync(fd)
  }
}

/** The count a gate's run reported, from its log (or from its captured output when the log failed). */
export function countFromLog(runner: TestRunner, log: string, captured?: string): TestCount | undefined {
  if (runner === 'go test') return goTestCount(captured !== undefined ? captured.split('\n') : fileLines(log))
  return parseTestCount(runner, captured ?? readFileTail(log, SUMMARY_BYTES))
}

const tests = (n: number): string => `${n} test${n === 1 ? '' : 's'}`

/**
 * Why a gate whose runner is counted fails on its count, or undefined when it may pass: it reported no count,
 * a failing test (whatever its exit code), ran fewer tests than at the baseline, or skipped more.
 */
export function countProblem(
  command: string,
  runner: TestRunner,
  now: TestCount | undefined,
  start: TestCount | undefined,
  passed = true
): string | undefined {
  const gate = codeCell(command)
  if (!now) return `${gate} reported no test count: ${runner}'s summary is not in its output`
  // A failing test fails the gate whatever the exit code says (the code under test can end its runner
  // with 0 after the summary: pytest runs it in its own process, and atexit can os._exit(0)).
  const failing = passed && now.failed > 0 ? [`${gate} reported ${tests(now.failed)} failing`] : []
  if (!start) return failing.length > 0 ? failing[0] : undefined
  const problems: string[] = [...failing]
  if (now.run < start.run) problems.push(`${gate} ran ${tests(start.run)} at the start and ${now.run} now`)
  if (now.skipped > start.skipped)
    problems.push(`${gate} skipped ${tests(start.skipped)} at the start and ${now.skipped} now`)
  return problems.length > 0 ? problems.join('; ') : undefined
}

/**
 * The gates' runners, recognised once before iteration 1 with package.json's scripts as the start commit
 * holds them (`packageJson`: its text, undefined when it has none).
 */
export function recogniseGates(commands: readonly string[], packageJson: string | undefined): Recognition[] {
  let scripts: Record<string, string> | undefined
  let why: string | undefined
  if (packageJson !== undefined) {
    try {
      const parsed = JSON.parse(packageJson) as { scripts?: unknown }
      if (parsed.scripts && typeof parsed.scripts === 'object')
        scripts = Object.fromEntries(
          Object.entries(parsed.scripts).filter((e): e is [string, string] => typeof e[1] === 'string')
        )
    } catch {
      why = 'package.json at the start is not valid JSON'
    }
  }
  return commands.map(command => {
    const found = recogniseRunner(command, scripts)
    return found.runner === undefined && why && /package\.json/.test(found.why) ? { why } : found
  })
}

/**
 * The count hook of one round of gates: gate i's count from its log, failed when its runner is counted and
 * the count is missing, or smaller than `start[i]` (the baseline's run of the same gate).
 */
export function testCounter(
  commands: readonly string[],
  runners: readonly Recognition[],
  start: readonly CheckRun[] | undefined,
  workTree: string
): NonNullable<CheckContext['countTests']> {
  return (index, log, captured, passed) => {
    const found = runners[index]
    if (found?.runner === undefined) return {}
    const tests = countFromLog(found.runner, log, captured)
    const before = start?.[index]?.run === commands[index] ? start[index].tests : undefined
    const changed = found.scripts ? changedScript(found.scripts, workTree) : undefined
    // A gate that failed anyway needs no "no count" or "failing" line: its own output says why.
    const problem = changed
      ? `${codeCell(commands[index])} ran package.json's script \`${changed}\` as the tree has it, not as the start had it: its count is not believed`
      : !tests && !passed
        ? undefined
        : countProblem(commands[index], found.runner, tests, before, passed)
    return { ...(tests ? { tests } : {}), ...(problem ? { problem } : {}) }
  }
}

/**
 * The first script npm runs for the gate whose text in the tree's package.json differs from the start's (the
 * agent could make `test` or `posttest` print a summary of its own), or undefined.
 */
function changedScript(start: Record<string, string | undefined>, workTree: string): string | undefined {
  let tree: Record<string, unknown> = {}
  try {
    const parsed = JSON.parse(readTreeFile(path.join(workTree, 'package.json')).toString('utf8')) as {
      scripts?: unknown
    }
    if (parsed.scripts && typeof parsed.scripts === 'object') tree = parsed.scripts as Record<string, unknown>
  } catch {
    // Gone or broken: every script the gate needs has changed.
  }
  return Object.keys(start).find(name => tree[name] !== start[name])
}

/** package.json as the start commit holds it (the tree's only where there is no commit, before any agent ran). */
export async function startPackageJson(
  workspace: Workspace,
  workTree: string,
  commit: string | undefined
): Promise<string | undefined> {
  if (commit !== undefined) {
    const file = path.relative(workspace.root, path.join(workTree, 'package.json')).split(path.sep).join('/')
    return workspace.fileAt?.(commit, file)
  }
  try {
    return readTreeFile(path.join(workTree, 'package.json')).toString('utf8')
  } catch {
    // No regular package.json in the tree: no npm script to recognise (the caller says so per gate).
    return undefined
  }
}
