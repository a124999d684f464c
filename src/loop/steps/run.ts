// What every step of a running loop shares: its environment, its status (status.json's document) and record,
// and the few acts each may take on them (warn, note an enforcement, read the budgets).
import { DEFAULT_KILL_GRACE_MS } from '../defaults.js'
import type { LoopEnvironment, LoopPhase } from '../environment.js'
import type { Trip } from '../guard.js'
import type { RunRecord } from '../record.js'
import type { Budgets } from '../stop.js'
import type { Clock, IterationRecord, LoopConfig, LoopEvent, LoopPorts, LoopStatus } from '../types.js'
import { verifyModeOf } from '../verify.js'
import { withoutModelKeys, type AgentBehindProxy } from '../../proxy/agent.js'
import { runProcess } from '../../proc/index.js'
import type { Metered } from './meter.js'
import type { Opened } from './open.js'
import { iso } from '../iso.js'

export interface LoopRun {
  readonly config: LoopConfig
  readonly ports: LoopPorts
  /** What the iteration, the gates and the clean verification run with (protection added at the start). */
  env: LoopEnvironment
  readonly status: LoopStatus
  readonly record: RunRecord
  readonly gated: boolean
  /** The model proxy the agent runs behind, when it does. */
  readonly proxied?: AgentBehindProxy
  readonly deadline?: number
  emit(event: LoopEvent): void
  /** Each warning once: in status.json and as an event. */
  warn(message: string): void
  /** What the work tree held that is never delivered (a nested repository, a large file): warned once each. */
  warnRefused(): void
  /** How fast the guard's kill was: from the crossing to the killed tree being gone. */
  noteEnforcement(trip: Trip): void
  /** Where the budgets stand after `ran` iterations, the last being `last`. */
  budgets(ran: number, last: IterationRecord | undefined): Budgets
}

/** The run's shared state, once its work tree, meter and record are open. */
export function loopRun(
  ports: LoopPorts,
  opened: Opened,
  metered: Metered,
  { status, record }: { status: LoopStatus; record: RunRecord },
  { clock, emit }: { clock: Clock; emit: (event: LoopEvent) => void }
): LoopRun {
  const { config, guard, meter, proxied } = metered
  let phase: LoopPhase | undefined
  // What was running when the guard fired: what its enforcement killed.
  let killedPhase: LoopPhase | undefined
  guard.signal.addEventListener('abort', () => (killedPhase = phase), { once: true })
  const verify = verifyModeOf(config, opened.isRepo)
  if (verify) status.verify = verify
  const spawn = ports.runProcess ?? runProcess
  const env: LoopEnvironment = {
    config,
    ralph: opened.ralph,
    workTree: opened.workTree,
    workspace: opened.workspace,
    ralphFiles: opened.ralphFiles,
    isRepo: opened.isRepo,
    preset: opened.preset,
    guard,
    meter,
    record,
    clock,
    emit,
    runProcess: proxied ? withoutModelKeys(spawn, proxied.proxy.placeholderKey, proxied.proxyEnv) : spawn,
    ...(ports.agentEnvironment ? { agentEnvironment: ports.agentEnvironment } : {}),
    ...(ports.outputRoom ? { outputRoom: ports.outputRoom } : {}),
    killGraceMs: config.killGraceMs ?? DEFAULT_KILL_GRACE_MS,
    onPhase: now => (phase = now),
    ...(verify ? { verify } : {}),
    ...(ports.verify ? { verifyPorts: ports.verify } : {})
  }
  const gated = config.checks.length > 0
  const run: LoopRun = {
    config,
    ports,
    env,
    status,
    record,
    gated,
    ...(proxied ? { proxied } : {}),
    ...(metered.deadline !== undefined ? { deadline: metered.deadline } : {}),
    emit,
    warn(message) {
      if (status.warnings.includes(message)) return
      status.warnings.push(message)
      emit({ type: 'warning', message })
    },
    warnRefused() {
      for (const line of opened.workspace.refused?.() ?? []) {
        if (status.notDelivered?.includes(line)) continue
        ;(status.notDelivered ??= []).push(line)
        run.warn(line)
      }
    },
    noteEnforcement(trip) {
      status.enforcement = {
        cause: trip.cause,
        crossedAt: iso(trip.at),
        latencyMs: Math.max(0, Math.round(clock.now() - trip.at))
      }
      if (killedPhase) status.enforcement.killed = killedPhase
    },
    budgets: (ran, last) => ({
      maxIterations: config.maxIterations,
      maxCostUsd: config.maxCostUsd,
      ran,
      last,
      trip: guard.trip,
      timeSpent: guard.timeSpent(),
      costSpent: guard.costSpent(),
      finishAsked: ports.finishSignal?.aborted === true,
      gated,
      stopOnError: config.stopOnError
    })
  }
  return run
}
