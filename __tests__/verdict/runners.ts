// The real runners for the verdict's tests: a project of the round-two corpus in a temp folder, a move of an
// agent applied to it, canaries planned and written as the clean verification would, and the gate run with its
// report sent to a file outside the project (node --test on Node 20 and 24, jest from node_modules, pytest-3).
import { spawnSync } from 'node:child_process'
import {
  appendFileSync,
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync
} from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { createHash } from 'node:crypto'
import { recogniseRunner } from '../../src/loop/test-count.js'
import { planCanaries, type CanaryPlan, type RandomBytes } from '../../src/verdict/canaries.js'
import { parseReport, type ReportRunner, type RunnerReport } from '../../src/verdict/report.js'
import { NODE_REPORTER, reportInvocation, withRunnerArgs } from '../../src/verdict/report-files.js'
import { PROJECTS, write, type ProjectName } from '../action/verdict-corpus.js'
import { REPO_ROOT, writeFiles, type Files } from '../action/harness.js'

export const NODE_24 = path.join(REPO_ROOT, '.tool-cache', 'node24', 'bin', 'node')

/** Random bytes from a seed: the same canaries each run, so a failure can be read again. */
export function seeded(seed: string): RandomBytes {
  let counter = 0
  return n => {
    const out = Buffer.alloc(n)
    for (let at = 0; at < n; at += 32)
      createHash('sha256').update(`${seed}:${counter++}`).digest().copy(out, at)
    return out
  }
}

const folders: string[] = []
export function cleanUp(): void {
  for (const dir of folders.splice(0)) rmSync(dir, { recursive: true, force: true })
}
function folder(prefix: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix))
  folders.push(dir)
  return dir
}

/** An agent's move (the corpus's JavaScript, `fs` in scope) made in `dir`. */
export function applyMove(dir: string, move: string): void {
  const cwd = process.cwd()
  process.chdir(dir)
  try {
    const dirname = (f: string): string => (f.includes('/') ? f.slice(0, f.lastIndexOf('/')) : '.')
    new Function('fs', 'require_dirname', move)(
      { writeFileSync, readFileSync, mkdirSync, chmodSync, appendFileSync, rmSync, existsSync },
      dirname
    )
  } finally {
    process.chdir(cwd)
  }
}

const RUNNERS: Partial<Record<ProjectName, ReportRunner>> = {
  'node --test': 'node --test',
  jest: 'jest',
  pytest: 'pytest'
}
/** The test files of each project's start commit: what protection keeps, what gets a canary. */
const TEST_FILES: Partial<Record<ProjectName, string[]>> = {
  'node --test': ['calc.test.js', 'mul.test.js'],
  jest: ['calc.test.js', 'mul.test.js'],
  pytest: ['tests/test_calc.py', 'tests/test_mul.py']
}

export interface GateRun {
  dir: string
  runner: ReportRunner
  plan?: CanaryPlan
  exitCode: number | null
  output: string
  report: RunnerReport
  protectedTests: string[]
}

/**
 * The project's gate, run once on `project` after `moves` (none: the start), with canaries when `canaries`
 * holds a seed; the report read from the file the runner wrote outside the project.
 */
export function runGate(
  project: ProjectName,
  options: {
    moves?: string[]
    canaries?: string
    node?: string
    start?: Files
    gate?: string
    keyless?: boolean
  } = {}
): GateRun {
  const runner = RUNNERS[project]
  if (!runner) throw new Error(`${project} has no runner the verdict reads`)
  const dir = folder('ralph-verdict-project-')
  writeFiles(dir, { ...PROJECTS[project].files, ...options.start })
  const protectedTests = TEST_FILES[project] ?? []
  const texts = protectedTests.map(p => ({ path: p, text: readFileSync(path.join(dir, p), 'utf8') }))
  for (const move of options.moves ?? []) applyMove(dir, move)
  let plan: CanaryPlan | undefined
  if (options.canaries !== undefined) {
    plan = planCanaries(runner, texts, seeded(options.canaries))
    // Keyless: the action appends the new file's pair to the first target (clean/judges.ts), so no file is left
    // that holds no test without the key (jest fails such a file).
    if (!options.keyless) for (const file of plan.files) applyMove(dir, write(file.path, file.content))
    for (const a of plan.appended) appendFileSync(path.join(dir, a.path), a.text)
  }
  // The report's folder: outside the project, as the action's would be.
  const out = folder('ralph-verdict-report-')
  const destination = path.join(out, runner === 'pytest' ? 'report.xml' : 'report.json')
  const reporter = path.join(out, 'reporter.mjs')
  writeFileSync(reporter, NODE_REPORTER)
  const jobEnv: Record<string, string | undefined> = { ...process.env, NODE_OPTIONS: undefined }
  delete jobEnv.NODE_OPTIONS
  const gate = options.gate ?? PROJECTS[project].gate
  // node's own arguments as the gate gives them (here: straight on its command line).
  const nodeArgs = gate.startsWith('node ') ? gate.split(/\s+/).slice(1) : []
  const invocation = reportInvocation(runner, destination, { reporter, jobEnv, nodeArgs })
  const packageJson = path.join(dir, 'package.json')
  const scripts = existsSync(packageJson)
    ? (JSON.parse(readFileSync(packageJson, 'utf8')) as { scripts?: Record<string, string> }).scripts
    : undefined
  const rewritten = withRunnerArgs(
    gate,
    invocation,
    destination,
    step => recogniseRunner(step, scripts).runner as ReportRunner | undefined,
    scripts
  )
  if ('why' in rewritten) throw new Error(`the gate cannot write a report: ${rewritten.why}`)
  const node = options.node ?? process.execPath
  const result = spawnSync('bash', ['-c', rewritten.command], {
    cwd: dir,
    env: {
      ...jobEnv,
      ...invocation.env,
      ...(options.keyless ? {} : plan?.env),
      PATH: `${path.dirname(node)}:${process.env.PATH}`
    } as NodeJS.ProcessEnv,
    encoding: 'utf8',
    timeout: 120_000
  })
  const text = existsSync(destination) ? readFileSync(destination, 'utf8') : ''
  return {
    dir,
    runner,
    ...(plan ? { plan } : {}),
    exitCode: result.status,
    output: `${result.stdout}${result.stderr}`,
    report: parseReport(runner, text, dir),
    protectedTests
  }
}
