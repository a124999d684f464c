// A scripted OpenAI Responses API on loopback, for driving the real Codex CLI offline.
//
// Codex 0.169.0, pointed here by a custom provider in $CODEX_HOME/config.toml (wire_api = "responses"), calls only
// `POST /v1/responses` (stream: true). Its shell tool is `exec_command` {cmd, workdir?, …}. Anything else is
// recorded and answered with a 404 in the API's error shape.
import {
  startModelServer,
  textParts,
  type Answer,
  type ModelApi,
  type ModelServerOptions,
  type RequestFacts
} from './api.js'
import { chunks, header, sendJson, sse, startSse, type RecordedRequest, type ScriptedServer } from './http.js'
import { usageOf, type HttpErrorTurn, type ToolResult, type Usage } from './script.js'

export type ResponsesServerOptions = ModelServerOptions

interface InputItem {
  type?: string
  role?: string
  content?: unknown
  output?: unknown
}

interface Tool {
  type?: string
  name?: string
  tools?: Tool[]
}

// Blocks codex adds to the user's turn; the prompt is what is left.
const HARNESS_BLOCK =
  /^\s*(<(environment_context|user_instructions|skills_instructions|turn_aborted)[\s>]|# AGENTS\.md)/

/** An OpenAI API error body (the Responses and Chat Completions APIs share it). */
export function openAiError(turn: Pick<HttpErrorTurn, 'message' | 'errorType' | 'errorFields'>): {
  error: Record<string, unknown>
} {
  return {
    error: {
      message: turn.message,
      type: turn.errorType,
      code: turn.errorType,
      param: null,
      ...turn.errorFields
    }
  }
}

/** OpenAI's 404 body. */
export function openAiNotFound(method: string, path: string): unknown {
  return {
    error: {
      message: `scripted model server: no route for ${method} ${path}`,
      type: 'invalid_request_error',
      code: 'not_found',
      param: null
    }
  }
}

/** What the OpenAI APIs share: their error shapes, and a models list naming `model`. */
export function openAiRoutes(model: string): Pick<ModelApi, 'errorBody' | 'other' | 'notFound'> {
  return {
    errorBody: turn => ({ body: openAiError(turn), requestIdHeader: 'x-request-id' }),
    other(recorded, response, path) {
      if (recorded.method !== 'GET' || path !== '/v1/models') return undefined
      sendJson(response, 200, {
        object: 'list',
        data: [{ id: model, object: 'model', created: 0, owned_by: 'scripted' }]
      })
      return 'models'
    },
    notFound: openAiNotFound
  }
}

const responsesApi: ModelApi = {
  isModelCall: (method, path) => method === 'POST' && path === '/v1/responses',
  describe,
  ...openAiRoutes('gpt-6.1-sol'),
  answer
}

export function startResponsesServer(options: ResponsesServerOptions): Promise<ScriptedServer> {
  return startModelServer(responsesApi, options)
}

function describe(recorded: RecordedRequest): RequestFacts {
  const body = (recorded.body ?? {}) as Record<string, unknown>
  const input = (Array.isArray(body.input) ? body.input : []) as InputItem[]
  const toolResults: ToolResult[] = input
    .filter(item => item.type === 'function_call_output' || item.type === 'custom_tool_call_output')
    .map(item => {
      const output = textOf(item.output)
      const exit = output.match(/Process exited with code (\d+)/)
      return { output, isError: exit !== null && exit[1] !== '0' }
    })
  const userTexts = input
    .filter(item => item.type === 'message' && item.role === 'user')
    .flatMap(item => textParts(item.content))
  const prompt = userTexts
    .filter(value => !HARNESS_BLOCK.test(value))
    .join('\n')
    .trim()
  const cwd = userTexts
    .join('\n')
    .match(/<cwd>([^<]+)<\/cwd>/)?.[1]
    ?.trim()
  return {
    api: 'openai-responses',
    model: String(body.model ?? ''),
    stream: body.stream === true,
    prompt,
    cwd,
    toolNames: flattenTools((body.tools ?? []) as Tool[]),
    toolResults,
    sessionId: header(recorded, 'session-id')
  }
}

function flattenTools(tools: Tool[]): string[] {
  return tools.flatMap(tool => [...(tool.name ? [tool.name] : []), ...flattenTools(tool.tools ?? [])])
}

function textOf(output: unknown): string {
  if (typeof output === 'string') return output
  return textParts(output).join('\n')
}

function wireUsage(usage: Required<Usage>): Record<string, unknown> {
  // OpenAI counts cached tokens inside input_tokens; our Usage.input is the uncached part.
  const input = usage.input + usage.cacheRead
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: usage.cacheRead },
    output_tokens: usage.output,
    output_tokens_details: { reasoning_tokens: usage.reasoning },
    total_tokens: input + usage.output
  }
}

