// A scripted OpenAI Chat Completions API on loopback, for driving qwen-code and opencode (its
// openai-compatible provider) offline.
//
// Both call `POST /v1/chat/completions` with `stream: true`: `chat.completion.chunk` events, tool calls as
// `delta.tool_calls[{index, id, type: "function", function: {name, arguments}}]` and `finish_reason:
// "tool_calls"`, then (with `stream_options.include_usage`) a chunk with `choices: []` and the usage, then
// `data: [DONE]`. A request with `stream: false` gets a whole `chat.completion`. A turn is the number of
// `role: "tool"` messages so far.
import {
  startModelServer,
  textParts,
  type Answer,
  type ModelApi,
  type ModelServerOptions,
  type RequestFacts
} from './api.js'
import {
  chunks,
  header,
  isClosed,
  sendJson,
  startSse,
  type RecordedRequest,
  type ScriptedServer
} from './http.js'
import { openAiError, openAiRoutes } from './openai-responses.js'
import { text, usageOf, type ModelRequest, type ToolResult, type Turn } from './script.js'

export type ChatServerOptions = ModelServerOptions

interface Message {
  role?: string
  content?: unknown
  tool_call_id?: string
}

interface Tool {
  function?: { name?: string }
}

// Blocks a CLI adds to the user's turn (qwen's environment context, reminders); the prompt is what is left.
const HARNESS_BLOCK = /^\s*(<system-reminder>|This is the Qwen Code|<session_context>|<environment_context>)/

const chatApi: ModelApi = {
  isModelCall: (method, path) => method === 'POST' && path === '/v1/chat/completions',
  describe,
  cannotSay: (turn, request) =>
    turn.kind === 'tool' && typeof turn.input === 'string'
      ? `request ${request.seq}: a freeform tool input (${turn.name}) has no Chat Completions form`
      : undefined,
  // opencode first asks its small model for the session's title, with no tools.
  sideRequest: request =>
    request.toolNames.length === 0 && /^You are a title generator/.test(systemText(request))
      ? { name: 'title', turn: text('Scripted title', { usage: { input: 0, output: 0 } }) }
      : undefined,
  ...openAiRoutes('qwen3-coder-plus'),
  answer
}

export function startChatServer(options: ChatServerOptions): Promise<ScriptedServer> {
  return startModelServer(chatApi, options)
}

function systemText(request: ModelRequest): string {
  const messages = (Array.isArray(request.body.messages) ? request.body.messages : []) as Message[]
  return messages
    .filter(message => message.role === 'system')
    .flatMap(message => textParts(message.content))
    .join('\n')
}

function describe(recorded: RecordedRequest): RequestFacts {
  const body = (recorded.body ?? {}) as Record<string, unknown>
  const messages = (Array.isArray(body.messages) ? body.messages : []) as Message[]
  const toolResults: ToolResult[] = messages
    .filter(message => message.role === 'tool')
    .map(message => {
      const output = textParts(message.content).join('\n')
      return { output, isError: /\b(error|exit code: [1-9])/i.test(output) }
    })
  const userTexts = messages.filter(message => message.role === 'user').flatMap(m => textParts(m.content))
  const prompt = userTexts
    .filter(value => !HARNESS_BLOCK.test(value))
    .map(value => value.replace(/<system-reminder>[\s\S]*?<\/system-reminder>/g, ''))
    .join('\n')
    .trim()
  const system = messages.filter(message => message.role === 'system').flatMap(m => textParts(m.content))
  // qwen says it in the user turn's context, opencode in its system prompt's <env> block.
  const cwd = [...userTexts, ...system]
    .join('\n')
    .match(/^\s*(?:I'm currently working in the directory|Working directory): (\/\S+)$/m)?.[1]
  return {
    api: 'openai-chat',
    model: String(body.model ?? ''),
    stream: body.stream === true,
    prompt,
    cwd,
    toolNames: ((body.tools ?? []) as Tool[]).map(tool => String(tool.function?.name)),
    toolResults,
    sessionId: header(recorded, 'x-session-id')
  }
}

function wireUsage(turn: Turn): Record<string, unknown> {
  // prompt_tokens counts the cached tokens too; completion_tokens counts the reasoning ones.
  const usage = usageOf(turn)
  const prompt = usage.input + usage.cacheRead
  return {
    prompt_tokens: prompt,
    completion_tokens: usage.output,
    total_tokens: prompt + usage.output,
    prompt_tokens_details: { cached_tokens: usage.cacheRead },
    completion_tokens_details: { reasoning_tokens: usage.reasoning }
  }
}

async function answer({
  response,
  request,
  turn,
  n,
  requestId,
  stall,
  breakOff,
  failInBand
}: Answer): Promise<void> {
  const id = `chatcmpl-scripted-${String(n).padStart(4, '0')}`
  const created = Math.floor(Date.now() / 1000)
  const toolCall =
    turn.kind === 'tool'
      ? {
          id: `call_scripted_${n}`,
          type: 'function',
          function: { name: turn.name, arguments: JSON.stringify(turn.input) }
        }
      : undefined
  const say =
    turn.kind === 'text' || turn.kind === 'tool'
      ? turn.text
      : turn.kind === 'abrupt-end'
        ? turn.partialText
        : undefined
  const finish = turn.kind === 'tool' ? 'tool_calls' : 'stop'

  if (!request.stream) {
    if (turn.kind === 'stream-error') {
      sendJson(response, 500, openAiError(turn), { 'x-request-id': requestId })
      return
    }
    const message = {
      role: 'assistant',
      content: say ?? null,
      ...(toolCall ? { tool_calls: [toolCall] } : {})
    }
    sendJson(
      response,
      200,
      {
        id,
        object: 'chat.completion',
        created,
        model: request.model,
        choices: [{ index: 0, message, finish_reason: finish }],
        usage: wireUsage(turn)
      },
      { 'x-request-id': requestId }
    )
    return
  }

  startSse(response, { 'x-request-id': requestId, ...turn.headers })
  const send = (data: unknown): void => {
    if (!isClosed(response))
      response.write(`data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`)
  }
  const chunk = (delta: Record<string, unknown>, finishReason: string | null = null) =>
    send({
      id,
      object: 'chat.completion.chunk',
      created,
      model: request.model,
      choices: [{ index: 0, delta, finish_reason: finishReason }]
    })
  chunk({ role: 'assistant', content: '' })
  if (turn.kind === 'abrupt-end') {
    chunk({ content: turn.partialText })
    return breakOff()
  }
  if (turn.kind === 'stream-error') return failInBand(() => send(openAiError(turn)))
  for (const piece of say ? chunks(say) : []) {
    chunk({ content: piece })
    if (!(await stall())) return
  }
  if (toolCall) {
    const args = toolCall.function.arguments
    chunk({
      tool_calls: [
        {
          index: 0,
          id: toolCall.id,
          type: 'function',
          function: { name: toolCall.function.name, arguments: '' }
        }
      ]
    })
    for (const piece of chunks(args, 40)) {
      chunk({ tool_calls: [{ index: 0, function: { arguments: piece } }] })
      if (!(await stall())) return
    }
  }
  chunk({}, finish)
  send({
    id,
    object: 'chat.completion.chunk',
    created,
    model: request.model,
    choices: [],
    usage: wireUsage(turn)
  })
  send('[DONE]')
  response.end()
}
