// One iteration: commands → prompt (RALPH.md re-read) → agent → work tree (hash, commit) → checks →
// completion. Every step writes its logs as it goes; the iteration's record is what it returns.
import path from 'node:path'
import type { AgentCaps, AgentPreset } from '../agents/types.js'
import type { Workspace, WorkspaceDiff } from '../git/workspace.js'
import type { RunOptions, RunResult } from '../proc/types.js'
import { pinTreeFile, RalphError, readTreeFile, TreeFileError, type Ralph } from '../ralph/index.js'
import { agentLogFile, runAgent } from './agent.js'
import { runChecks, type CheckContext, type ChecksOutcome } from './checks.js'
import { runCommands } from './commands.js'
import { detectCompletion } from './completion.js'
import type { CostMeter } from '../agents/cost-meter.js'
import { failureFingerprint } from './fingerprint.js'
import {
  changedDuringGates,
  findChanges,
  ProtectedPathError,
  restore,
  revertsLine,
  type Protection
} from './protect/index.js'
import { cleanFailures, verifyCommit } from './verify.js'
import type { LoopGuard } from './guard.js'
import { testCounter, type Recognition } from './test-count.js'
import {
  buildPrompt,
  loopPlaceholdersUsed,
  loopStatusSection,
  loopValues,
  PROGRESS_ENTRIES,
  type LoopContext
} from './prompt.js'
import type { RunRecord } from './record.js'
import type {
  BaselineRecord,
  CheckRun,
  Clock,
  IterationRecord,
  IterationVerdict,
  LoopConfig,
  LoopEvent,
  VerifyMode,
  VerifyPorts
} from './types.js'

/** What the loop runs with: its settings and services, the same for every iteration. */
export interface LoopEnvironment {
  readonly config: LoopConfig
  readonly ralph: Ralph
  readonly workTree: string
  readonly workspace: Workspace
  /** RALPH.md and the guardrails file, pinned before any agent ran. */
  readonly ralphFiles: RalphFiles
  readonly isRepo: boolean
  readonly preset: AgentPreset
  readonly guard: LoopGuard
  readonly meter: CostMeter
  readonly record: RunRecord
  readonly clock: Clock
  readonly emit: (event: LoopEvent) => void
  readonly runProcess: (options: RunOptions) => Promise<RunResult>
  readonly agentEnvironment?: (env: NodeJS.ProcessEnv) => NodeJS.ProcessEnv
  /** The front-end's output is full: the agent's output waits (LoopPorts.outputRoom). */
  readonly outputRoom?: () => Promise<void> | undefined
  readonly killGraceMs: number
  /** Told what is running now, so an enforced stop can say what it killed. */
  readonly onPhase: (phase: LoopPhase | undefined) => void
  /** Protected paths, put back from the start commit after each agent run (before its commit and gates). */
  readonly protection?: Protection
  /** How a passing tree is verified (verify.ts); absent: nothing to verify (no gates, no commits). */
  readonly verify?: VerifyMode
  readonly verifyPorts?: VerifyPorts
}

export type LoopPhase = 'command' | 'agent' | 'check'

/** What one iteration leaves the next: each iteration returns it, and the loop hands it to the next one. */
export interface IterationMemory {
  /** The work tree's hash when the loop started (git only). */
  readonly startTree?: string
  /** The commit the loop started from: the base protected paths come from. */
  readonly startCommit?: string
  /** The gates before iteration 1 (with gates and the baseline on). */
  readonly baseline?: BaselineRecord
  /** Each gate's test runner, recognised before iteration 1: its count may not shrink from the baseline's. */
  readonly testRunners?: readonly Recognition[]
  /** The last PROGRESS_ENTRIES iterations (what a prompt shows): a long loop keeps no more of them here. */
  readonly history: readonly IterationRecord[]
  readonly previousTree?: string
  readonly previousChecks?: CheckRun[]
  readonly lastDiff?: WorkspaceDiff
  /** Whether the tree is hashed after each agent run (gates, commits or a ralph that shows the diff). */
  readonly trackTree: boolean
}

/** The history a next prompt needs: the last PROGRESS_ENTRIES of `earlier` and `records`. */
export function recentHistory(
  earlier: readonly IterationRecord[],
  ...records: IterationRecord[]
): readonly IterationRecord[] {
  return [...earlier.slice(-PROGRESS_ENTRIES), ...records].slice(-PROGRESS_ENTRIES)
}

export interface IterationOutcome {
  record: IterationRecord
  /** What the next iteration starts from. */
  memory: IterationMemory
  /** Something could not be run at all: the loop stops (agent_error) with this one-line reason. */
  crash?: string
  /** The run had to stop mid-iteration (the guard fired). */
  interrupted: boolean
  /** The loop's goal was reached. */
  success: boolean
}

