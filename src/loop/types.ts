// The loop engine's contract: configuration in, typed events out, a typed result at the end.
import type { Ralph, RalphCheck } from '../ralph/types.js'

export type StopReason =
  | 'all_checks_passed'
  | 'completed'
  | 'max_iterations'
  | 'budget_exhausted'
  | 'timeout'
  | 'circuit_open'
  | 'agent_error'
  | 'cancelled'

export type CostSource = 'reported' | 'estimated' | 'unknown'

export interface Usage {
  input: number
  output: number
  cache_read: number
  cache_write: number
  cost_usd: number
  cost_source: CostSource
}

export interface LoopConfig {
  /** A validated ralph; for ralph-less runs a synthetic one whose body comes from `promptText`. */
  ralph: Ralph
  /** Ralph-less runs: the task (or spec file content) stands in for the body. */
  promptText?: string
  /** Commands not starting with `./` and the agent run here (the reference: cwd of `ralph run`). */
  projectRoot: string
  userArgs: Record<string, string>
  /** undefined = unlimited, like the reference runtime without -n. */
  maxIterations?: number
  stopOnError: boolean
  delaySeconds: number
  /** Per agent run (the reference's --timeout). */
  agentTimeoutSeconds?: number
  /** Total wall clock for the run, checks included. */
  maxTimeSeconds?: number
  maxCostUsd?: number
  /** Merged gates: frontmatter, then CLI/action. */
  checks: RalphCheck[]
  /** `<promise>TAG</promise>`; '' = gates alone decide. Default 'COMPLETE'. */
  completionTag: string
  /** Commit what the agent left after each iteration. */
  commit: boolean
  /** Where progress.md, status.json and logs/ go; never inside the work tree. */
  recordDir: string
  /** Bytes of one command's output put into the prompt; the middle of larger output is cut. Default 1 MiB. */
  outputCap: number
  breaker: { noProgress: number; sameFailure: number; agentFailures: number }
  /** Agent presets on (default) or off. */
  presets: boolean
}
