// The loop's cost meter when the model proxy is on: a run costs what its requests cost at the wire, as the proxy
// reports each one (update); what the agent's own output says is kept beside it (agent_said).
import { priceFromTable, type UsageReport } from '../agents/index.js'
import { priceUsage, type CostMeter, type CostSource, type Usage } from '../agents/cost-meter.js'
import type { MeteredRequest } from './types.js'

const RANK: Record<CostSource, number> = { metered: 0, reported: 1, estimated: 2, unknown: 3 }
const sumTokens = (requests: MeteredRequest[]): UsageReport => {
  const total: UsageReport = { input: 0, output: 0, cache_read: 0, cache_write: 0 }
  for (const r of requests) {
    total.input += r.usage.input
    total.output += r.usage.output
    total.cache_read += r.usage.cache_read
    total.cache_write += r.usage.cache_write
  }
  return total
}

/**
 * The loop's meter when the proxy is on: a run costs what its requests cost at the wire. What the agent's
 * own output says is kept beside it, so the record shows both and their difference.
 */
export class MeteredCostMeter implements CostMeter {
  private spent = 0
  /** Requests outside a run (the agent's leftovers after it ended), by seq: each counted once, at its latest. */
  private readonly outside = new Map<number, number>()
  private refusal: string | undefined
  private ledger: string | undefined
  private worst: CostSource | undefined
  private run: Map<number, MeteredRequest> | undefined
  private agentSaid: UsageReport | undefined
  private readonly listeners = new Set<() => void>()

  spentUsd = (): number => this.spent + [...this.outside.values()].reduce((sum, usd) => sum + usd, 0)
  budgetRefusal = (): string | undefined => this.refusal
  ledgerRefusal = (): string | undefined => this.ledger
  runningUsd = (): number => [...(this.run?.values() ?? [])].reduce((sum, r) => sum + (r.costUsd ?? 0), 0)
  source = (): CostSource => this.worst ?? 'unknown'

  beginRun(): void {
    this.run = new Map()
    this.agentSaid = undefined
  }

  observe(usage: UsageReport): void {
    this.agentSaid = usage
  }

  /** A request of the run in flight changed (the proxy calls this as usage streams by). */
  update(request: MeteredRequest): void {
    if (request.refused === 'ledger') this.ledger ??= request.error
    if (request.refused === 'budget')
      this.refusal ??= `the model proxy refused a request: ${request.error ?? 'its worst case does not fit in the budget'}`
    // A request outside a run (the agent's leftovers after it ended) still costs: it is settled at once.
    if (!this.run) this.outside.set(request.seq, request.costUsd ?? 0)
    else this.run.set(request.seq, { ...request, usage: { ...request.usage } })
    this.listeners.forEach(listener => listener())
  }

  endRun(final?: UsageReport): Usage {
    const requests = [...(this.run?.values() ?? [])].sort((a, b) => a.seq - b.seq)
    const tokens = sumTokens(requests)
    const cost = requests.reduce((sum, r) => sum + (r.costUsd ?? 0), 0)
    // A request with tokens but no price, or an answer the proxy could not read, makes the run's cost unknown.
    const unpriced = requests.some(
      r =>
        r.unread === true ||
        r.impossibleUsage !== undefined ||
        (r.costUsd === undefined && r.usage.input + r.usage.output > 0)
    )
    const source: CostSource = unpriced ? 'unknown' : 'metered'
    const agentSaid = priceUsage(final ?? this.agentSaid, priceFromTable)
    const usage: Usage = {
      input: tokens.input,
      output: tokens.output,
      cache_read: tokens.cache_read,
      cache_write: tokens.cache_write,
      cost_usd: cost,
      cost_source: source,
      requests: requests.map(r => ({
        seq: r.seq,
        path: r.path,
        status: r.status,
        ...(r.usage.model ? { model: r.usage.model } : {}),
        input: r.usage.input,
        output: r.usage.output,
        cache_read: r.usage.cache_read,
        cache_write: r.usage.cache_write,
        ...(r.usage.cache_write_1h ? { cache_write_1h: r.usage.cache_write_1h } : {}),
        ...(r.costUsd !== undefined ? { cost_usd: r.costUsd } : {}),
        ...(r.cut ? { cut: true } : {}),
        ...(r.unread ? { unread: true } : {}),
        ...(r.worstCase ? { worst_case: true } : {}),
        ...(r.impossibleUsage ? { impossible_usage: r.impossibleUsage } : {}),
        ...(r.refused ? { refused: r.refused } : {}),
        ...(r.error ? { error: r.error } : {})
      }))
    }
    if (agentSaid.cost_source !== 'unknown')
      usage.agent_said = { cost_usd: agentSaid.cost_usd, cost_source: agentSaid.cost_source }
    this.spent += cost
    this.worst = this.worst === undefined || RANK[source] > RANK[this.worst] ? source : this.worst
    this.run = undefined
    this.agentSaid = undefined
    this.listeners.forEach(listener => listener())
    return usage
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }
}
