// One iteration: commands → prompt (RALPH.md re-read) → agent → work tree (hash, commit) → checks →
// completion. Every step writes its logs as it goes; the iteration's record is what it returns.
import type { AgentCaps } from '../agents/types.js'
import type { CostMeter } from '../agents/cost-meter.js'
import { RalphError } from '../ralph/index.js'
import { agentLogFile, runAgent } from './agent.js'
import { assemble } from './assemble.js'
import { runCommands } from './commands.js'
import { detectCompletion } from './completion.js'
import type { IterationMemory, LoopEnvironment } from './environment.js'
import { failureFingerprint } from './fingerprint.js'
import { runGates } from './gates.js'
import { changedDuringGates, findChanges, ProtectedPathError, restore, revertsLine } from './protect/index.js'
import { cleanFailures, verifyCommit } from './verify.js'
import type { IterationRecord, IterationVerdict, LoopConfig } from './types.js'
import { iso } from './iso.js'

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
