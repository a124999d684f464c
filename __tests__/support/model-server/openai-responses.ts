// A scripted OpenAI Responses API on loopback, for driving the real Codex CLI offline.
//
// Codex 0.169.0, pointed here by a custom provider in $CODEX_HOME/config.toml (wire_api = "responses"), calls only
// `POST /v1/responses` (stream: true). Its shell tool is `exec_command` {cmd, workdir?, …}. Anything else is
// recorded and answered with a 404 in the API's error shape.
import { createHash } from 'node:crypto'
import type { ServerResponse } from 'node:http'
import {
  chunks,
  header,
  isClosed,
  sendJson,
  sse,
  startServer,
  startSse,
  waitUnlessClosed,
  type RecordedRequest,
  type ScriptedServer,
  type ServerOptions
} from './http.js'
import {
  AttemptCounter,
  checkTurn,
  pickTurn,
  usageOf,
  type ModelRequest,
  type Script,
  type ToolResult,
  type Turn,
  type Usage
} from './script.js'

export interface ResponsesServerOptions extends ServerOptions {
  script: Script
}

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

export async function startResponsesServer(options: ResponsesServerOptions): Promise<ScriptedServer> {
  const attempts = new AttemptCounter()
  let responseCount = 0
  return startServer(options, async (recorded, _raw, response, problems) => {
    const path = recorded.url.split('?')[0]
    if (recorded.method === 'POST' && path === '/v1/responses') {
      const request = describe(recorded, attempts)
      const picked = pickTurn(options.script, request)
      const problem = picked.problem ?? checkTurn(picked.turn, request)
      if (problem) problems.push(problem)
      recorded.answer = picked.turn.kind === 'tool' ? `tool ${picked.turn.name}` : picked.turn.kind
      if (picked.turn.kind === 'http-error') recorded.answer += ` ${picked.turn.status}`
      responseCount += 1
      await answer(response, request, picked.turn, String(responseCount).padStart(4, '0'))
      return
    }
    if (recorded.method === 'GET' && path === '/v1/models') {
      recorded.answer = 'models'
      sendJson(response, 200, {
        object: 'list',
        data: [{ id: 'gpt-6.1-sol', object: 'model', created: 0, owned_by: 'scripted' }]
      })
      return
    }
    recorded.answer = '404'
    sendJson(response, 404, {
      error: {
        message: `scripted model server: no route for ${recorded.method} ${path}`,
        type: 'invalid_request_error',
        code: 'not_found',
        param: null
      }
    })
  })
}

function describe(recorded: RecordedRequest, attempts: AttemptCounter): ModelRequest {
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
    .flatMap(item => textsOf(item.content))
  const prompt = userTexts
    .filter(value => !HARNESS_BLOCK.test(value))
    .join('\n')
    .trim()
  const cwd = userTexts
    .join('\n')
    .match(/<cwd>([^<]+)<\/cwd>/)?.[1]
    ?.trim()
  const conversationId =
    header(recorded, 'session-id') ?? createHash('sha256').update(prompt).digest('hex').slice(0, 16)
  const turn = toolResults.length
  return {
    seq: recorded.seq,
    api: 'openai-responses',
    method: recorded.method,
    path: recorded.url,
    headers: recorded.headers,
    body,
    model: String(body.model ?? ''),
    stream: body.stream === true,
    conversationId,
    turn,
    attempt: attempts.next(conversationId, turn),
    prompt,
    cwd,
    toolNames: flattenTools((body.tools ?? []) as Tool[]),
    toolResults
  }
}

function flattenTools(tools: Tool[]): string[] {
  return tools.flatMap(tool => [...(tool.name ? [tool.name] : []), ...flattenTools(tool.tools ?? [])])
}

function textsOf(content: unknown): string[] {
  if (typeof content === 'string') return [content]
  if (!Array.isArray(content)) return []
  return content
    .filter(part => typeof (part as { text?: unknown }).text === 'string')
    .map(part => (part as { text: string }).text)
}

function textOf(output: unknown): string {
  if (typeof output === 'string') return output
  return textsOf(output).join('\n')
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

async function answer(response: ServerResponse, request: ModelRequest, turn: Turn, n: string): Promise<void> {
  if (!(await waitUnlessClosed(response, turn.delayMs ?? 0))) return
  const requestId = `req_scripted_${request.seq}`
  if (turn.kind === 'http-error') {
    const headers: Record<string, string> = { 'x-request-id': requestId }
    if (turn.retry !== undefined) headers['x-should-retry'] = String(turn.retry)
    const error = {
      message: turn.message,
      type: turn.errorType,
      code: turn.errorType,
      param: null,
      ...turn.errorFields
    }
    sendJson(response, turn.status, { error }, { ...headers, ...turn.headers })
    return
  }

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
    if (!(await waitUnlessClosed(response, turn.stallMs ?? 0))) return
    if (turn.how === 'reset') response.destroy()
    else response.end()
    return
  }
  if (turn.kind === 'stream-error') {
    if (!(await waitUnlessClosed(response, turn.stallMs ?? 0))) return
    event('response.failed', {
      response: {
        ...base,
        status: 'failed',
        error: { code: turn.errorType, message: turn.message },
        usage: null
      }
    })
    response.end()
    return
  }

  let stalled = false
  const stall = async (): Promise<boolean> => {
    if (stalled) return !isClosed(response)
    stalled = true
    return waitUnlessClosed(response, turn.stallMs ?? 0)
  }
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
