// The cost meter: dollars spent by finished agent runs plus a live estimate for the run in flight.
// Presets feed it usage as the agent's stream reveals it; the engine reads it to enforce `maxCostUsd`.
import type { UsageReport } from './types.js'

/** metered: counted at the wire by the model proxy; reported: the agent's own dollars; estimated: its tokens priced. */
export type CostSource = 'metered' | 'reported' | 'estimated' | 'unknown'

/** One model request as the model proxy metered it. */
export interface MeteredRequestUsage {
  seq: number
  path: string
  /** The upstream's HTTP status (0: it never answered). */
  status: number
  model?: string
  input: number
  output: number
  cache_read: number
  cache_write: number
  /** Of cache_write, the tokens written to the 1-hour cache (left out when none). */
  cache_write_1h?: number
  /** Undefined when the model has no price in the table. */
  cost_usd?: number
  /** The proxy ended this stream: the dollar budget was crossed. */
  cut?: boolean
  error?: string
  /** A successful answer the proxy could not read: the run's cost is unknown. */
  unread?: boolean
  /** No usage was seen of an answer the upstream may have billed: charged its pre-authorised worst case. */
  worst_case?: boolean
  /** The answer's usage held a figure that cannot be true (the upstream's fault): charged its worst case. */
  impossible_usage?: string
  /** Never forwarded: its worst case did not fit in what was left of the dollar budget. */
  refused?: 'budget' | 'ledger'
}

export interface Usage {
  input: number
  output: number
  cache_read: number
  cache_write: number
  cost_usd: number
  cost_source: CostSource
  /** Behind the model proxy: each model request of the run, as metered at the wire. */
  requests?: MeteredRequestUsage[]
  /** Behind the model proxy: what the agent's own output said the run cost, for comparison. */
  agent_said?: { cost_usd: number; cost_source: CostSource }
}

/** Dollars for the tokens of one run, or undefined when the model's price is not known. */
export type PriceTokens = (usage: UsageReport) => number | undefined

export interface CostMeter {
  /** Dollars settled by finished agent runs. */
  spentUsd(): number
  /** The live estimate for the agent run in flight; 0 between runs. */
  runningUsd(): number
  /** How the total is known: the weakest source of any run so far ('unknown' before the first run). */
  source(): CostSource
  /** An agent run starts. */
  beginRun(): void
  /** The run's stream revealed new usage (cumulative for the run). */
  observe(usage: UsageReport): void
  /** The run is over: settles its cost (the last usage seen, or `final`) and answers it. */
  endRun(final?: UsageReport): Usage
  /** Called after every change; answers a function that unsubscribes. */
  onChange(listener: () => void): () => void
  /** Why the budget is spent though the total is under it: a request's worst case did not fit (the proxy's meter). */
  budgetRefusal?(): string | undefined
  /** Why the repository's budget (the ledger) refused a request, in one line: the loop stops with `budget`. */
  ledgerRefusal?(): string | undefined
}

const RANK: Record<CostSource, number> = { metered: 0, reported: 1, estimated: 2, unknown: 3 }

/** Turns what a stream said into a priced Usage: reported dollars first, then the price table. */
export function priceUsage(report: UsageReport | undefined, price?: PriceTokens): Usage {
  const tokens = {
    input: report?.input ?? 0,
    output: report?.output ?? 0,
    cache_read: report?.cache_read ?? 0,
    cache_write: report?.cache_write ?? 0
  }
  if (report?.reportedUsd !== undefined)
    return { ...tokens, cost_usd: report.reportedUsd, cost_source: 'reported' }
  const estimate = report && price ? price(report) : undefined
  if (estimate !== undefined) return { ...tokens, cost_usd: estimate, cost_source: 'estimated' }
  return { ...tokens, cost_usd: 0, cost_source: 'unknown' }
}

/** The meter the engine uses unless a port supplies one. `price` is the agents' price table (optional). */
export function createCostMeter(price?: PriceTokens): CostMeter {
  let spent = 0
  let running: Usage | undefined
  let lastReport: UsageReport | undefined
  let worst: CostSource | undefined
  const listeners = new Set<() => void>()
  const changed = (): void => listeners.forEach(listener => listener())
  return {
    spentUsd: () => spent,
    runningUsd: () => running?.cost_usd ?? 0,
    source: () => worst ?? 'unknown',
    beginRun() {
      running = priceUsage(undefined, price)
      lastReport = undefined
    },
    observe(usage) {
      lastReport = usage
      running = priceUsage(usage, price)
      changed()
    },
    endRun(final) {
      const usage = priceUsage(final ?? lastReport, price)
      spent += usage.cost_usd
      worst = worst === undefined || RANK[usage.cost_source] > RANK[worst] ? usage.cost_source : worst
      running = undefined
      lastReport = undefined
      changed()
      return usage
    },
    onChange(listener) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    }
  }
}
