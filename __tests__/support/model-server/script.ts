// What a scripted model server answers: a list of turns, or a function of the request.
//
// A turn is one model response. In an agent CLI's conversation the n-th request (n = tool results so far) gets
// turn n, so retries and fallback requests of the same step get the same turn again, and a fresh CLI process
// (a new conversation) starts over at turn 0. Choose by prompt with `byPrompt` (a ralph loop: iteration 1
// gets a failing edit, iteration 2 the fix).
import { isAbsolute, resolve } from 'node:path'

/** Token counts the server reports for one turn. `input` is the uncached input, as Anthropic counts it. */
export interface Usage {
  input?: number
  output?: number
  cacheRead?: number
  /** Cache writes (Anthropic: the 5-minute ones). */
  cacheWrite?: number
  /** Anthropic only: writes to the 1-hour cache (cache_creation.ephemeral_1h_input_tokens). */
  cacheWrite1h?: number
  /** Responses API only: output_tokens_details.reasoning_tokens (part of `output`). */
  reasoning?: number
}

export const DEFAULT_USAGE: Required<Usage> = {
  input: 100,
  output: 20,
  cacheRead: 0,
  cacheWrite: 0,
  cacheWrite1h: 0,
  reasoning: 0
}

export interface TurnOptions {
  /** Wait this long before answering at all (no status line yet): a slow model, for time and budget kills. */
  delayMs?: number
  /** Start the stream, send the first delta, then wait this long before the rest: a kill mid-turn. */
  stallMs?: number
  /** Extra response headers, e.g. anthropic-ratelimit-unified-* or retry-after. */
  headers?: Record<string, string>
  /**
   * Anthropic only: bill the request as the vendor does, its input counted from what it sends (a document or
   * image by URL fetched and counted), its cache writes by their breakpoints' TTL; `usage` gives the output.
   */
  billAsVendor?: true
}

/**
 * Call one of the agent's tools. Claude: `Write` {file_path, content}, `Bash` {command}; codex: `exec_command`
 * {cmd}, or the freeform `apply_patch` whose input is a string (a Responses API custom tool call).
 */
export interface ToolTurn extends TurnOptions {
  kind: 'tool'
  name: string
  input: Record<string, unknown> | string
  /** Text the model says before the call. */
  text?: string
  usage?: Usage
}

/** A final answer: the agent stops. */
export interface TextTurn extends TurnOptions {
  kind: 'text'
  text: string
  usage?: Usage
}

/** An HTTP error instead of a response. */
export interface HttpErrorTurn extends TurnOptions {
  kind: 'http-error'
  status: number
  /** Anthropic `error.type` (overloaded_error, invalid_request_error, api_error…) or OpenAI `error.code`. */
  errorType: string
  message: string
  /** false sends `x-should-retry: false`, which claude (the Anthropic SDK) obeys: no retries on 5xx/529. */
  retry?: boolean
  /** More fields of the `error` object, e.g. codex's usage limit: { resets_in_seconds: 3600 }. */
  errorFields?: Record<string, unknown>
}

/** The stream starts fine, then reports an error in-band (Anthropic `error` event, OpenAI `response.failed`). */
export interface StreamErrorTurn extends TurnOptions {
  kind: 'stream-error'
  errorType: string
  message: string
  usage?: Usage
}

/** The stream starts, sends part of a text, then stops without its closing events. */
export interface AbruptEndTurn extends TurnOptions {
  kind: 'abrupt-end'
  /** 'end': the response ends cleanly at the HTTP level; 'reset': the connection is destroyed. */
  how: 'end' | 'reset'
  partialText: string
  usage?: Usage
}

/** Options of the tool-call builders: timing, headers, usage, and text said before the call. */
export type ToolOptions = TurnOptions & { usage?: Usage; text?: string }

export type Turn = ToolTurn | TextTurn | HttpErrorTurn | StreamErrorTurn | AbruptEndTurn

/** What the server knows about a request, for scripts that choose by content. */
export interface ModelRequest {
  /** 0-based position among all requests this server answered. */
  seq: number
  api: 'anthropic-messages' | 'openai-responses' | 'gemini' | 'openai-chat'
  method: string
  path: string
  headers: Record<string, string | string[] | undefined>
  /** The parsed JSON body. */
  body: Record<string, unknown>
  model: string
  stream: boolean
  /** The CLI's session id (claude `x-claude-code-session-id`, codex `session-id`), else derived from the prompt. */
  conversationId: string
  /** Tool results already in the conversation: 0 for the first request of a CLI run. */
  turn: number
  /** Earlier requests seen for the same conversation and turn (the CLI's retries and fallbacks). */
  attempt: number
  /** The user's prompt, without the harness's reminders and environment blocks. */
  prompt: string
  /** The agent's working directory, as the CLI told the model. */
  cwd: string | undefined
  /** Names of the tools the CLI offered (codex namespaces flattened). */
  toolNames: string[]
  /** Outputs of earlier tool calls in this conversation, in order. */
  toolResults: ToolResult[]
}

export interface ToolResult {
  output: string
  isError: boolean
}

export type TurnSource = Turn | ((request: ModelRequest) => Turn)

/** Turns by conversation position, or a function choosing the turn from the whole request. */
export type Script = TurnSource[] | ((request: ModelRequest) => Turn)

export const SCRIPT_EXHAUSTED = 'scripted model server: the script has no turn for this request'

