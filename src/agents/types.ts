// The agent contract: how a preset turns the agent's output into a final message and usage, as it arrives.

/** What an agent's output says it used, cumulative for one run. */
export interface UsageReport {
  input: number
  output: number
  cache_read: number
  cache_write: number
  /** The model named in the stream, when it names one (for the price table). */
  model?: string
  /** Dollars the agent itself reported for the run; undefined = it gave tokens only (or nothing). */
  reportedUsd?: number
}

/** What a preset learnt from one agent run. */
export interface AgentOutcome {
  /** The agent's final message, read by the completion rule; undefined = the agent gave none. */
  finalMessage?: string
  /** The run's usage as its output told it; undefined = the output said nothing about usage. */
  usage?: UsageReport
  /** The agent said the run failed even if its exit code may not (claude's `is_error`). */
  isError?: boolean
  /** Lines worth a place in the record (e.g. an oversized stream line that was dropped). */
  notes: string[]
}

export interface AgentRunHooks {
  /** The stream revealed new usage for the run in flight (cumulative). */
  onUsage(usage: UsageReport): void
  /** A line of readable transcript (JSON-stream presets only; it goes to agent.log). */
  onTranscript(line: string): void
}

/** Reads one agent run's output as it arrives. */
export interface AgentRunReader {
  stdout(chunk: Buffer): void
  stderr(chunk: Buffer): void
  /** The process is gone; `stdoutText` is the bounded capture of its stdout (head and tail), decoded. */
  finish(stdoutText: string): AgentOutcome
}

export interface AgentPreset {
  readonly name: string
  /**
   * True when stdout is a JSON stream: it is kept raw as agent.jsonl and agent.log holds the readable
   * transcript; otherwise agent.log holds stdout and stderr as they arrived.
   */
  readonly jsonStream: boolean
  /** The command line to run: the user's argv plus what machine-readable output needs. */
  argv(userArgv: string[]): string[]
  /** A reader for one run; `prompt` is what was piped in (so an echo of it is not taken for an answer). */
  read(prompt: string, hooks: AgentRunHooks): AgentRunReader
}
