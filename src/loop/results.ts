// What the loop writes down: the records of its runs (commands, agent, gates, clean verification), its
// status while it runs (status.json) and its result.
import type { CostSource, Usage } from '../agents/cost-meter.js'
import type { ProtectRule, Revert } from './protect/types.js'

export type StopReason =
  | 'all_checks_passed'
  | 'completed'
  | 'max_iterations'
  | 'budget_exhausted'
  /** The repository's budget (the ledger) could not grant a request's worst case. */
  | 'budget'
  | 'timeout'
  | 'circuit_open'
  | 'agent_error'
  | 'cancelled'
  | 'already_green'
  | 'verify_failed'

export type VerifyMode = 'clean' | 'tree'

/** A job of a chain, as its runner names it (a workflow run). */
export interface ChainRun {
  id: string
  attempt: string
  url?: string
}

/** One job of a chain (a loop that spans several jobs): what it did. */
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

export type KilledBy = 'timeout' | 'budget_exhausted' | 'budget' | 'cancelled'

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
  /** The held-out gates (#37), run once the others passed here: as `holdout-feedback` lets the run tell. */
  holdout?: HoldoutRecord
}

/**
 * The held-out gates' verdict. With feedback `none` a failure names no gate and keeps no output (`gates` only when
 * they all passed); with `full` every run is kept, as the other gates'.
 */
export interface HoldoutRecord {
  passed: boolean
  feedback: HoldoutFeedback
  /** The held-out gates by name, when they passed or the feedback is full. */
  gates?: string[]
  /** Their runs (feedback full only). */
  runs?: CheckRun[]
}

/** What a held-out gate's failure tells the loop: that one failed (`none`), or its output (`full`). */
export type HoldoutFeedback = 'none' | 'full'

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
