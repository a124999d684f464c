// The versioned price table: list prices in USD per million tokens, each row with the day it was read and
// where. It prices what agents report in tokens only (codex, gemini, claude's per-turn usage while a run
// is still going); a dollar figure the agent reports itself always wins over it.
//
// Keep it honest: `verified: 'official'` only for a price read on the vendor's own page; 'third-party' for a
// secondary source that quotes the vendor; 'unverified' for anything else. Where two sources disagree the
// higher price is kept (an estimate that errs high stops a budget early, never late) and the row says so.
// Update: add or change rows, bump PRICE_TABLE_VERSION, and run `npm test -- __tests__/agents/prices`.
import type { UsageReport } from './types.js'

export const PRICE_TABLE_VERSION = '2026-11-28'

export interface ModelPrice {
  /** Model ids after normalisation (see normaliseModelId): no provider prefix, date suffix or `[1m]`. */
  models: string[]
  /** USD per million tokens. */
  input: number
  output: number
  cache_read: number
  /** Writing the prompt cache (Anthropic's 5-minute write; 0 where the vendor does not charge it). */
  cache_write: number
  /**
   * Writing Anthropic's 1-hour prompt cache (2× input). A row without it is charged 2× its input for an hour's
   * write (no other vendor bills one): never less than its own write.
   */
  cache_write_1h?: number
  /**
   * The rates of a request whose prompt (its input, cache reads and cache writes) is over `above` tokens: the
   * whole request is billed at them (a 1-hour write, absent, at 2× their input).
   */
  longContext?: LongContextRates
  /** When the price was read (YYYY-MM-DD). */
  date: string
  source: string
  verified: 'official' | 'third-party' | 'unverified'
  note?: string
}

/** A model's rates above a prompt size (Anthropic's 1M-context beta, Gemini's and GPT-5.4's long prompts). */
export interface LongContextRates {
  above: number
  input: number
  output: number
  cache_read: number
  cache_write: number
  cache_write_1h?: number
}

const ANTHROPIC_PRICING = 'https://platform.claude.com/docs/en/about-claude/pricing'
const ANTHROPIC_PRICING_ZH = 'https://platform.claude.com/docs/zh-CN/about-claude/pricing'
const OPENAI_QUOTED =
  'https://tokenmix.ai/blog/openai-api-cost-2026-gpt-5-5-5-4-nano-batch (quoting developers.openai.com/api/docs/pricing)'
const GPT_LONG_CONTEXT =
  'https://developers.openai.com/api/docs/models/gpt-5.4: "prompts with >272K input tokens are priced at 2x input and 1.5x output"'
const GEMINI_QUOTED =
  'https://deploybase.ai/articles/gemini-api-pricing (quoting ai.google.dev/gemini-api/docs/pricing)'

