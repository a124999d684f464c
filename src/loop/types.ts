// The loop engine's contract: configuration in, typed events out, a typed result at the end.
import type { AgentCostOptions } from '../agents/index.js'
import type { AgentEnvOptions } from '../security/index.js'
import type { Workspace } from '../git/workspace.js'
import type { RunOptions, RunResult } from '../proc/types.js'
import type { Ralph, RalphCheck } from '../ralph/index.js'
import type { ModelProxySettings } from '../proxy/agent.js'
import type { CostMeter, CostSource, MeteredRequestUsage, Usage } from '../agents/cost-meter.js'
import type { ProtectRule, Revert } from './protect/types.js'

export type { CostSource, MeteredRequestUsage, Usage }

export type StopReason =
  | 'all_checks_passed'
  | 'completed'
  | 'max_iterations'
  | 'budget_exhausted'
  | 'timeout'
  | 'circuit_open'
  | 'agent_error'
  | 'cancelled'
  | 'already_green'
  | 'verify_failed'

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
  // Added with continuation across jobs (#30); optional.
  /** The loop goes on from an earlier job's: its iterations, cost, breaker state and baseline carry over. */
  carry?: Carry
}

export type VerifyMode = 'clean' | 'tree'

/** A job of a chain, as its runner names it (a workflow run). */
export interface ChainRun {
  id: string
  attempt: string
  url?: string
}

/** One job of a loop that spans several (continuation across jobs): what it did. */
export interface ChainJob {
  run: ChainRun
  /** Iterations this job ran. */
  iterations: number
  /** Dollars this job spent. */
  costUsd: number
  durationMs: number
  stopReason: StopReason
  /** The commit it left the branch at (pushed), when it handed the loop on. */
  head?: string
}

/**
 * Where an earlier job of the chain left the loop: its final status (iterations, cost, baseline, start
 * commit), the chain's jobs so far, and this job's run. The earlier logs are copied into this record.
 */
