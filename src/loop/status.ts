// A run's status before anything has happened: what status.json says first, and what a report falls back to.
import type { LoopStatus } from './types.js'

/** Where the run is and what bounds it; every part left out is empty. */
export interface StatusStart {
  ralph?: LoopStatus['ralph']
  projectRoot?: string
  workTree?: string
  recordDir?: string
  startedAt?: string
  budgets?: LoopStatus['budgets']
}

/** A running status with no iterations, no cost and no warnings yet. */
export function startingStatus(start: StatusStart = {}): LoopStatus {
  const maxUsd = start.budgets?.maxCostUsd
  return {
    version: 1,
    state: 'running',
    ralph: start.ralph ?? { name: '', file: '', dir: '' },
    projectRoot: start.projectRoot ?? '',
    workTree: start.workTree ?? '',
    recordDir: start.recordDir ?? '',
    startedAt: start.startedAt ?? new Date(0).toISOString(),
    durationMs: 0,
    budgets: start.budgets ?? {},
    start: {},
    iterations: [],
    cost: {
      totalUsd: 0,
      source: 'unknown',
      enforced: true,
      tokens: { input: 0, output: 0, cache_read: 0, cache_write: 0 },
      ...(maxUsd !== undefined ? { maxUsd } : {})
    },
    success: false,
    warnings: []
  }
}
