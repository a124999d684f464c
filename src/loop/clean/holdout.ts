// Held-out gates (#37): gates whose files the agent never sees. Their files wait in a folder only the action's
// user can read (`holdout-path`: outside the work tree, 0700, filled by an earlier workflow step), and go into
// the clean checkout only after the other gates passed there, while it is the action's own again (every process
// of the agent's user killed). They run once, as the agent's user, judged like the other gates (report file,
// canaries in each held-out test file), and a failure ends the run: no agent runs after them, so none can read
// what their code under test may have copied, nor use them as a yes/no oracle. What the run tells of a failure
// is `holdout-feedback`'s: by default only that a held-out gate failed (no name, no output, no log kept).
import { lstatSync, mkdirSync, readFileSync, readdirSync, realpathSync, unlinkSync } from 'node:fs'
import path from 'node:path'
import { writeNew } from '../../git/write-tree.js'
import { runChecks } from '../checks.js'
import type { LoopEnvironment } from '../environment.js'
import { gateContext } from '../gates.js'
import { recogniseGates } from '../test-count.js'
import type { HoldoutRecord, HoldoutSetting, VerifyPorts } from '../types.js'
import { prepareJudges } from './judges.js'
import { HOLDOUT_FAILED } from './holdout-text.js'

/**
 * Why `dir` cannot hold held-out gates' files (undefined: it can): an absolute folder, not a link, owned by
 * `owner` (the action's user) and closed to everyone else, outside each of `outside` (the work tree), under
 * folders no one else may rename it out of.
 */
export function holdoutFolderProblem(
  dir: string,
  owner: number,
  outside: readonly string[]
): string | undefined {
  const fix =
    'give holdout-path a folder the action’s user made, e.g. mkdir -m 700 "$RUNNER_TEMP/holdout", outside the workspace'
  if (!path.isAbsolute(dir)) return `holdout-path must be an absolute path, got ${dir}: ${fix}`
  let stat
  try {
    stat = lstatSync(dir)
  } catch {
    return `holdout-path ${dir} does not exist: ${fix}`
  }
  if (!stat.isDirectory()) return `holdout-path ${dir} is not a folder (a link is not followed): ${fix}`
  if (stat.uid !== owner)
    return `holdout-path ${dir} belongs to uid ${stat.uid}, not to the action's user (uid ${owner}): ${fix}`
  if ((stat.mode & 0o077) !== 0)
    return `holdout-path ${dir} has mode ${(stat.mode & 0o777).toString(8)}: other users may open it; chmod 700 it`
  const real = realpathSync(dir)
  for (const place of outside) {
    if (place === '') continue
    let top: string
    try {
      top = realpathSync(place)
    } catch {
      // A place that does not exist holds nothing: the folder cannot be inside it.
      continue
    }
    const rel = path.relative(top, real)
    if (rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel)))
      return `holdout-path ${dir} is inside ${place}, where the agent works: ${fix}`
  }
  // A parent another user may write (and not sticky) lets that user move the folder away and put its own there.
  for (let parent = path.dirname(real); ; parent = path.dirname(parent)) {
    const p = lstatSync(parent)
    const shared = (p.mode & 0o022) !== 0 && (p.mode & 0o1000) === 0
    if (shared && p.uid !== owner)
      return `holdout-path ${dir} lies under ${parent}, which other users may write: ${fix}`
    if (parent === path.dirname(parent)) break
  }
  return undefined
}

/** The held-out files laid into a checkout's project (relative to it), with their bytes; or why they were not. */
export type Laid = { files: Map<string, Buffer> } | { problems: string[] }

/**
 * Copies the regular files and folders of `from` into `project` (a clean checkout, the action's own: nothing of
 * the agent's runs there now). A delivered file where a held-out file goes is replaced; a delivered link or file
 * where a held-out folder goes, or anything but a regular file where a held-out file goes, is a problem: nothing
 * is ever written through a link the agent committed.
 */
export function layHoldout(from: string, project: string): Laid {
  const files = new Map<string, Buffer>()
  const problems: string[] = []
  const walk = (rel: string): void => {
    for (const entry of readdirSync(path.join(from, rel), { withFileTypes: true })) {
      const name = rel === '' ? entry.name : `${rel}/${entry.name}`
      const source = path.join(from, name)
      const target = path.join(project, name)
      const there = lstatOrUndefined(target)
      if (entry.isDirectory()) {
        if (there === undefined) mkdirSync(target, { mode: 0o755 })
        else if (!there.isDirectory()) {
          problems.push(
            `the delivered commit has ${name}, not a folder, where the held-out folder ${name} goes`
          )
          continue
        }
        walk(name)
      } else if (entry.isFile()) {
        if (there !== undefined && !there.isFile()) {
          problems.push(`the delivered commit has ${name}, not a regular file, where a held-out file goes`)
          continue
        }
        if (there !== undefined) unlinkSync(target)
        const bytes = readFileSync(source)
        const mode = lstatSync(source).mode & 0o111 ? 0o755 : 0o644
        writeNew(target, bytes, mode)
        files.set(name, bytes)
      } else
        problems.push(
          `holdout-path holds ${name}, neither a regular file nor a folder: held-out gates take only those`
        )
    }
  }
  walk('')
  return problems.length > 0 ? { problems } : { files }
}

/** A file's identity and last change (inode, ctime: no user can set it back), or '' when it is gone. */
function stamp(file: string): string {
  const stat = lstatSync(file, { bigint: true, throwIfNoEntry: false })
  return stat ? `${stat.dev}:${stat.ino}:${stat.ctimeNs}` : ''
}