const iso = (ms: number): string => new Date(ms).toISOString()

/**
 * The real paths of RALPH.md and the guardrails file, taken before any agent ran: every later read opens
 * exactly those files, never a link or a FIFO the agent put in their place.
 */
export interface RalphFiles {
  ralph: string
  guardrails?: string
}

export function pinRalphFiles(ralph: Pick<Ralph, 'file' | 'guardrails'>, workTree: string): RalphFiles {
  const pin = (what: string, file: string): string => {
    try {
      return pinTreeFile(file, workTree)
    } catch (error) {
      if (!(error instanceof TreeFileError)) throw error
      throw new RalphError(`${what} ${error.message}. Make it a regular file of the project.`)
    }
  }
  return {
    ralph: pin('RALPH.md:', ralph.file),
    ...(ralph.guardrails
      ? { guardrails: pin('The guardrails file:', path.resolve(workTree, ralph.guardrails)) }
      : {})
  }
}

/** What assembling a prompt reads: the loop's settings and what earlier iterations left. */
export type PromptState = Pick<LoopEnvironment, 'config' | 'ralph' | 'workTree'> &
  Partial<Pick<LoopEnvironment, 'ralphFiles'>> &
  Pick<IterationMemory, 'baseline' | 'history' | 'previousChecks' | 'lastDiff'>

function readGuardrails(env: PromptState, files: RalphFiles): LoopContext['guardrails'] {
  const file = env.ralph.guardrails
  if (!file || !files.guardrails) return undefined
  let content = ''
  try {
    content = readTreeFile(files.guardrails).toString('utf8')
  } catch (error) {
    // Not written yet: the agent is asked to start it. Anything else (a link, a FIFO) is refused.
    if (!(error instanceof TreeFileError) || error.code !== 'ENOENT')
      throw new RalphError(
        `The guardrails file ${file} was not read: ${(error as Error).message}. Make it a regular file of the project.`
      )
  }
  return { file, content }
}

/** RALPH.md as the reference reads it every iteration: strict UTF-8 (a bad byte crashes the iteration). */
function readRalphText(file: string, pinned: string): string {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(readTreeFile(pinned))
  } catch (error) {
    throw new RalphError(`RALPH.md could not be read (${file}): ${(error as Error).message}`)
  }
}

/**
 * The prompt for this iteration, and whether it shows the agent the diff (then the tree must be tracked).
 * Throws RalphError when RALPH.md can no longer be read or parsed.
 */
export function assemble(
  env: PromptState,
  iteration: number,
  commandOutputs: Record<string, string>
): { prompt: string; showsDiff: boolean } {
  const { config, ralph } = env
  // Without pins (a preview, before any agent ran) the files are pinned now.
  const files = env.ralphFiles ?? pinRalphFiles(ralph, env.workTree)
  const ralphText = config.promptText !== undefined ? '' : readRalphText(ralph.file, files.ralph)
  const inputs: Parameters<typeof buildPrompt>[0] = {
    ralphText,
    ralphFile: ralph.file,
    body: config.promptText,
    name: ralph.name,
    iteration,
    maxIterations: config.maxIterations,
    commandOutputs,
    userArgs: config.userArgs,
    credit: ralph.credit,
    ...(config.promptAppendix ? { appendix: config.promptAppendix } : {})
  }
  // What the action put back after the last agent run: the agent is told, once, in its next prompt.
  const reverts = env.history.at(-1)?.reverts
  if (reverts && reverts.length > 0)
    inputs.appendix = `${inputs.appendix ?? ''}${revertNote(revertsLine(reverts))}`
  const used = loopPlaceholdersUsed(inputs)
  const gated = config.checks.length > 0
  const ctx: LoopContext = {
    gates: config.checks,
    completionTag: config.completionTag,
    previousChecks: env.previousChecks,
    ...(env.baseline ? { baseline: env.baseline } : {}),
    diff: env.lastDiff,
    history: env.history,
    guardrails: readGuardrails(env, files)
  }
  const values = loopValues(ctx)
  const section =
    gated && used.size === 0 ? loopStatusSection(values, ctx, iteration, config.maxIterations) : ''
  return { prompt: buildPrompt(inputs, { values, section }), showsDiff: used.has('diff') }
}

