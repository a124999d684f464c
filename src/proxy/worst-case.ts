// The most tokens a model call may use, read from its body before it goes up: the bounds a body's bytes are
// read with (bytes per token, the largest input window, the vendor's own prompt, the default output limit),
// the output limit a body names or the proxy writes into it, and the worst-case usage those make. What that
// usage costs, and what a body may not ask for at all, is preauth.ts's.
import type { UsageReport } from '../agents/types.js'
import { geminiSettings, positive } from './fields.js'
import { obj, type Json, type ModelWire } from './wire.js'

/**
 * A request body's bytes per input token, at least: JSON text runs 3 to 4 bytes a token, so 3 errs high. What
 * a body holds beyond that (a crafted string) is caught when the answer reports it.
 */
export const BYTES_PER_INPUT_TOKEN = 3
/**
 * The most input one request may be billed: the largest input window the vendors sell (Claude's 1M-context
 * beta, Gemini's 1M, GPT-4.1's 1,047,576 tokens). A request carrying media is reserved at it, and no body at more.
 */
export const MAX_INPUT_TOKENS = 1_048_576
/**
 * Input the vendor adds of its own beside the body: Anthropic's tool-use system prompt is 346 tokens at most
 * (platform.claude.com, tool use pricing); 1,000 errs high.
 */
export const VENDOR_PROMPT_TOKENS = 1_000
/**
 * The output a request is reserved at, and limited to, when it names no limit (the CLIs' own defaults are 8K to
 * 32K; codex names none): the proxy writes it into the body (withOutputLimit).
 */
export const DEFAULT_MAX_OUTPUT_TOKENS = 32_000

/**
 * The output limit a request names, or undefined when it names none the meter can read. A limit named more
 * than once (chat's two fields, Gemini's two spellings) is read at its highest: whichever the API obeys.
 */
function outputLimit(wire: ModelWire, json: Json): number | undefined {
  const limitOf = (...values: unknown[]): number | undefined =>
    highest(values.filter(value => value !== undefined && value !== null))
  switch (wire) {
    case 'anthropic-messages':
      return limitOf(json.max_tokens)
    case 'openai-responses':
      return limitOf(json.max_output_tokens)
    case 'openai-chat':
      return limitOf(json.max_completion_tokens, json.max_tokens)
    case 'gemini':
      return limitOf(...geminiSettings(json, 'maxOutputTokens'))
  }
}

/** The highest of `values` when each is a positive number, else undefined. */
function highest(values: unknown[]): number | undefined {
  const counts = values.map(positive)
  return counts.length > 0 && counts.every(count => count !== undefined)
    ? Math.max(...(counts as number[]))
    : undefined
}

/**
 * The body with the output limit it was reserved at, when it names none the meter can read: without one the
 * API allows the model's whole output (128K tokens for GPT-5), far past what was reserved. Undefined when the
 * body names its own limit (then it goes up untouched).
 */
export function withOutputLimit(wire: ModelWire, body: unknown): Json | undefined {
  const json = obj(body)
  if (!json || outputLimit(wire, json) !== undefined) return undefined
  const limit = DEFAULT_MAX_OUTPUT_TOKENS
  switch (wire) {
    case 'anthropic-messages':
      return { ...json, max_tokens: limit }
    case 'openai-responses':
      return { ...json, max_output_tokens: limit }
    case 'openai-chat': {
      // OpenAI's own models take only max_completion_tokens; other chat servers know max_tokens.
      const { max_tokens: _, max_completion_tokens: __, ...rest } = json
      const openAi = typeof json.model === 'string' && /^(gpt-|o\d|chatgpt-)/.test(json.model)
      return { ...rest, [openAi ? 'max_completion_tokens' : 'max_tokens']: limit }
    }
    case 'gemini': {
      // The limit in every spelling the body uses, so that whichever the API reads, it reads this one.
      const { max_output_tokens: _, ...config } = obj(json.generationConfig) ?? {}
      const snake = obj(json.generation_config)
      return {
        ...json,
        generationConfig: { ...config, maxOutputTokens: limit },
        ...(snake
          ? { generation_config: { ...snake, maxOutputTokens: limit, max_output_tokens: limit } }
          : {})
      }
    }
  }
}

/**
 * The most a model call may use: its body's size as input (none of it cached) with the vendor's own prompt, or
 * a whole input window when it carries `media`, and its output limit (times the choices asked for) as output;
 * the model it names, else `pathModel` (Gemini's).
 */
export function worstCaseUsage(
  wire: ModelWire,
  body: unknown,
  bytes: number,
  pathModel?: string,
  media?: string
): UsageReport {
  const json = obj(body) ?? {}
  const limit = outputLimit(wire, json)
  const choices =
    wire === 'openai-chat'
      ? positive(json.n)
      : wire === 'gemini'
        ? highest(geminiSettings(json, 'candidateCount').filter(count => positive(count)))
        : 1
  // Gemini bills the model its path names (as the meter reads it); a body's `model` must not price it lower.
  const model =
    wire === 'gemini' && pathModel
      ? pathModel
      : typeof json.model === 'string' && json.model
        ? json.model
        : pathModel
  return {
    input:
      media === undefined
        ? Math.min(Math.ceil(bytes / BYTES_PER_INPUT_TOKEN) + VENDOR_PROMPT_TOKENS, MAX_INPUT_TOKENS)
        : MAX_INPUT_TOKENS,
    output: (limit ?? DEFAULT_MAX_OUTPUT_TOKENS) * (choices ?? 1),
    cache_read: 0,
    cache_write: 0,
    ...(model ? { model } : {})
  }
}
