// The clean verification's judges the code under test cannot reach (#37): each gate whose runner the verdict
// reads writes its machine-readable report to a file outside the tree, in a folder only the action's user can
// write (0711: the runner may write the one file it is told, no one may list, add or swap one); its protected
// test files get canaries appended, with names and messages drawn at random, only here. The gate is then judged
// by that report: the canaries exactly as planned, no test failing, no file that failed to run, each protected
// test file running tests by name, and no fewer tests than the baseline counted. Pure decisions are verdict/'s.
import { randomBytes } from 'node:crypto'
import { appendFileSync, chmodSync, lstatSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { shlexQuote, shlexSplit, type RalphCheck } from '../../ralph/index.js'
import { onDisk } from '../../text/tree-path.js'
import {
  CANARY_FAILURE,
  NODE_REPORTER,
  countProblems,
  judgeCanaries,
  parseReport,
  planCanaries,
  reportInvocation,
  withRunnerArgs,
  type CanaryPlan,
  type RandomBytes,
  type ReportRunner
} from '../../verdict/index.js'
import { recogniseRunner, type Recognition } from '../test-count.js'
import type { CheckRun, TestCount } from '../types.js'

const REPORTED: ReadonlySet<string> = new Set<ReportRunner>(['node --test', 'jest', 'pytest', 'go test'])

/** Test files each runner runs by its own conventions (a helper beside them is not one: it gets no canary). */
const TEST_NAME: Record<ReportRunner, RegExp> = {
  'node --test': /(^|\/)([^/]*[.\-_])?test\.[cm]?js$|(^|\/)test-[^/]*\.[cm]?js$/,
  jest: /\.(test|spec)\.[cm]?[jt]sx?$|(^|\/)__tests__\/.*\.[cm]?[jt]sx?$/,
  pytest: /(^|\/)test_[^/]*\.py$|_test\.py$/,
  'go test': /_test\.go$/
}

interface Judged {
  index: number
  runner: ReportRunner
  report: string
  plan?: CanaryPlan
  /** The protected test files judged by name (relative to the project). */
  targets: string[]
  /** Each target's bytes once its canaries were appended: the only change the gates' check may forgive. */
  expected: Map<string, Buffer>
}

export interface CleanJudges {
  /** The gates as they run here: each judged one with its report's invocation. */
  checks: RalphCheck[]
  /** The runners as the log counts them: judged gates are counted by their report instead. */
  runners?: readonly Recognition[]
  /** Why a gate's report could not be asked for (the gate runs and is counted as before). */
  notes: string[]
  /** Whether a protected path (relative to the project) the gates' check found changed only got its canaries. */
  canaryOnly: (file: string) => boolean
  /** Judges the runs (each judged one passes or fails by its report); answers the failures to add. */
  judge: (runs: CheckRun[]) => { name: string; output: string }[]
}

/**
 * The protected regular files of the start commit (paths relative to the repository's top) that lie in the
 * project at `prefix` (relative to the top, '' for the top), relative to the project.
 */
export function testsOfProject(
  paths: ReadonlyMap<string, { mode: string }> | undefined,
  prefix: string
): string[] {
  const dir = prefix.split(path.sep).join('/')
  return [...(paths ?? [])].flatMap(([file, entry]) => {
    if (entry.mode === '120000') return []
    if (dir === '') return [file]
    return file.startsWith(`${dir}/`) ? [file.slice(dir.length + 1)] : []
  })
}

/** The words of `command` and of the scripts it goes through (for the runner's own flags and paths). */
function wordsOf(command: string, scripts: Record<string, string | undefined> = {}): string[] {
  return [command, ...Object.values(scripts)].flatMap(text => {
    if (text === undefined) return []
    try {
      return shlexSplit(text)
    } catch {
      return text.split(/\s+/)
    }
  })
}

/** The targets among `tests`: the runner's kind, and under the paths its command names when it names any. */
function targetsOf(
  runner: ReportRunner,
  tests: readonly string[],
  words: readonly string[],
  cwd: string
): string[] {
  const named = words
    .filter(w => !w.startsWith('-') && !w.includes('='))
    // A folder named with its slash (`test/`) names the files under it as well.
    .map(w => path.posix.normalize(w.replace(/^\.\//, '')).replace(/(?<=.)\/+$/, ''))
    .filter(w => !path.posix.isAbsolute(w) && !w.startsWith('..'))
    // A folder, or a test file of the runner's kind: a flag's value (`--import ./setup.mjs`) names neither.
    .filter(w => w === '.' || TEST_NAME[runner].test(w) || isFolder(path.join(cwd, w)))
  return tests.filter(
    file =>
      TEST_NAME[runner].test(file) &&
      (named.length === 0 || named.some(n => n === '.' || file === n || file.startsWith(`${n}/`)))
  )
}

function isFolder(file: string): boolean {
  try {
    return lstatSync(file).isDirectory()
  } catch {
    return false
  }
}

/** The plan's new file's two canaries appended to the first target instead (it runs whatever the gate names). */
function inlinePair(plan: CanaryPlan, first: string): CanaryPlan {
  const file = plan.files[0]
  if (!file || plan.runner === 'go test') return plan
  return {
    ...plan,
    files: [],
    appended: [...plan.appended, { path: first, text: `\n\n${file.content}` }],
    expected: plan.expected.map(c => (c.file === file.path ? { ...c, file: first } : c))
  }
}

/** `export NAME="${NAME:+$NAME }"'value'`: the report's variables after the job's own. */
const exportLine = (name: string, value: string): string =>
  `export ${name}="\${${name}:+$${name} }"${shlexQuote(value)}`

/**
 * The judges of one clean verification in `cwd` (the project in the checkout, still the action's own):
 * `protectedTests` relative to the project, `folder` the verification's private folder outside the tree.
 */
export function prepareJudges(input: {
  checks: readonly RalphCheck[]
  runners: readonly Recognition[] | undefined
  baseline: readonly CheckRun[] | undefined
  protectedTests: readonly string[]
  cwd: string
  folder: string
  random?: RandomBytes
}): CleanJudges {
  const { cwd, runners } = input
  const random = input.random ?? randomBytes
  const reports = path.join(input.folder, 'reports')
  const judged: Judged[] = []
  const notes: string[] = []
  const checks = input.checks.map((check, index): RalphCheck => {
    const found = runners?.[index]
    if (found?.runner === undefined || !REPORTED.has(found.runner)) return check
    const runner = found.runner
    const reported = runner as ReportRunner
    mkdirSync(reports, { recursive: true, mode: 0o711 })
    chmodSync(reports, 0o711)
    const name = random(12).toString('hex')
    const report = path.join(reports, `${name}.report`)
    // Made here, writable by the runner's user: the folder lets no one else create or replace it.
    writeFileSync(report, '')
    chmodSync(report, 0o666)
    const reporter = path.join(reports, `${name}.reporter.mjs`)
    if (reported === 'node --test') writeFileSync(reporter, NODE_REPORTER, { mode: 0o644 })
    const words = wordsOf(check.run, found.scripts)
    const invocation = reportInvocation(reported, report, { reporter, nodeArgs: words, jobEnv: {} })
    const scripts = Object.fromEntries(
      Object.entries(found.scripts ?? {}).filter((e): e is [string, string] => e[1] !== undefined)
    )
    const command = withRunnerArgs(
      check.run,
      invocation,
      report,
      step => {
        const r = recogniseRunner(step, scripts).runner
        return r !== undefined && REPORTED.has(r) ? (r as ReportRunner) : undefined
      },
      scripts
    )
    if ('why' in command) {
      notes.push(`the gate \`${check.name}\` is judged by its output only: ${command.why}`)
      return check
    }
    const targets = targetsOf(reported, input.protectedTests, words, cwd)
    const texts = targets.map(file => ({
      path: file,
      text: readFileSync(onDisk(cwd, file)).toString('utf8')
    }))
    const plan =
      targets.length > 0 ? inlinePair(planCanaries(reported, texts, random), targets[0]) : undefined
    const expected = new Map<string, Buffer>()
    for (const a of plan?.appended ?? []) {
      appendFileSync(onDisk(cwd, a.path), a.text)
      expected.set(a.path, readFileSync(onDisk(cwd, a.path)))
    }
    for (const f of plan?.files ?? []) writeFileSync(onDisk(cwd, f.path), f.content, { flag: 'wx' })
    judged.push({ index, runner: reported, report, targets, expected, ...(plan ? { plan } : {}) })
    const env = Object.entries(invocation.env).map(([k, v]) => exportLine(k, v))
    // The canaries' key: only this gate's runner runs them (another gate over the same files judges without).
    for (const [k, v] of Object.entries(plan?.env ?? {})) env.push(`export ${k}=${shlexQuote(v)}`)
    return { ...check, run: [...env, command.command].join('\n') }
  })
  const byIndex = new Map(judged.map(j => [j.index, j]))
  return {
    checks,
    ...(runners
      ? {
          runners: runners.map((r, i) =>
            byIndex.get(i)?.plan ? { why: 'counted by the report it wrote outside the tree' } : r
          )
        }
      : {}),
    notes,
    canaryOnly: file =>
      judged.some(j => {
        const want = j.expected.get(file)
        if (!want) return false
        try {
          return readFileSync(onDisk(cwd, file)).equals(want)
        } catch {
          return false
        }
      }),
    judge: runs => {
      const failures: { name: string; output: string }[] = []
      for (const j of judged) {
        const run = runs[j.index]
        if (!run || run.killedBy || run.timedOut) continue
        const { problems, tests } = judgeRun(
          j,
          run,
          input.baseline?.[j.index],
          input.checks[j.index].run,
          cwd
        )
        // The count the record and the pull request show: the report's, without the canaries.
        if (tests) run.tests = tests
        if (j.plan) run.passed = problems.length === 0
        else if (problems.length > 0) run.passed = false
        if (problems.length === 0) continue
        const text = problems.join('\n')
        run.tail = `${run.tail}\n${text}\n`.slice(-2000)
        failures.push({ name: run.name, output: text })
      }
      return failures
    }
  }
}

/** Why the gate's report fails it (none: it passes). */
function judgeRun(
  j: Judged,
  run: CheckRun,
  start: CheckRun | undefined,
  command: string,
  cwd: string
): { problems: string[]; tests?: TestCount } {
  let text: string
  try {
    text = readFileSync(j.report, 'utf8')
  } catch {
    text = ''
  }
  let report
  try {
    report = parseReport(j.runner, text, cwd)
  } catch (error) {
    return {
      problems: [
        `${j.runner} wrote no report the action could read (${(error as Error).message}): the tests were not run as the gate says`
      ]
    }
  }
  if (j.plan) {
    const verdict = judgeCanaries(j.plan, report, run.exitCode)
    if (!verdict.ok) return { problems: [CANARY_FAILURE, ...verdict.problems.map(p => `  ${p}`)] }
    report = verdict.report
  }
  const problems = countProblems(report, j.targets, undefined)
  const now = report.tests.filter(t => t.outcome !== 'skipped').length
  const skipped = report.tests.length - now
  const before: TestCount | undefined = start?.run === command ? start.tests : undefined
  if (before && now < before.run)
    problems.push(`${j.runner} ran ${before.run} tests at the start and ${now} now, by the report it wrote`)
  if (before && skipped > before.skipped)
    problems.push(
      `${j.runner} skipped ${before.skipped} tests at the start and ${skipped} now, by the report it wrote`
    )
  const failed = report.tests.filter(t => t.outcome === 'failed').length
  return { problems, tests: { run: now, passed: now - failed, failed, skipped } }
}