async function answer({
  response,
  request,
  turn,
  n: count,
  requestId,
  stall,
  breakOff,
  failInBand
}: Answer): Promise<void> {
  const n = String(count).padStart(4, '0')
  let sequence = 0
  const event = (type: string, data: Record<string, unknown>): void =>
    sse(response, type, { ...data, sequence_number: sequence++ })
  const base = {
    id: `resp_scripted_${n}`,
    object: 'response',
    created_at: Math.floor(Date.now() / 1000),
    model: request.model,
    output: [] as unknown[]
  }
  startSse(response, { 'x-request-id': requestId, ...turn.headers })
  event('response.created', { response: { ...base, status: 'in_progress' } })
  event('response.in_progress', { response: { ...base, status: 'in_progress' } })

  if (turn.kind === 'abrupt-end') {
    const item = {
      type: 'message',
      id: `msg_scripted_${n}`,
      role: 'assistant',
      status: 'in_progress',
      content: []
    }
    event('response.output_item.added', { output_index: 0, item })
    event('response.output_text.delta', {
      item_id: item.id,
      output_index: 0,
      content_index: 0,
      delta: turn.partialText
    })
    return breakOff()
  }
  if (turn.kind === 'stream-error')
    return failInBand(() =>
      event('response.failed', {
        response: {
          ...base,
          status: 'failed',
          error: { code: turn.errorType, message: turn.message },
          usage: null
        }
      })
    )

  const output: Array<Record<string, unknown>> = []
  const say = turn.text
  if (say) {
    const index = output.length
    const id = `msg_scripted_${n}`
    event('response.output_item.added', {
      output_index: index,
      item: { type: 'message', id, role: 'assistant', status: 'in_progress', content: [] }
    })
    event('response.content_part.added', {
      item_id: id,
      output_index: index,
      content_index: 0,
      part: { type: 'output_text', text: '', annotations: [] }
    })
    for (const part of chunks(say)) {
      event('response.output_text.delta', { item_id: id, output_index: index, content_index: 0, delta: part })
      if (!(await stall())) return
    }
    event('response.output_text.done', { item_id: id, output_index: index, content_index: 0, text: say })
    const content = [{ type: 'output_text', text: say, annotations: [] }]
    event('response.content_part.done', {
      item_id: id,
      output_index: index,
      content_index: 0,
      part: content[0]
    })
    const item = { type: 'message', id, role: 'assistant', status: 'completed', content }
    event('response.output_item.done', { output_index: index, item })
    output.push(item)
  }
  if (turn.kind === 'tool' && typeof turn.input === 'string') {
    // A freeform (custom) tool such as apply_patch: the input is raw text, not JSON arguments.
    const index = output.length
    const id = `ctc_scripted_${n}`
    const item = {
      type: 'custom_tool_call',
      id,
      call_id: `call_scripted_${n}`,
      name: turn.name,
      input: turn.input
    }
    event('response.output_item.added', {
      output_index: index,
      item: { ...item, input: '', status: 'in_progress' }
    })
    for (const part of chunks(turn.input, 40)) {
      event('response.custom_tool_call_input.delta', { item_id: id, output_index: index, delta: part })
      if (!(await stall())) return
    }
    event('response.custom_tool_call_input.done', { item_id: id, output_index: index, input: turn.input })
    event('response.output_item.done', { output_index: index, item: { ...item, status: 'completed' } })
    output.push({ ...item, status: 'completed' })
  } else if (turn.kind === 'tool') {
    const index = output.length
    const id = `fc_scripted_${n}`
    const args = JSON.stringify(turn.input)
    const item = {
      type: 'function_call',
      id,
      call_id: `call_scripted_${n}`,
      name: turn.name,
      arguments: args
    }
    event('response.output_item.added', {
      output_index: index,
      item: { ...item, arguments: '', status: 'in_progress' }
    })
    for (const part of chunks(args, 40)) {
      event('response.function_call_arguments.delta', { item_id: id, output_index: index, delta: part })
      if (!(await stall())) return
    }
    event('response.function_call_arguments.done', { item_id: id, output_index: index, arguments: args })
    event('response.output_item.done', { output_index: index, item: { ...item, status: 'completed' } })
    output.push({ ...item, status: 'completed' })
  }
  event('response.completed', {
    response: { ...base, status: 'completed', output, usage: wireUsage(usageOf(turn)) }
  })
  response.end()
}
