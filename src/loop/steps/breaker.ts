// The stagnation breaker of a run: its rules (fewer without gates) and the chain's earlier iterations told to
// it again, as the loop told them.
import { StagnationBreaker } from '../breaker.js'
import type { IterationRecord, LoopConfig } from '../types.js'

export function runBreaker(config: LoopConfig, earlier: readonly IterationRecord[]): StagnationBreaker {
  // Without gates the loop keeps the reference's semantics: no stagnation rules, only the agent's denied
  // permissions (a loop whose agent may not use its tools can only burn money).
  const breaker = new StagnationBreaker(
    config.checks.length > 0
      ? config.breaker
      : {
          noProgress: 0,
          sameFailure: 0,
          agentFailures: 0,
          ...(config.breaker.permissionDenials !== undefined
            ? { permissionDenials: config.breaker.permissionDenials }
            : {})
        }
  )
  for (const record of earlier) {
    const signals = breakerSignals(record)
    if (signals) breaker.record(signals)
  }
  return breaker
}

/**
 * What an iteration tells the breaker; undefined for one it skips: a crash, or a usage limit (which says
 * nothing about the agent or the work). The loop and a resumed loop's replay read records the same way.
 */
export function breakerSignals(
  record: IterationRecord
): Parameters<StagnationBreaker['record']>[0] | undefined {
  const agent = record.agent
  if (record.error !== undefined) return undefined
  if (agent?.failure?.kind === 'usage_limit' && !agent.killedBy) return undefined
  return {
    progressed: record.progressed,
    failureFingerprint: record.failureFingerprint,
    agentFailed: agent !== undefined && !agent.success,
    deniedTools: agent?.permissionDenials?.map(denial => denial.tool) ?? []
  }
}
