// The gates: how they run in a tree (the loop's, or a clean checkout), and the baseline before iteration 1.
import type { IterationMemory, LoopEnvironment } from './environment.js'
import { runChecks, type CheckContext, type ChecksOutcome } from './checks.js'
import { testCounter } from './test-count.js'
import type { BaselineRecord } from './types.js'
import { iso } from './iso.js'

/**
 * The gates in the work tree as it is, with the run's signal: a budget or a cancel kills them. A gate whose
 * runner is counted also fails on a count missing or smaller than the baseline's.
 */
export function runGates(
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
