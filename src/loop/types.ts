// The loop engine's contract: configuration in, typed events out, a typed result at the end.
import type { AgentCostOptions } from '../agents/index.js'
import type { AgentEnvOptions } from '../security/index.js'
import type { Workspace } from '../git/workspace.js'
import type { RunOptions, RunResult } from '../proc/types.js'
import type { Ralph, RalphCheck } from '../ralph/index.js'
import type { ModelProxySettings } from '../proxy/agent.js'
import type { SpendingCap } from '../proxy/cap.js'
import type { CostMeter, CostSource, MeteredRequestUsage, Usage } from '../agents/cost-meter.js'
import type {
  AgentRun,
  BaselineRecord,
  ChainJob,
  ChainRun,
  CheckRun,
  CommandRun,
  HoldoutFeedback,
  IterationRecord,
  LoopResult,
  LoopStatus,
  StopReason,
  VerificationRecord,
  VerifyMode
} from './results.js'

export type { CostSource, MeteredRequestUsage, Usage }
// The records, status and result are results.ts's; the contract hands them on as its own.
export * from './results.js'

export interface LoopConfig {
  /** A validated ralph; for ralph-less runs a synthetic one whose body comes from `promptText`. */
  ralph: Ralph
  /** Ralph-less runs: the task (or spec file content) stands in for the body. */
  promptText?: string
  /**
   * Text appended to every prompt right after the body, as data: never filled as a template (the action's
   * task block, for a ralph that does not place `{{ args.task }}` itself).
   */
  promptAppendix?: string
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
  /** The repository's budget: what the model proxy's pre-authorisations draw on (a ledger's lease), beside max-cost. */
  spending?: SpendingCap
  /** Merged gates: frontmatter, then CLI/action. */
  checks: RalphCheck[]
  /** `<promise>TAG</promise>`; '' = gates alone decide. Default 'COMPLETE'. */
  completionTag: string
  /** Commit what the agent left after each iteration. */
  commit: boolean
  /** A file of the work tree larger than this (bytes) is left out of every commit, with a warning. */
  maxFileBytes?: number
  /** Where progress.md, status.json and logs/ go; never inside the work tree. */
  recordDir: string
  /** Bytes of one command's output put into the prompt; the middle of larger output is cut. Default 1 MiB. */
  outputCap: number
  /** Consecutive iterations that open the circuit, per rule (0 = off); `permissionDenials` defaults to 2. */
  breaker: { noProgress: number; sameFailure: number; agentFailures: number; permissionDenials?: number }
  /** Agent presets on (default) or off. */
  presets: boolean
  // Added with the engine; optional, with defaults.
  /** SIGTERM → SIGKILL grace for every process the loop kills, ms. Default 3000 (the reference's). */
  killGraceMs?: number
  /**
   * Run in a new git worktree on its own branch, left in place for inspection. `dir` defaults to a new
   * folder under the system temp dir, `branch` to `ralph/<name>-<UTC timestamp>`.
   */
  worktree?: { branch?: string; dir?: string }
  // Added with the agent presets; optional, with defaults.
  /**
   * Which flags presets add: 'all' (default) for machine-readable output (codex --json, gemini
   * --output-format stream-json, opencode --format json); 'reference' keeps the reference runtime's argv
   * (claude's stream flags only) unless a dollar budget needs the agent's cost. Budget caps for claude
   * (--max-budget-usd, --max-turns) come with their settings in both.
   */
  presetFlags?: 'all' | 'reference'
  /** Turns one agent run may take, passed to agents that enforce it themselves (claude --max-turns). */
  agentMaxTurns?: number
  /** How a generic agent reports its cost (a line pattern; the cost file's variable). */
  agentCost?: AgentCostOptions
  /**
   * The agent's environment: the job's minus GitHub/Actions credentials (src/security/env.ts); `allow` names
   * variables to keep anyway, `set` adds variables.
   */
  agentEnv?: AgentEnvOptions
  // Added with the model proxy; optional.
  /**
   * Run the agent behind the model proxy (src/proxy/): it holds the model key, meters every token at the wire
   * (cost source `metered`) and ends a stream that crosses the dollar budget.
   */
  modelProxy?: ModelProxySettings
  // Added with the baseline and parallel gates; optional, with defaults.
  /**
   * Run the gates once before iteration 1 (default true; only when there are gates), so iteration 1's
   * `{{ ralph.failures }}` holds their failures instead of the agent working blind.
   */
  baseline?: boolean
  /** When every gate already passes at the baseline, stop at once (`already_green`): no agent runs. */
  skipIfGreen?: boolean
  /** Run the gates together (default false: two gates may share a build folder). */
  parallelChecks?: boolean
  // Added with protected paths; optional (off when absent).
  /**
   * Paths put back from the start commit before every gate run after the baseline (git only): `auto`, `none`,
   * or globs relative to the repository's top, `auto` possibly among them (see loop/protect/).
   */
  protect?: string[]
  /** Globs of the paths the agent may change (#37): every other path is protected. Absent: off. */
  editable?: string[]
  /** Gates the agent never sees (#37), run only at the clean verification: see loop/clean/holdout.ts. */
  holdout?: HoldoutSetting
  // Added with the clean verification (#27); optional, with defaults.
  /**
   * Commands run with bash in the project root before the baseline (before iteration 1 without one) and in
   * the clean checkout before its gates (e.g. `npm ci`): what a fresh clone needs before its gates can pass.
   */
  setup?: string[]
  /**
   * `clean` (the default with gates and `commit`): when every gate passes, the gates run once more on a clean
   * checkout of the commit made (src/loop/verify.ts) and only then is the iteration a success; `tree` trusts
   * the loop's own tree.
   */
  verify?: VerifyMode
}