/** Picks the turn for a request. Returns `problem` when the script had nothing and a fallback was used. */
export function pickTurn(script: Script, request: ModelRequest): { turn: Turn; problem?: string } {
  if (typeof script === 'function') return { turn: script(request) }
  const source = script[request.turn]
  if (source === undefined) {
    const problem = `request ${request.seq} (turn ${request.turn}) is past the end of a ${script.length}-turn script`
    return { turn: text(SCRIPT_EXHAUSTED), problem }
  }
  return { turn: typeof source === 'function' ? source(request) : source }
}

/** Chooses a list of turns by the prompt: the first case whose pattern matches the prompt wins. */
export function byPrompt(
  cases: Array<[RegExp | string, TurnSource[]]>,
  otherwise: TurnSource[] = []
): Script {
  return (request: ModelRequest): Turn => {
    const match = cases.find(([pattern]) =>
      typeof pattern === 'string' ? request.prompt.includes(pattern) : pattern.test(request.prompt)
    )
    const turns = match ? match[1] : otherwise
    const { turn } = pickTurn(turns, request)
    return turn
  }
}

/** The same turn for every request. */
export function always(turn: Turn): Script {
  return () => turn
}

// ---- turn builders ----

export function text(value: string, options: TurnOptions & { usage?: Usage } = {}): TextTurn {
  return { kind: 'text', text: value, ...options }
}

export function toolCall(
  name: string,
  input: Record<string, unknown> | string,
  options: ToolOptions = {}
): ToolTurn {
  return { kind: 'tool', name, input, ...options }
}

/** Claude's `Write` tool. A relative path is resolved against the agent's working directory. */
export function claudeWrite(filePath: string, content: string, options: ToolOptions = {}): TurnSource {
  return (request: ModelRequest) =>
    toolCall('Write', { file_path: inCwd(request, filePath), content }, options)
}

/** Claude's `Read` tool (claude refuses to Write over a file it has not Read in the same session). */
export function claudeRead(filePath: string, options: ToolOptions = {}): TurnSource {
  return (request: ModelRequest) => toolCall('Read', { file_path: inCwd(request, filePath) }, options)
}

/** Claude's `Bash` tool. */
export function claudeBash(command: string, options: ToolOptions = {}): ToolTurn {
  return toolCall('Bash', { command, description: 'Run a scripted command' }, options)
}

/** Codex's shell tool (`exec_command` {cmd}), run in the agent's working directory. */
export function codexExec(cmd: string, options: ToolOptions = {}): ToolTurn {
  return toolCall('exec_command', { cmd }, options)
}

/** Codex's freeform `apply_patch` tool with a patch in its own format (shown as a file_change item). */
export function codexApplyPatch(patch: string, options: ToolOptions = {}): ToolTurn {
  return toolCall('apply_patch', patch, options)
}

/** A codex `apply_patch` that creates a file (path relative to the agent's working directory). */
export function codexAddFile(path: string, content: string, options: ToolOptions = {}): ToolTurn {
  const lines = content.replace(/\n$/, '').split('\n')
  const patch = [
    '*** Begin Patch',
    `*** Add File: ${path}`,
    ...lines.map(line => `+${line}`),
    '*** End Patch'
  ].join('\n')
  return codexApplyPatch(patch, options)
}

export function httpError(
  status: number,
  errorType: string,
  options: TurnOptions & { message?: string; retry?: boolean; errorFields?: Record<string, unknown> } = {}
): HttpErrorTurn {
  const { message = `scripted ${errorType}`, ...rest } = options
  return { kind: 'http-error', status, errorType, message, ...rest }
}

export function streamError(
  errorType: string,
  options: TurnOptions & { message?: string; usage?: Usage } = {}
): StreamErrorTurn {
  const { message = `scripted ${errorType}`, ...rest } = options
  return { kind: 'stream-error', errorType, message, ...rest }
}

export function abruptEnd(
  how: 'end' | 'reset' = 'end',
  options: TurnOptions & { partialText?: string; usage?: Usage } = {}
): AbruptEndTurn {
  const { partialText = 'I will now edit the fi', ...rest } = options
  return { kind: 'abrupt-end', how, partialText, ...rest }
}

function inCwd(request: ModelRequest, filePath: string): string {
  if (isAbsolute(filePath)) return filePath
  if (request.cwd === undefined) throw new Error(`no working directory in the request to resolve ${filePath}`)
  return resolve(request.cwd, filePath)
}

export function usageOf(turn: Turn): Required<Usage> {
  return { ...DEFAULT_USAGE, ...('usage' in turn ? turn.usage : undefined) }
}

/** Counts requests per conversation step, so a script can tell a first try from the CLI's retries. */
export class AttemptCounter {
  private readonly seen = new Map<string, number>()

  next(conversationId: string, turn: number): number {
    const key = `${conversationId}#${turn}`
    const attempt = this.seen.get(key) ?? 0
    this.seen.set(key, attempt + 1)
    return attempt
  }
}

/** Checks a chosen turn against the request: a tool the CLI did not offer is a broken test, not a model choice. */
export function checkTurn(turn: Turn, request: ModelRequest): string | undefined {
  if (turn.kind === 'text' && turn.text === SCRIPT_EXHAUSTED)
    return `request ${request.seq} (turn ${request.turn}) is past the end of its script`
  if (turn.kind !== 'tool' || request.toolNames.includes(turn.name)) return undefined
  return `request ${request.seq}: the script calls tool ${turn.name}, which the CLI did not offer (it offered ${request.toolNames.join(', ')})`
}
