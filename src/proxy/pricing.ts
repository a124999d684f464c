// The proxy's prices, failing closed: the price table for a listed model, and for any other (or none named) the
// highest rates the table has for its vendor, so a dollar cap never switches off. Each unpriced model is said once.
import {
  costAt,
  lookupPrice,
  topPriceOf,
  vendorOfModel,
  type AgentCliName,
  type ModelVendor,
  type UsageReport
} from '../agents/index.js'

/** Whose prices an unlisted model of each CLI is charged at, when its name does not say (the CLI's default upstream). */
export const CLI_VENDOR: Record<AgentCliName, ModelVendor> = {
  claude: 'Anthropic',
  codex: 'OpenAI',
  gemini: 'Google',
  opencode: 'OpenAI',
  qwen: 'Alibaba'
}

/** Unpriced models named in warnings; past these, one line says more were seen. */
const MOST_UNPRICED_NAMED = 5

/**
 * The price table, failing closed: a model it does not list (or no model named) is charged at the highest rates
 * the table has for its vendor, so the cap never switches off. Each such model is said once.
 */
export class FailClosedPricing {
  private readonly unpriced = new Map<string, ModelVendor>()
  private more = false

  constructor(private readonly fallback: ModelVendor) {}

  price(usage: UsageReport): number {
    const listed = lookupPrice(usage.model)
    if (listed) return costAt(listed, usage)
    const vendor = vendorOfModel(usage.model) ?? this.fallback
    // The model's name is the agent's text (or the upstream's): kept only in the characters of model ids.
    const name =
      usage.model === undefined || usage.model === ''
        ? 'a request that names no model'
        : /^[A-Za-z0-9._:/@[\]-]{1,100}$/.test(usage.model)
          ? usage.model
          : 'a model named with other characters'
    if (!this.unpriced.has(name)) {
      if (this.unpriced.size < MOST_UNPRICED_NAMED) this.unpriced.set(name, vendor)
      else this.more = true
    }
    return costAt(topPriceOf(vendor), usage)
  }

  warnings(): string[] {
    const lines = [...this.unpriced].map(([name, vendor]) => {
      const top = topPriceOf(vendor)
      return `${name} has no price in the table: it is charged at the highest ${vendor} price the table has ($${top.input} in, $${top.output} out a million tokens), so the budget still holds`
    })
    if (this.more)
      lines.push(`more models have no price in the table: each is charged at its vendor's highest price`)
    return lines
  }
}
