// The run's cost in its status: the meter's total and the iterations' tokens, added up as each finishes.
import type { CostMeter } from '../../agents/cost-meter.js'
import type { IterationRecord, LoopStatus } from '../types.js'

/** Summing every iteration after each one grew with the loop: the tally adds each once. */
export class TokenTally {
  readonly tokens = { input: 0, output: 0, cache_read: 0, cache_write: 0 }
  agentRan = false

  constructor(earlier: readonly IterationRecord[] = []) {
    for (const record of earlier) this.add(record)
  }

  add(record: IterationRecord): void {
    const usage = record.agent?.usage
    if (!usage) return
    this.agentRan = true
    this.tokens.input += usage.input
    this.tokens.output += usage.output
    this.tokens.cache_read += usage.cache_read
    this.tokens.cache_write += usage.cache_write
  }
}

export function updateCost(status: LoopStatus, meter: CostMeter, tally: TokenTally): void {
  status.cost.totalUsd = meter.spentUsd()
  status.cost.source = tally.agentRan ? meter.source() : 'unknown'
  status.cost.tokens = { ...tally.tokens }
}