/**
 * Where the chain stands when this job's loop starts (a chain: a loop that spans several jobs, each resuming
 * where the one before handed it on): the earlier job's final status (iterations, cost, baseline, start
 * commit), the chain's jobs so far, and this job's run. The earlier logs are copied into this record.
 */
export interface LoopStart {
  status: LoopResult
  jobs: ChainJob[]
  run: ChainRun
  /** The earlier record's folder: its logs/ and progress.md's sections are copied into this one. */
  recordDir?: string
}

/** What runLoop needs from its surroundings; every port has a real default. */
export interface LoopPorts {
  /** Receives every event, synchronously, in order. A throwing listener does not stop the loop. */
  emit?: (event: LoopEvent) => void
  clock?: Clock
  /** The first abort cancels: the agent's tree is killed, the record finished, the loop stops `cancelled`. */
  signal?: AbortSignal
  /**
   * A gentler stop (the reference's first Ctrl+C): the iteration in flight finishes, no new one starts,
   * the delay is cut short, and the loop stops `cancelled`. Abort `signal` as well to stop at once.
   */
  finishSignal?: AbortSignal
  /** Default: createCostMeter(priceFromTable): reported dollars first, else the agents' price table. */
  costMeter?: CostMeter
  /** Default: proc's runProcess. */
  runProcess?: (options: RunOptions) => Promise<RunResult>
  /**
   * The environment the agent's program gets from runProcess, given the one the loop builds (an isolation's
   * own HOME and settings copies): where presets look for the agent's files (codex's session log). Default: as is.
   */
  agentEnvironment?: (env: NodeJS.ProcessEnv) => NodeJS.ProcessEnv
  /** Default: a GitWorkspace on the work tree. */
  workspace?: Workspace
  /**
   * Asked after each chunk of the agent's output: a promise means the front-end's output is full (its reader
   * is behind), and the agent's pipes are not read until it settles, so the agent blocks on its own writes.
   * See {@link outputRoomOf}. Default: never full.
   */
  outputRoom?: () => Promise<void> | undefined
  /** How the clean checkout is made and handed over (the action's hermetic git, the agent's user). */
  verify?: VerifyPorts
}

