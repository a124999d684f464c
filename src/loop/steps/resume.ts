// Resuming a chain (this job goes on where the one before handed the loop on): what the loop takes from a
// LoopStart, read once here. A loop of its own (no start) resumes nothing: every field is empty.
import type { CostSource } from '../../agents/cost-meter.js'
import type { BaselineRecord, ChainJob, ChainRun, CheckRun, IterationRecord, LoopResult } from '../types.js'
import type { LoopStart } from '../types.js'

/** What this job's loop goes on from. */
export interface Resumed {
  /** The earlier jobs' iterations, in order: numbered on from, replayed to the breaker, in the record. */
  iterations: readonly IterationRecord[]
  /** Dollars the chain spent before this job, and how they were known: the meter starts there. */
  spent: { usd: number; source?: CostSource }
  /** The chain's baseline: not run again. */
  baseline?: BaselineRecord
  /** The gates the agent last saw (the earlier job's), for the first prompt of this job. */
  previousChecks?: CheckRun[]
  /** Where the chain started: the change, the protected paths and the clean checkout's base are the chain's. */
  start?: LoopResult['start']
  /** The chain's cost so far, as status.json said it (its cap is this job's to set). */
  cost?: LoopResult['cost']
  /** This job within the chain: the jobs before it and its own run; absent for a loop of its own. */
  chain?: {
    jobs: ChainJob[]
    run: ChainRun
    /** The earlier record, copied into this one (its logs, its progress sections). */
    record?: { dir: string; jobs: ChainJob[]; run: ChainRun; sectionsAt?: number | undefined }
    /** Where this job's setup logs go, beside the earlier job's. */
    setupLogs: string
  }
}

/** Reads what a chain hands this job, once; every later step takes the answer. */
export function fromStart(start: LoopStart | undefined): Resumed {
  if (!start) return { iterations: [], spent: { usd: 0 } }
  const { status } = start
  const last = status.iterations.at(-1)
  const previousChecks = status.baseline
    ? (last?.checks ?? status.baseline.checks)
    : status.iterations.length > 0
      ? (last?.checks ?? [])
      : undefined
  return {
    iterations: status.iterations,
    spent: { usd: status.cost.totalUsd, source: status.cost.source },
    ...(status.baseline ? { baseline: status.baseline } : {}),
    ...(previousChecks ? { previousChecks } : {}),
    start: status.start,
    cost: status.cost,
    chain: {
      jobs: start.jobs,
      run: start.run,
      ...(start.recordDir !== undefined
        ? {
            record: {
              dir: start.recordDir,
              jobs: start.jobs,
              run: start.run,
              sectionsAt: status.progressSectionsAt
            }
          }
        : {}),
      setupLogs: `job-${String(start.jobs.length + 1).padStart(3, '0')}`
    }
  }
}