export const PRICE_TABLE: ModelPrice[] = [
  // Anthropic. Cache write = the 5-minute write (claude's default, 1.25× input); cache_write_1h = the 1-hour
  // write, 2× input on every model (the pricing page's prompt-caching multipliers, read 2026-11-28).
  {
    models: ['claude-fable-5-1', 'claude-mythos-5-1'],
    input: 10,
    output: 50,
    cache_read: 0.25,
    cache_write: 12.5,
    cache_write_1h: 20,
    date: '2026-11-26',
    source: ANTHROPIC_PRICING,
    verified: 'official'
  },
  {
    models: ['claude-fable-5', 'claude-mythos-5'],
    input: 10,
    output: 50,
    cache_read: 1,
    cache_write: 12.5,
    cache_write_1h: 20,
    date: '2026-11-26',
    source: ANTHROPIC_PRICING,
    verified: 'official'
  },
  {
    models: ['claude-opus-5-5'],
    input: 4,
    output: 20,
    cache_read: 0.2,
    cache_write: 5,
    cache_write_1h: 8,
    date: '2026-11-26',
    source: 'https://platform.claude.com/docs/zh-CN/models/opus-5-5/overview',
    verified: 'official'
  },
  {
    models: ['claude-opus-5', 'claude-opus-4-8', 'claude-opus-4-7', 'claude-opus-4-6', 'claude-opus-4-5'],
    input: 5,
    output: 25,
    cache_read: 0.5,
    cache_write: 6.25,
    cache_write_1h: 10,
    date: '2026-11-26',
    source: ANTHROPIC_PRICING,
    verified: 'official'
  },
  {
    models: ['claude-opus-4-1', 'claude-opus-4', 'claude-opus-4-0', 'claude-3-opus'],
    input: 15,
    output: 75,
    cache_read: 1.5,
    cache_write: 18.75,
    cache_write_1h: 30,
    date: '2026-11-26',
    source: ANTHROPIC_PRICING,
    verified: 'official'
  },
  {
    models: ['claude-sonnet-5-5'],
    input: 2,
    output: 10,
    cache_read: 0.2,
    cache_write: 2.5,
    cache_write_1h: 4,
    date: '2026-11-26',
    source: 'https://platform.claude.com/docs/zh-CN/models/sonnet-5-5/overview',
    verified: 'official',
    note:
      'Third parties (github.com/kurofune/claudit v1.9.2, github.com/TheKrush/PromptFuel v1.0.23) report a cache-read cut ' +
      'to $0.10 on 2026-10-07, not seen on the official page we read: the higher price is kept.'
  },
  {
    models: ['claude-sonnet-5'],
    input: 2,
    output: 10,
    cache_read: 0.2,
    cache_write: 2.5,
    cache_write_1h: 4,
    date: '2026-11-26',
    source: 'https://platform.claude.com/docs/zh-CN/models/sonnet-5/overview',
    verified: 'official'
  },
  {
    models: [
      'claude-sonnet-4-6',
      'claude-sonnet-4-5',
      'claude-sonnet-4',
      'claude-sonnet-4-0',
      'claude-3-7-sonnet'
    ],
    input: 3,
    output: 15,
    cache_read: 0.3,
    cache_write: 3.75,
    cache_write_1h: 6,
    longContext: {
      above: 200_000,
      input: 6,
      output: 22.5,
      cache_read: 0.6,
      cache_write: 7.5,
      cache_write_1h: 12
    },
    date: '2026-11-26',
    source: ANTHROPIC_PRICING_ZH,
    verified: 'official',
    note:
      'Prompts over 200K input tokens (1M-context beta) cost $6 / $22.50 on Sonnet 4 and 4.5, the cache at the same ' +
      'multipliers; the whole row is priced so (a third party reports Sonnet 4.6 flat: the higher price is kept). ' +
      'Claude Code 2.1.332 prices claude-sonnet-4-5 at exactly the base rates (checked against its ' +
      'total_cost_usd in the live tests).'
  },
  {
    models: ['claude-haiku-5-5'],
    input: 0.1,
    output: 0.5,
    cache_read: 0.01,
    cache_write: 0.125,
    cache_write_1h: 0.2,
    longContext: {
      above: 100_000,
      input: 0.5,
      output: 2.5,
      cache_read: 0.05,
      cache_write: 0.625,
      cache_write_1h: 1
    },
    date: '2026-11-26',
    source: 'https://platform.claude.com/docs/about-claude/models/whats-new-opus-5 ("From $0.10 / $0.50")',
    verified: 'third-party',
    note:
      'Prompts over 100K tokens cost $0.50 / $2.50 (cache $0.05 read, $0.625 write) per github.com/kurofune/claudit ' +
      'v1.9.2; the cache rates are third-party only.'
  },
  {
    models: ['claude-haiku-4-5'],
    input: 1,
    output: 5,
    cache_read: 0.1,
    cache_write: 1.25,
    cache_write_1h: 2,
    date: '2026-11-26',
    source: ANTHROPIC_PRICING_ZH,
    verified: 'official'
  },
  {
    models: ['claude-3-5-haiku'],
    input: 0.8,
    output: 4,
    cache_read: 0.08,
    cache_write: 1,
    cache_write_1h: 1.6,
    date: '2026-11-26',
    source: ANTHROPIC_PRICING_ZH,
    verified: 'official'
  },
  // OpenAI: no charge for cache writes. Standard tier; the 1.05M-window models' prompts over 272K tokens are
  // billed at 2× input and 1.5× output (GPT_LONG_CONTEXT).
  {
    models: ['gpt-5.5'],
    input: 5,
    output: 30,
    cache_read: 0.5,
    cache_write: 0,
    longContext: { above: 272_000, input: 10, output: 45, cache_read: 1, cache_write: 0 },
    date: '2026-11-26',
    source: OPENAI_QUOTED,
    verified: 'third-party',
    note:
      'The same in https://www.morphllm.com/openai-api-pricing (June 2026); the official page itself was not in reach. ' +
      `The long-context rates are GPT-5.4's rule (${GPT_LONG_CONTEXT}) applied without a source of gpt-5.5's own.`
  },
  {
    models: ['gpt-5.5-pro', 'gpt-5.4-pro'],
    input: 30,
    output: 180,
    cache_read: 30,
    cache_write: 0,
    longContext: { above: 272_000, input: 60, output: 270, cache_read: 60, cache_write: 0 },
    date: '2026-11-26',
    source: OPENAI_QUOTED,
    verified: 'third-party',
    note: `No cached-input discount is listed: cached tokens are priced as input. Long context: ${GPT_LONG_CONTEXT}.`
  },
  {
    models: ['gpt-5.4'],
    input: 2.5,
    output: 15,
    cache_read: 0.25,
    cache_write: 0,
    longContext: { above: 272_000, input: 5, output: 22.5, cache_read: 0.5, cache_write: 0 },
    date: '2026-11-26',
    source: OPENAI_QUOTED,
    verified: 'third-party',
    note: `Long context: ${GPT_LONG_CONTEXT}.`
  },
  {
    models: ['gpt-5.4-mini'],
    input: 0.75,
    output: 4.5,
    cache_read: 0.075,
    cache_write: 0,
    date: '2026-11-26',
    source: OPENAI_QUOTED,
    verified: 'third-party'
  },
  {
    models: ['gpt-5.4-nano'],
    input: 0.2,
    output: 1.25,
    cache_read: 0.02,
    cache_write: 0,
    date: '2026-11-26',
    source: OPENAI_QUOTED,
    verified: 'third-party'
  },
  {
    models: ['gpt-5', 'gpt-5-codex', 'gpt-5.1', 'gpt-5.1-codex'],
    input: 1.25,
    output: 10,
    cache_read: 0.125,
    cache_write: 0,
    date: '2026-11-26',
    source:
      'https://docs.rs/crate/openai-cost/latest/source/src/pricing.rs ("openai.com/api/pricing as of 2026-Q2")',
    verified: 'third-party',
    note: 'gpt-5.1 and the -codex variants are priced as gpt-5 without a source of their own: unverified.'
  },
  {
    models: ['gpt-5-mini'],
    input: 0.25,
    output: 2,
    cache_read: 0.025,
    cache_write: 0,
    date: '2026-11-26',
    source: 'none found in reach; the launch price as remembered',
    verified: 'unverified'
  },
  // Google: input_tokens include cached ones; thinking tokens are billed as output. The Pro models bill a prompt
  // over 200K tokens whole at their long-context rates.
  {
    models: ['gemini-3-pro-preview', 'gemini-3-pro', 'gemini-3.1-pro-preview'],
    input: 2,
    output: 12,
    cache_read: 0.2,
    cache_write: 2,
    longContext: { above: 200_000, input: 4, output: 18, cache_read: 0.4, cache_write: 4 },
    date: '2026-11-26',
    source: 'https://aifreeapi.com/en/posts/gemini-api-pricing-2026',
    verified: 'third-party',
    note:
      'gemini-3.1-pro-preview is priced as 3 Pro without a source of its own: unverified. Prompts over 200K tokens ' +
      "cost $4 / $18 (the top of the source's range; https://evolink.ai/gemini-3-pro lists them as the official " +
      'price, with $0.40 cached input); the cache write there is priced as input, without a source.'
  },
  {
    models: ['gemini-2.5-pro'],
    input: 1.25,
    output: 10,
    cache_read: 0.125,
    cache_write: 1.25,
    longContext: { above: 200_000, input: 2.5, output: 15, cache_read: 0.25, cache_write: 2.5 },
    date: '2026-11-26',
    source: GEMINI_QUOTED,
    verified: 'third-party',
    note: 'Prompts over 200K tokens cost $2.50 / $15 (the cache at the same 10%).'
  },
  {
    models: ['gemini-2.5-flash'],
    input: 0.3,
    output: 2.5,
    cache_read: 0.03,
    cache_write: 0.3,
    date: '2026-11-26',
    source: GEMINI_QUOTED,
    verified: 'third-party'
  },
  {
    models: ['gemini-2.5-flash-lite'],
    input: 0.1,
    output: 0.4,
    cache_read: 0.01,
    cache_write: 0.1,
    date: '2026-11-26',
    source: 'https://aifreeapi.com/en/posts/gemini-api-pricing-2026',
    verified: 'third-party'
  },
  // Alibaba Cloud (qwen-code's default models): priced per request by its input size.
  {
    models: ['qwen3-coder-plus'],
    input: 1,
    output: 5,
    cache_read: 0.2,
    cache_write: 1,
    date: '2026-11-26',
    source:
      'https://docs.cline.bot/provider-config/qwen ("qwen3-coder-plus … $1.00/$5.00 per 1M tokens", international region)',
    verified: 'third-party',
    note:
      'The lowest band (prompts up to 32K tokens): Alibaba Cloud prices each request by its input size, and larger ' +
      'prompts cost more (the official mainland-China page, https://help.aliyun.com/zh/model-studio/user-guide/qwen-coder, ' +
      'lists four bands from ¥4/¥16 to ¥20/¥200 per million). Cached input at 20% of the input price (the same page: ' +
      'implicit cache hits); cache writes are priced as input, without a source.'
  }
]

