// The agent contract: how a preset runs an agent and turns its output into normalised events, a final
// message, usage and failures, as the output arrives.

/** What an agent's output says it used, cumulative for one run. */
export interface UsageReport {
  input: number
  output: number
  cache_read: number
  cache_write: number
  /** Of cache_write, the tokens written to Anthropic's 1-hour cache (billed 2× input, not 1.25×). */
  cache_write_1h?: number
  /** The model named in the stream (or the agent's configuration), for the price table. */
  model?: string
  /** Dollars the agent itself reported for the run; undefined = it gave tokens only (or nothing). */
  reportedUsd?: number
}

/**
 * Why a run failed, in the agent's own terms:
 * - api_error: the model API failed (claude `is_error`, codex `turn.failed`, an error result);
 * - usage_limit: a subscription or quota limit was hit; `resetsAt` says when it lifts, when known;
 * - max_turns: the agent stopped at its own turn cap (claude error_max_turns, gemini exit 53);
 * - budget: the agent stopped at its own dollar cap (claude error_max_budget_usd);
 * - input_error / auth_error: the agent refused its input or its credentials (gemini exit 42 / 41);
 * - error: anything else the agent reported as a failure.
 */
export type AgentFailureKind =
  'api_error' | 'usage_limit' | 'max_turns' | 'budget' | 'input_error' | 'auth_error' | 'error'

export interface AgentFailure {
  kind: AgentFailureKind
  /** One line for people, from the agent's own words where it gave any. */
  message: string
  /** Usage limits: when the limit lifts (epoch ms), when the agent said. */
  resetsAt?: number
}

/** A tool call the agent was not allowed to make (claude `permission_denials`, opencode rejections). */
export interface PermissionDenial {
  tool: string
  /** What it tried: a path, a command (one line). */
  detail?: string
}

/** What a preset learnt from one agent run. */
export interface AgentOutcome {
  /** The agent's final message, read by the completion rule; undefined = the agent gave none. */
  finalMessage?: string
  /** The run's usage as its output told it; undefined = the output said nothing about usage. */
  usage?: UsageReport
  /** The agent said the run failed even if its exit code may not (claude's `is_error`). */
  isError?: boolean
  /** Why the run failed, when the agent's output or exit code says. */
  failure?: AgentFailure
  /** Tool calls that were denied in this run. */
  permissionDenials?: PermissionDenial[]
  /** API retries the agent reported (claude `system/api_retry`, codex "Reconnecting..."). */
  apiRetries?: number
  /** Lines worth a place in the record (e.g. an oversized stream line that was dropped). */
  notes: string[]
}

/** The normalised events every preset turns its agent's output into. */
export type AgentEvent =
  | { kind: 'text'; text: string }
  | { kind: 'tool_call'; name: string; detail: string }
  | { kind: 'tool_result'; ok: boolean; detail: string }
  /** Cumulative for the run. */
  | { kind: 'usage'; usage: UsageReport }
  | { kind: 'result'; text?: string; isError: boolean; summary: string }
  | { kind: 'error'; message: string }
  /** Session start, retries, rate-limit notices: transcript only. */
  | { kind: 'notice'; message: string }

export interface AgentRunHooks {
  /** The stream revealed new usage for the run in flight (cumulative). */
  onUsage(usage: UsageReport): void
  /** A line of readable transcript (JSON-stream presets only; it goes to agent.log). */
  onTranscript(line: string): void
  /** Every normalised event, in order (optional). */
  onEvent?(event: AgentEvent): void
}

/** Where and how the agent runs, for presets that read its configuration (codex's config.toml). */
export interface AgentRunContext {
  /** The argv actually run (preset flags included). */
  argv: string[]
  /** The agent's environment (scrubbed). */
  env: NodeJS.ProcessEnv
  cwd: string
}

/** How the agent's process ended. */
export interface AgentExit {
  code: number | null
  signal: string | null
  /** The loop killed it (time, money, cancel, or its own timeout). */
  killed: boolean
}

/** Reads one agent run's output as it arrives. */
export interface AgentRunReader {
  /** Variables the run needs on top of the agent's environment (e.g. the generic cost file's path). */
  readonly env?: Record<string, string>
  stdout(chunk: Buffer): void
  stderr(chunk: Buffer): void
  /** The process is gone; `stdoutText` is the bounded capture of its stdout (head and tail), decoded. */
  finish(stdoutText: string, exit?: AgentExit): AgentOutcome
}

/** Caps the loop passes to an agent that can enforce them itself (claude). */
export interface AgentCaps {
  /** Dollars left in the loop's budget. */
  remainingUsd?: number
  /** Turns one run may take. */
  maxTurns?: number
}

export interface AgentPreset {
  readonly name: string
  /**
   * True when stdout is a JSON stream: it is kept raw as agent.jsonl and agent.log holds the readable
   * transcript; otherwise agent.log holds stdout and stderr as they arrived.
   */
  readonly jsonStream: boolean
  /** The command line to run: the user's argv plus what machine-readable output and `caps` need. */
  argv(userArgv: string[], caps?: AgentCaps): string[]
  /** A reader for one run; `prompt` is what was piped in (so an echo of it is not taken for an answer). */
  read(prompt: string, hooks: AgentRunHooks, context?: AgentRunContext): AgentRunReader
}