export interface Carry {
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
  /**
   * No agent runs: once the start is recorded, the gates run on a clean checkout of `commit` alone (setup
   * first), its protected paths put back from `base`, and the loop stops: all_checks_passed or verify_failed.
   * The deliver job's own verdict on what an agent's job delivers.
   */
  verifyOnly?: { commit: string; base: string }
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

/** Paths in results are relative to the record folder. */
export interface CommandRun {
  name: string
  /** The run string as written (args substituted). */
  run: string
  argv: string[]
  cwd: string
  /** null when killed or when it could not start. */
  exitCode: number | null
  /** The signal that ended it (exitCode is then null). */
  signal?: string
  timedOut: boolean
  durationMs: number
  /** Bytes printed (stdout + stderr); all of them are in the log. */
  outputBytes: number
  /** The prompt got the output cut in the middle (it was larger than outputCap). */
  cut: boolean
  log: string
}

export type KilledBy = 'timeout' | 'budget_exhausted' | 'cancelled'

/** Why an agent run failed, in the agent's terms (see AgentFailureKind in src/agents/types.ts). */
export interface AgentRunFailure {
  kind: 'api_error' | 'usage_limit' | 'max_turns' | 'budget' | 'input_error' | 'auth_error' | 'error'
  message: string
  /** Usage limits: when the limit lifts (ISO 8601), when the agent said. */
  resetsAt?: string
}

export interface AgentRun {
  /** The preset that ran it: claude, codex, gemini, opencode, aider or generic. */
  preset: string
  argv: string[]
  exitCode: number | null
  signal: string | null
  /** The per-run timeout (agentTimeoutSeconds) expired: a failed iteration, the loop goes on. */
  timedOut: boolean
  /** The loop killed the run because the whole run had to stop. */
  killedBy?: KilledBy
  /** Exit 0, not timed out, and the agent's own output reported no failure (claude's is_error). */
  success: boolean
  durationMs: number
  /** The end of the agent's final message (at most 2,000 characters); undefined when it gave none. */
  finalMessage?: string
  /** The agent's own stream said the run failed (claude `is_error`, codex turn.failed, gemini status error). */
  isError?: boolean
  /** Why it failed, when its output or exit code says (a usage limit, an API error, its own turn cap…). */
  failure?: AgentRunFailure
  /** Tool calls the agent was denied (claude `permission_denials`); two iterations in a row open the circuit. */
  permissionDenials?: { tool: string; detail?: string }[]
  /** API retries the agent reported (claude system/api_retry, codex "Reconnecting..."). */
  apiRetries?: number
  usage: Usage
  log: string
  /** The raw JSON stream (JSON-stream presets), beside the readable log. */
  stream?: string
  notes: string[]
}

export interface CheckRun {
  name: string
  run: string
  passed: boolean
  exitCode: number | null
  /** The signal that ended it (exitCode is then null). */
  signal?: string
  timedOut: boolean
  killedBy?: KilledBy
  durationMs: number
  outputBytes: number
  /** The last 2,000 characters of its output (what `{{ ralph.failures }}` shows). */
  tail: string
  log: string
  /** The count its test runner reported, when the action recognises the runner (see loop/test-count.ts). */
  tests?: TestCount
}

/** A test runner's own count: `run` is passed + failed; skipped holds todo and xfail too. */
export interface TestCount {
  run: number
  passed: number
  failed: number
  skipped: number
}

export interface CompletionReport {
  /** `<promise>TAG</promise>` was given under the completion rule (see loop/completion.ts). */
  tag: boolean
  /** The last `---RALPH_STATUS---` block: true = exit, false = explicitly not done; absent = none. */
  statusExit?: boolean
  /** The agent said it is done. */
  given: boolean
}

/**
 * - passed: every gate passed (and the tag was given when one is required): the loop stops with success.
 * - completed: no gates, the agent gave the completion signal.
 * - checks_failed: a gate failed.
 * - checks_passed_no_tag: every gate passed, but the agent has not given the required completion tag.
 * - agent_failed / agent_timed_out: the agent exited non-zero / ran past agentTimeoutSeconds.
 * - ran: no gates and no completion signal: the iteration simply ran (the reference's only outcome).
 * - interrupted: the run had to stop mid-iteration (time, cost, cancel).
 * - crashed: something could not be run at all (a command's program missing, RALPH.md unreadable…).
 */
export type IterationVerdict =
  | 'passed'
  | 'completed'
  | 'checks_failed'
  | 'checks_passed_no_tag'
  | 'agent_failed'
  | 'agent_timed_out'
  | 'ran'
  | 'interrupted'
  | 'crashed'

export interface IterationRecord {
  iteration: number
  /** ISO 8601. */
  startedAt: string
  durationMs: number
  verdict: IterationVerdict
  commands: CommandRun[]
  prompt?: { bytes: number; file: string }
  agent?: AgentRun
  checks: CheckRun[]
  completion: CompletionReport
  /** The work tree's hash after the agent (git only). */
  treeHash?: string
  /** The tree changed since the previous iteration; absent outside git. */
  progressed?: boolean
  /** `git diff --stat` since the loop started. */
  diffStat?: string
  /** With `commit`: the commit made (absent when nothing changed), or why it failed. */
  commit?: { sha?: string; error?: string }
  /** Wall time of the gates: their sum when run one after another, the slowest one's when run together. */
  checksMs?: number
  /** Fingerprint of the failing checks ('' when none failed). */
  failureFingerprint: string
  /** Set when the iteration crashed. */
  error?: string
  /** Protected paths the agent had changed, put back from the start commit before the gates judged. */
  reverts?: Revert[]
  /** Every gate passed in the work tree, so they ran once more on a clean checkout of its commit. */
  verification?: VerificationRecord
}

/**
 * The gates on a clean checkout of the commit to deliver: a fresh worktree of exactly that commit (no ignored
 * or untracked file of the loop's tree), `setup` run first, as the user the gates run as.
 */
export interface VerificationRecord {
  /** The commit checked out: the one delivered. */
  commit: string
  iteration: number
  /** ISO 8601. */
  startedAt: string
  durationMs: number
  /** failed: a setup command or a gate failed; interrupted: the run had to stop meanwhile. */
  verdict: 'passed' | 'failed' | 'interrupted'
  setup: CheckRun[]
  checks: CheckRun[]
  /** Wall time of the gates alone. */
  checksMs: number
  /** Protected paths put back from the base commit in the clean checkout before its gates ran. */
  protectedReverts?: string[]
}

export interface CostSummary {
  totalUsd: number
  /** The weakest source over all runs: 'unknown' when any run's cost was unknown. */
  source: CostSource
  maxUsd?: number
  /** False when a dollar budget was set but could not be enforced (cost unknown): said loudly, not hidden. */
  enforced: boolean
  tokens: { input: number; output: number; cache_read: number; cache_write: number }
}

/**
 * The gates run once before iteration 1, recorded like an iteration 0 (logs/iteration-000/checks/):
 * green (every gate passed), failing, or interrupted (the run had to stop while they ran).
 */
export interface BaselineRecord {
  /** ISO 8601. */
  startedAt: string
  durationMs: number
  verdict: 'green' | 'failing' | 'interrupted'
  checks: CheckRun[]
  /** Wall time of the gates (the slowest one's when they ran together). */
  checksMs: number
  /** The gates ran together (parallelChecks). */
  parallel: boolean
}

/** How fast a budget or a cancel was enforced: from the crossing to the killed tree being gone. */
export interface Enforcement {
  cause: KilledBy
  /** ISO 8601 of the crossing (the deadline itself for time). */
  crossedAt: string
  latencyMs: number
  /** What was running and got killed; absent when nothing was (the crossing came between processes). */
  killed?: 'command' | 'agent' | 'check'
}

/** What status.json holds while the loop runs; the final LoopResult has `stopReason`. */
export interface LoopStatus {
  version: 1
  state: 'running' | 'finished'
  ralph: { name: string; file: string; dir: string }
  projectRoot: string
  /** The work tree the loop ran in (differs from projectRoot with `worktree`). */
  workTree: string
  worktree?: { dir: string; branch: string; base: string }
  recordDir: string
  startedAt: string
  finishedAt?: string
  durationMs: number
  budgets: {
    maxIterations?: number
    maxTimeSeconds?: number
    maxCostUsd?: number
    agentTimeoutSeconds?: number
  }
  /** The commit and work tree hash the loop started from (git only). */
  start: { commit?: string; tree?: string }
  /** The gates as they were before iteration 1 (absent without gates or with the baseline off). */
  baseline?: BaselineRecord
  /** The setup commands' runs in the work tree, before the baseline (absent without setup). */
  setup?: CheckRun[]
  /** How a passing tree is verified (absent without gates or commits: nothing to verify). */
  verify?: VerifyMode
  /** The last clean verification (each is in its iteration's record too). */
  verification?: VerificationRecord
  /**
   * Every iteration (a chain's earlier ones first). While the loop runs they are in the record (record.ts),
   * not here: this holds only the earlier jobs' then; the result and status.json hold them all.
   */
  iterations: IterationRecord[]
  /** The iteration running now (its logs are being written). */
  inFlight?: number
  cost: CostSummary
  stopReason?: StopReason
  /** One line: why the loop stopped. */
  stopDetail?: string
  /** The loop reached its goal: all_checks_passed, completed or already_green. */
  success: boolean
  enforcement?: Enforcement
  breaker?: {
    rule: 'no_progress' | 'same_failure' | 'agent_failures' | 'permission_denials'
    count: number
    message: string
  }
  /** Set when the run crashed (stop reason agent_error): the one-line reason. */
  error?: string
  /**
   * A loop that spans jobs: every job so far, this one last once it has finished. `iterations` and `cost`
   * are the chain's totals; `startedAt`, `durationMs` and `budgets.maxTimeSeconds` are this job's.
   */
  chain?: { jobs: ChainJob[] }
  /** Finished: where progress.md's sections (setup, baseline, iterations) start, after the outcome, in bytes. */
  progressSectionsAt?: number
  /** Protected paths: the setting, its rules, and how many paths of the start commit they protect. */
  protected?: { setting: string[]; rules: ProtectRule[]; paths: number; guardrails?: string }
  warnings: string[]
  /** Gates whose test runner the action does not count, and why: their exit code alone decides. */
  uncounted?: { check: string; why: string }[]
  /** What the work tree held that was left out of the commits (a nested repository, a file over max-file-size), one line each (also among `warnings`). */
  notDelivered?: string[]
  /** The agent ran behind the model proxy: where it forwarded, and the hosts it refused the agent. */
  modelProxy?: {
    upstream: string
    requests: number
    /** The first MOST_REFUSALS_NAMED distinct destinations refused. */
    refused: string[]
    /** Refusals past those, counted only. */
    refusedUnnamed?: number
    /** Requests the proxy refused because its meter cannot price them (`POST /v1/messages/batches`). */
    refusedRequests?: string[]
  }
}

export interface LoopResult extends LoopStatus {
  state: 'finished'
  stopReason: StopReason
  stopDetail: string
  finishedAt: string
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