/** The prompt's note on protected paths put back after the last agent run. */
export function revertNote(paths: string): string {
  return (
    `\n\nThe action put back protected paths after your last run, before the checks judged it: ${paths}. ` +
    `The tests that existed, the check scripts, the test runners' configuration, the ralph's folder and .github/ ` +
    `judge the work and are never delivered changed. Fix the code under test instead; you may add new tests.`
  )
}

function verdictOf(
  record: IterationRecord,
  gated: boolean,
  tagRequired: boolean
): { verdict: IterationVerdict; success: boolean } {
  const agent = record.agent
  const agentVerdict: IterationVerdict | undefined = agent?.timedOut
    ? 'agent_timed_out'
    : agent && !agent.success
      ? 'agent_failed'
      : undefined
  if (gated) {
    const allPass = record.checks.every(check => check.passed)
    if (allPass && (!tagRequired || record.completion.given)) return { verdict: 'passed', success: true }
    return { verdict: agentVerdict ?? (allPass ? 'checks_passed_no_tag' : 'checks_failed'), success: false }
  }
  if (tagRequired && record.completion.given) return { verdict: 'completed', success: true }
  return { verdict: agentVerdict ?? 'ran', success: false }
}

async function commitIteration(
  env: LoopEnvironment,
  iteration: number,
  tree: string | undefined
): Promise<IterationRecord['commit']> {
  try {
    const sha = await env.workspace.commitAll(
      `ralph ${env.ralph.name}: iteration ${iteration}`,
      tree,
      env.guard.signal
    )
    return sha ? { sha } : {}
  } catch (error) {
    return { error: (error as Error).message }
  }
}

/** What the agent may spend of the loop's dollar budget in this run, and its turn cap. */
export function agentCaps(config: LoopConfig, meter: CostMeter): AgentCaps {
  const caps: AgentCaps = {}
  if (config.maxCostUsd !== undefined) caps.remainingUsd = Math.max(0, config.maxCostUsd - meter.spentUsd())
  if (config.agentMaxTurns !== undefined) caps.maxTurns = config.agentMaxTurns
  return caps
}

/**
 * The gates in the work tree as it is, with the run's signal: a budget or a cancel kills them. A gate whose
 * runner is counted also fails on a count missing or smaller than the baseline's.
 */
function runGates(
  env: LoopEnvironment,
  memory: IterationMemory,
  iteration: number,
  dir: string
): Promise<ChecksOutcome> {
  env.onPhase('check')
  return runChecks(env.config.checks, {
    ...gateContext(env, memory, env.workTree, dir),
    onCheck: check => env.emit({ type: 'check_finished', iteration, check })
  }).finally(() => env.onPhase(undefined))
}

/**
 * How the gates run in `workTree` (the loop's, or a clean checkout): counted against the baseline where their
 * runner is known, each in a HOME of its own under isolation, logs under `dir`.
 */
export function gateContext(
  env: LoopEnvironment,
  counting: Pick<IterationMemory, 'testRunners' | 'baseline'>,
  workTree: string,
  dir: string
): CheckContext {
  const runners = counting.testRunners
  const commands = env.config.checks.map(check => check.run)
  return {
    ...(env.agentEnvironment ? { freshHome: true } : {}),
    ...(runners ? { countTests: testCounter(commands, runners, counting.baseline?.checks, workTree) } : {}),
    workTree,
    iterationDir: dir,
    relative: file => env.record.relative(file),
    killGraceMs: env.killGraceMs,
    signal: env.guard.signal,
    stopCause: () => env.guard.trip?.cause,
    runProcess: env.runProcess,
    parallel: env.config.parallelChecks === true
  }
}

/**
 * The gates once before iteration 1, recorded like an iteration 0: their failures fill iteration 1's
 * `{{ ralph.failures }}` exactly as a failed iteration's would, so the first agent run is not blind.
 */
export async function runBaseline(
  env: LoopEnvironment,
  memory: IterationMemory
): Promise<{ baseline: BaselineRecord; memory: IterationMemory }> {
  const started = env.clock.now()
  const parallel = env.config.parallelChecks === true
  env.emit({ type: 'baseline_started', checks: env.config.checks.length, parallel })
  const checks = await runGates(env, memory, 0, env.record.iterationDir(0))
  const baseline: BaselineRecord = {
    startedAt: iso(started),
    durationMs: Math.round(env.clock.now() - started),
    verdict: checks.interrupted ? 'interrupted' : checks.failures.length > 0 ? 'failing' : 'green',
    checks: checks.runs,
    checksMs: checks.wallMs,
    parallel
  }
  return {
    baseline,
    memory: { ...memory, baseline, ...(checks.interrupted ? {} : { previousChecks: checks.runs }) }
  }
}

