// What the loop runs with (its environment) and what one iteration leaves the next (its memory): the
// shared ground of the iteration, the gates, the clean verification and the loop's steps.
import type { AgentPreset } from '../agents/types.js'
import type { CostMeter } from '../agents/cost-meter.js'
import type { Workspace, WorkspaceDiff } from '../git/workspace.js'
import type { RunOptions, RunResult } from '../proc/types.js'
import type { Ralph } from '../ralph/index.js'
import type { LoopGuard } from './guard.js'
import type { Protection } from './protect/index.js'
import { PROGRESS_ENTRIES } from './prompt.js'
import type { RunRecord } from './record.js'
import type { Recognition } from './test-count.js'
import type {
  BaselineRecord,
  CheckRun,
  Clock,
  IterationRecord,
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

/**
 * The real paths of RALPH.md and the guardrails file, taken before any agent ran: every later read opens
 * exactly those files, never a link or a FIFO the agent put in their place.
 */
export interface RalphFiles {
  ralph: string
  guardrails?: string
}