/**
 * The id the table is keyed by: lower case, without a provider prefix (`anthropic/`, `openai/`, `models/`,
 * Bedrock's `us.anthropic.`), a date or version suffix (`-20250929`, `-2026-04-23`, `-v1:0`), `-latest`
 * or claude's `[1m]`; claude ids with dots (`claude-sonnet-4.5`) get dashes.
 */
export function normaliseModelId(model: string): string {
  let id = model.trim().toLowerCase()
  id = id.replace(/\[[^\]]*\]$/, '')
  id = id.slice(id.lastIndexOf('/') + 1)
  id = id.replace(/^(?:[a-z]{2,4}\.)?anthropic\./, '')
  id = id.replace(/-v\d+(?::\d+)?$/, '')
  id = id.replace(/-latest$/, '')
  id = id.replace(/-(?:\d{8}|\d{4}-\d{2}-\d{2})$/, '')
  if (id.startsWith('claude-')) id = id.replace(/\./g, '-')
  return id
}

const BY_MODEL = new Map<string, ModelPrice>()
for (const row of PRICE_TABLE) for (const model of row.models) BY_MODEL.set(model, row)

/** The price of a model, or undefined when the table does not know it (never a guess from a look-alike). */
export function lookupPrice(model: string | undefined): ModelPrice | undefined {
  return model ? BY_MODEL.get(normaliseModelId(model)) : undefined
}