export async function runIteration(
  env: LoopEnvironment,
  memory: IterationMemory,
  iteration: number
): Promise<IterationOutcome> {
  const { config, guard, record: runRecord, emit, clock } = env
  let next = memory
  const started = clock.now()
  const dir = runRecord.iterationDir(iteration)
  const relative = (file: string): string => runRecord.relative(file)
  const record: IterationRecord = {
    iteration,
    startedAt: iso(started),
    durationMs: 0,
    verdict: 'ran',
    commands: [],
    checks: [],
    completion: { tag: false, given: false },
    failureFingerprint: ''
  }
  const finish = (
    outcome: Omit<IterationOutcome, 'record' | 'memory'>,
    verdict?: IterationVerdict
  ): IterationOutcome => {
    if (verdict) record.verdict = verdict
    if (outcome.crash) record.error = outcome.crash
    record.durationMs = Math.round(clock.now() - started)
    env.onPhase(undefined)
    return { record, memory: next, ...outcome }
  }
  // 1. The ralph's commands.
  env.onPhase('command')
  const commands = await runCommands(env.ralph.commands, {
    ralphDir: env.ralph.dir,
    workTree: env.workTree,
    userArgs: config.userArgs,
    iterationDir: dir,
    relative,
    outputCap: config.outputCap,
    killGraceMs: env.killGraceMs,
    signal: guard.signal,
    runProcess: env.runProcess,
    onCommand: command => emit({ type: 'command_finished', iteration, command })
  })
  record.commands = commands.runs
  if (commands.crash) return finish({ crash: commands.crash, interrupted: false, success: false }, 'crashed')
  if (commands.interrupted) return finish({ interrupted: true, success: false }, 'interrupted')
  env.onPhase(undefined)

  // 2. The prompt, from RALPH.md as it is now.
  let prompt: string
  try {
    const assembled = assemble({ ...env, ...next }, iteration, commands.outputs)
    prompt = assembled.prompt
    if (assembled.showsDiff) next = { ...next, trackTree: true }
  } catch (error) {
    const message =
      error instanceof RalphError ? error.message : `RALPH.md could not be read: ${(error as Error).message}`
    return finish({ crash: message, interrupted: false, success: false }, 'crashed')
  }
  record.prompt = runRecord.writePrompt(iteration, prompt)
  if (guard.signal.aborted) return finish({ interrupted: true, success: false }, 'interrupted')

  // 3. The agent, with the caps it can enforce itself: what is left of the dollar budget, its turn cap.
  const caps = agentCaps(config, env.meter)
  emit({
    type: 'agent_started',
    iteration,
    argv: env.preset.argv(env.ralph.agentArgv, caps),
    promptFile: record.prompt.file,
    preset: env.preset.name,
    transcript: env.preset.jsonStream,
    log: relative(agentLogFile(dir))
  })
  env.onPhase('agent')
  guard.watchCost(true)
  const agent = await runAgent({
    preset: env.preset,
    agent: env.ralph.agent,
    agentArgv: env.ralph.agentArgv,
    fromRalphFile: env.ralph.file !== '' && env.config.promptText === undefined,
    prompt,
    workTree: env.workTree,
    iterationDir: dir,
    relative,
    timeoutMs: config.agentTimeoutSeconds !== undefined ? config.agentTimeoutSeconds * 1000 : undefined,
    killGraceMs: env.killGraceMs,
    signal: guard.signal,
    stopCause: () => guard.trip?.cause,
    meter: env.meter,
    caps,
    ...(config.agentEnv ? { agentEnv: config.agentEnv } : {}),
    runProcess: env.runProcess,
    ...(env.agentEnvironment ? { agentEnvironment: env.agentEnvironment } : {}),
    ...(env.outputRoom ? { outputRoom: env.outputRoom } : {}),
    onOutput: output =>
      emit(
        'transcript' in output
          ? { type: 'agent_transcript', iteration, line: output.transcript }
          : { type: 'agent_output', iteration, stream: output.stream, chunk: output.chunk }
      )
  })
  guard.watchCost(false)
  env.onPhase(undefined)
  if (agent.crash) return finish({ crash: agent.crash, interrupted: false, success: false }, 'crashed')
  record.agent = agent.run
  emit({ type: 'agent_finished', iteration, agent: agent.run })
  if (guard.signal.aborted) return finish({ interrupted: true, success: false }, 'interrupted')

  // Protected paths back as the start commit has them: the gates judge with the base's tests, and the
  // commit (what is delivered) never carries a change to one.
  if (env.protection) {
    env.onPhase('command')
    try {
      const reverts = await restore(env.protection, { runProcess: env.runProcess, signal: guard.signal })
      if (reverts.length > 0) {
        record.reverts = reverts
        emit({
          type: 'warning',
          message: `iteration ${iteration}: protected paths put back from the start commit before the checks: ${revertsLine(reverts)}`
        })
      }
    } catch (error) {
      if (guard.signal.aborted) return finish({ interrupted: true, success: false }, 'interrupted')
      const message =
        error instanceof ProtectedPathError ? error.message : `protected paths: ${(error as Error).message}`
      return finish({ crash: message, interrupted: false, success: false }, 'crashed')
    }
    env.onPhase(undefined)
  }

  // 4. What the agent left: progress, the diff for the next prompt, the commit.
  if (env.isRepo && (next.trackTree || config.commit)) {
    try {
      const tree = await env.workspace.treeHash(guard.signal)
      record.treeHash = tree
      record.progressed = tree !== next.previousTree
      next = { ...next, previousTree: tree }
      if (next.startTree) {
        // The same tree as last time has the same diff: one git process fewer on an idle iteration.
        const lastDiff =
          record.progressed || next.lastDiff === undefined
            ? await env.workspace.diffSinceStart(next.startTree, tree, undefined, guard.signal)
            : next.lastDiff
        next = { ...next, lastDiff }
        record.diffStat = lastDiff.stat
      }
    } catch (error) {
      // A git stopped because the run's time was over (it waited on the tree): the budget, not a crash.
      if (guard.signal.aborted) return finish({ interrupted: true, success: false }, 'interrupted')
      throw error
    }
  }
  const commit = config.commit ? await commitIteration(env, iteration, record.treeHash) : undefined
  if (commit) record.commit = commit
  // A commit that failed is not "nothing changed": the work would be lost, or delivered without it.
  if (record.commit?.error && guard.signal.aborted)
    return finish({ interrupted: true, success: false }, 'interrupted')
  if (record.commit?.error)
    return finish(
      {
        crash: `the commit of iteration ${iteration} failed: ${record.commit.error}`,
        interrupted: false,
        success: false
      },
      'crashed'
    )

  // 5. The gates.
  let checks = await runGates(env, next, iteration, dir)
  // What judges the agent stays as it was while it judges: a gate runs the agent's code, which could rewrite
  // a later gate's script or a test not yet loaded. Changed meanwhile, the round does not count.
  if (env.protection && !checks.interrupted) {
    let during: Awaited<ReturnType<typeof findChanges>>
    try {
      during = await findChanges(env.protection)
    } catch (error) {
      return finish({ crash: (error as Error).message, interrupted: false, success: false }, 'crashed')
    }
    if (during.length > 0) {
      const run = changedDuringGates(during)
      checks = {
        ...checks,
        runs: [...checks.runs, run],
        failures: [...checks.failures, { name: run.name, output: run.tail }]
      }
    }
  }
  record.checks = checks.runs
  record.checksMs = checks.wallMs
  record.failureFingerprint = failureFingerprint(checks.failures)
  record.completion = detectCompletion(agent.outcome.finalMessage, config.completionTag)
  if (checks.interrupted) return finish({ interrupted: true, success: false }, 'interrupted')
  next = { ...next, previousChecks: checks.runs }

  // 6. The verdict: a passing tree passes once more on a clean checkout of its commit (verify.ts).
  const { verdict, success } = verdictOf(record, config.checks.length > 0, config.completionTag !== '')
  if (!success || env.verify !== 'clean') return finish({ interrupted: false, success }, verdict)
  const head = await env.workspace.headSha()
  if (head === undefined)
    return finish({ crash: 'there is no commit to verify', interrupted: false, success: false }, 'crashed')
  let verified: Awaited<ReturnType<typeof verifyCommit>>
  try {
    verified = await verifyCommit(env, iteration, head, next.startCommit, env.verifyPorts, next)
  } catch (error) {
    const message = `the clean checkout of ${head.slice(0, 12)} could not be made: ${(error as Error).message}`
    return finish({ crash: message, interrupted: false, success: false }, 'crashed')
  }
  const verification = verified.verification
  record.verification = verification
  emit({ type: 'verify_finished', verification })
  if (verification.verdict === 'interrupted')
    return finish({ interrupted: true, success: false }, 'interrupted')
  if (verification.verdict === 'passed') return finish({ interrupted: false, success: true }, 'passed')
  // As if the gates had failed: the clean checkout's output is what the next prompt shows.
  record.failureFingerprint = failureFingerprint(verified.failures)
  next = { ...next, previousChecks: cleanFailures(verification) }
  return finish({ interrupted: false, success: false }, 'checks_failed')
}