/** The held-out gates (#37): what runs, from where, and what a failure may tell the loop. */
export interface HoldoutSetting {
  /** Run as the other gates are, on the clean checkout once they passed there. */
  checks: RalphCheck[]
  /** Where their files wait (one of the two): a folder only the action's user can read, outside the work tree… */
  path?: string
  /** …or a ref of the repository, fetched by the verification's `fetchHoldout` port once the checkout is given back. */
  ref?: string
  feedback: HoldoutFeedback
}

/** What the clean verification needs from its surroundings; every port has a default. */
export interface VerifyPorts {
  /** Variables for the git that makes the clean checkout (the action's hermetic git environment). */
  gitEnv?: NodeJS.ProcessEnv
  /** Where the clean checkout's folder is made (outside every work tree). Default: ~/.cache/ralph-action. */
  tempDir?: string
  /**
   * Hands the clean checkout to the user the gates run as (isolation); answers what gives it back, which
   * answers its problems. Default: nothing to hand over.
   */
  lend?: (dir: string) => Promise<() => Promise<string[]>>
  /**
   * Writes the files of the held-out gates' ref under `into` (an empty folder of the action's user's, 0700), by
   * the action's own git and credentials; answers their folder or the problem (one line). No port: no ref source.
   */
  fetchHoldout?: (ref: string, into: string) => Promise<{ dir: string } | { problem: string }>
  /**
   * Puts protected paths back from the base commit in the clean checkout; answers the paths it reverted.
   * Default: the run's own protection (loop/protect/ restoreProtected), before the checkout is lent.
   */
  restoreProtected?: (checkout: string, baseCommit: string) => Promise<string[]>
}

// ---------------------------------------------------------------------------------------------------
// Additions (optional fields keep LoopConfig literals written against the first contract valid).

/** Time and timers; tests may pass a fake. */
export interface Clock {
  /** Milliseconds (epoch-based, like Date.now()). */
  now(): number
  /** Calls `fn` after `ms`; answers a function that cancels it. */
  setTimeout(fn: () => void, ms: number): () => void
}

export type LoopEvent =
  | { type: 'loop_started'; status: LoopStatus }
  /** The gates run once before iteration 1 (their check_finished events carry iteration 0). */
  | { type: 'baseline_started'; checks: number; parallel: boolean }
  | { type: 'baseline_finished'; baseline: BaselineRecord }
  | { type: 'iteration_started'; iteration: number; maxIterations?: number }
  /** The setup commands ran in the work tree, before the baseline. */
  | { type: 'setup_finished'; setup: CheckRun[] }
  /** The gates ran once more on a clean checkout of the iteration's commit. */
  | { type: 'verify_finished'; verification: VerificationRecord }
  | { type: 'command_finished'; iteration: number; command: CommandRun }
  /** `transcript`: the agent's output is a JSON stream, shown as agent_transcript lines (raw chunks are not for people). */
  | {
      type: 'agent_started'
      iteration: number
      argv: string[]
      promptFile: string
      preset?: string
      transcript?: boolean
      /** The agent's log in the record (relative to it): all its output, or the transcript of a JSON stream. */
      log?: string
    }
  /** Every chunk the agent prints, as it arrives (not kept: render it or drop it). */
  | { type: 'agent_output'; iteration: number; stream: 'stdout' | 'stderr'; chunk: Buffer }
  /** A readable transcript line of a JSON-stream agent: text, one line per tool call, errors, the result. */
  | { type: 'agent_transcript'; iteration: number; line: string }
  | { type: 'agent_finished'; iteration: number; agent: AgentRun }
  | { type: 'check_finished'; iteration: number; check: CheckRun }
  | { type: 'cost_update'; spentUsd: number; runningUsd: number; source: CostSource; maxUsd?: number }
  | { type: 'iteration_finished'; record: IterationRecord }
  | { type: 'waiting'; seconds: number }
  | { type: 'warning'; message: string }
  | { type: 'stop'; reason: StopReason; detail: string; result: LoopResult }