/** Dollars for a run's tokens at list price, or undefined when its model is unknown or unnamed. */
export function priceFromTable(usage: UsageReport): number | undefined {
  const price = lookupPrice(usage.model)
  return price ? costAt(price, usage) : undefined
}

/** Whose models a row prices: what an unlisted model is charged at (its vendor's highest rates). */
export type ModelVendor = 'Anthropic' | 'OpenAI' | 'Google' | 'Alibaba'

/** The vendor a model id belongs to, by its family's prefix; undefined when no family matches. */
export function vendorOfModel(model: string | undefined): ModelVendor | undefined {
  const id = model ? normaliseModelId(model) : ''
  if (id.startsWith('claude-')) return 'Anthropic'
  if (/^(?:gpt-|o\d|codex-|chatgpt-)/.test(id)) return 'OpenAI'
  if (/^(?:gemini-|gemma-)/.test(id)) return 'Google'
  if (/^(?:qwen|qwq-)/.test(id)) return 'Alibaba'
  return undefined
}

/** USD per million tokens written to the 1-hour cache. */
const hourWriteRate = (price: ModelPrice): number => price.cache_write_1h ?? 2 * price.input

/** The rates a row bills a prompt over its long-context threshold at (its own rates when it has none). */
function longRates(row: ModelPrice): ModelPrice {
  if (!row.longContext) return row
  // The base hour's rate is not carried over: absent from the long rates, an hour's write is 2× their input.
  const { cache_write_1h: _, longContext: __, ...base } = row
  return { ...base, ...row.longContext }
}

/**
 * Each rate at the highest any of the vendor's rows has: an unlisted model never costs less than it could.
 * Above the lowest long-context threshold of its rows, each at the highest any row bills there.
 */
export function topPriceOf(vendor: ModelVendor): ModelPrice {
  const rows = PRICE_TABLE.filter(row => vendorOfModel(row.models[0]) === vendor)
  const top = (rate: (row: ModelPrice) => number, of = rows): number => Math.max(...of.map(rate))
  const rates = (of: ModelPrice[]) => ({
    input: top(row => row.input, of),
    output: top(row => row.output, of),
    cache_read: top(row => row.cache_read, of),
    cache_write: top(row => row.cache_write, of),
    cache_write_1h: top(hourWriteRate, of)
  })
  const above = Math.min(...rows.map(row => row.longContext?.above ?? Infinity))
  return {
    models: [],
    ...rates(rows),
    ...(Number.isFinite(above) ? { longContext: { above, ...rates(rows.map(longRates)) } } : {}),
    date: PRICE_TABLE_VERSION,
    source: `the highest ${vendor} rates in this table`,
    verified: 'unverified'
  }
}

/**
 * Dollars for tokens at `price`'s rates (USD per million); the 1-hour writes at their own rate. A request whose
 * prompt is over the row's long-context threshold is billed whole at its long-context rates.
 */
export function costAt(price: ModelPrice, usage: UsageReport): number {
  const prompt = usage.input + usage.cache_read + usage.cache_write
  const rates = price.longContext && prompt > price.longContext.above ? longRates(price) : price
  const hour = usage.cache_write_1h ?? 0
  return (
    (usage.input * rates.input +
      usage.output * rates.output +
      usage.cache_read * rates.cache_read +
      Math.max(0, usage.cache_write - hour) * rates.cache_write +
      hour * hourWriteRate(rates)) /
    1e6
  )
}