function lstatOrUndefined(file: string): ReturnType<typeof lstatSync> | undefined {
  try {
    return lstatSync(file)
  } catch {
    // Nothing there yet: the held-out file or folder is made.
    return undefined
  }
}

/** Gives a lent checkout back (every process of its user killed first), saying what could not be. */
export async function takeBack(
  giveBack: (() => Promise<string[]>) | undefined,
  env: Pick<LoopEnvironment, 'emit'>
): Promise<void> {
  const problems = (await giveBack?.().catch((error: Error) => [error.message])) ?? []
  for (const problem of problems) env.emit({ type: 'warning', message: `the clean checkout: ${problem}` })
}

/** Where the clean verification stands when its other gates passed. */
export interface HoldoutPlace {
  /** The clean checkout (the action's own again) and the project in it. */
  checkout: string
  cwd: string
  /** The verification's private folder (0700, removed after): reports, and the logs `none` keeps from the record. */
  folder: string
  /** The record's folder for this verification: the logs `full` keeps. */
  dir: string
  /** The start commit's package.json (its scripts name the runner), as the other gates are recognised with. */
  packageJson: string | undefined
  lend: VerifyPorts['lend']
  fetchHoldout: VerifyPorts['fetchHoldout']
}

/** The folder the held-out files are laid from: `holdout-path`, or the ref fetched now into the private folder. */
async function heldOutFiles(
  setting: HoldoutSetting,
  place: HoldoutPlace
): Promise<{ from: string } | { problem: string }> {
  if (setting.ref === undefined) return { from: setting.path ?? '' }
  if (!place.fetchHoldout) return { problem: `holdout-ref ${setting.ref}: nothing here can fetch it` }
  const into = path.join(place.folder, 'holdout-ref')
  mkdirSync(into, { mode: 0o700 })
  const fetched = await place.fetchHoldout(setting.ref, into)
  return 'problem' in fetched ? fetched : { from: fetched.dir }
}

/**
 * The held-out gates on the clean checkout at `place`: their files laid, judged as the other gates, run as the
 * agent's user (lent, then given back: every process of that user killed). Answers their record and failures.
 */
export async function runHoldout(
  env: LoopEnvironment,
  setting: HoldoutSetting,
  place: HoldoutPlace
): Promise<{ record: HoldoutRecord; failures: { name: string; output: string }[]; interrupted: boolean }> {
  const full = setting.feedback === 'full'
  const fail = (lines: string[]) => {
    // The workflow's settings or the delivered commit's paths: for the job's log, not the held-out gates' content.
    for (const message of lines) env.emit({ type: 'warning', message })
    const record: HoldoutRecord = { passed: false, feedback: setting.feedback }
    return { record, failures: [{ name: 'held-out gates', output: lines.join('\n') }], interrupted: false }
  }
  // Said in full: these are the workflow's settings, not the held-out gates' content.
  const files = await heldOutFiles(setting, place)
  if ('problem' in files) return fail([files.problem])
  const problem = holdoutFolderProblem(files.from, process.getuid?.() ?? -1, [
    env.workTree,
    env.workspace.root
  ])
  if (problem) return fail([problem])
  const laid = layHoldout(files.from, place.cwd)
  if ('problems' in laid) return fail(laid.problems)
  const judges = prepareJudges({
    checks: setting.checks,
    runners: recogniseGates(
      setting.checks.map(check => check.run),
      place.packageJson
    ),
    baseline: undefined,
    protectedTests: [...laid.files.keys()],
    cwd: place.cwd,
    folder: place.folder
  })
  if (full) for (const message of judges.notes) env.emit({ type: 'warning', message })
  const logs = full ? place.dir : path.join(place.folder, 'holdout')
  const giveBack = await place.lend?.(place.checkout)
  // Stamped once lent: a write put back before the run's end (bytes as laid) still moves the file's ctime.
  const stamps = new Map([...laid.files.keys()].map(file => [file, stamp(path.join(place.cwd, file))]))
  let outcome
  let touched: string[]
  try {
    env.onPhase('check')
    outcome = await runChecks(judges.checks, { ...gateContext(env, {}, place.cwd, logs), folder: 'holdout' })
    touched = [...stamps].filter(([file, was]) => stamp(path.join(place.cwd, file)) !== was).map(([f]) => f)
  } finally {
    env.onPhase(undefined)
    await takeBack(giveBack, env)
  }
  const judged = judges.judge(outcome.runs)
  // The code under test could read them, and as their owner rewrite them: a held-out file must be as laid.
  const changed = [...laid.files].filter(([file, bytes]) => {
    const now = lstatOrUndefined(path.join(place.cwd, file))
    if (!now?.isFile() || touched.includes(file)) return true
    return !readFileSync(path.join(place.cwd, file)).equals(bytes) && !judges.canaryOnly(file)
  })
  const runs = outcome.runs.map((run, i) => ({ ...run, run: setting.checks[i].run }))
  const passed =
    !outcome.interrupted && runs.every(run => run.passed) && judged.length === 0 && changed.length === 0
  const record: HoldoutRecord = {
    passed,
    feedback: setting.feedback,
    ...(passed || full ? { gates: setting.checks.map(check => check.name) } : {}),
    ...(full ? { runs } : {})
  }
  if (passed || outcome.interrupted) return { record, failures: [], interrupted: outcome.interrupted }
  const output = full
    ? [
        ...outcome.failures.map(f => `${f.name}\n${f.output}`),
        ...judged.map(f => `${f.name}\n${f.output}`),
        ...(changed.length > 0
          ? [`held-out files changed while they ran: ${changed.map(([f]) => f).join(', ')}`]
          : [])
      ].join('\n\n')
    : HOLDOUT_FAILED
  return { record, failures: [{ name: 'held-out gates', output }], interrupted: false }
}
