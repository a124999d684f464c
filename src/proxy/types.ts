// What the model proxy is given and what it records of each request: shared by the server (server.ts), the
// exchange with the upstream (upstream.ts), the budget gate and the loop's meter. Imports nothing of the proxy.
import type { UsageReport } from '../agents/types.js'
import type { ModelWire } from './wire.js'

/** One model request as metered at the wire. */
export interface MeteredRequest {
  /** 1-based, in the order the agent made them. */
  seq: number
  method: string
  /** The path asked for (no query: a Gemini key could ride in it). */
  path: string
  status: number
  /** Tokens read from the response; model from the response, else the request. */
  usage: UsageReport
  /** Dollars at the price table's rates; undefined when the model has no price (re-set as the answer streams). */
  costUsd?: number | undefined
  /** The proxy ended the stream because the dollar budget was crossed. */
  cut?: boolean
  /** The request failed before or while streaming (upstream unreachable, the agent hung up). */
  error?: string
  /** A successful answer the proxy could not read (compressed, too large, not JSON or SSE): its cost is unknown. */
  unread?: true
  /** Dollars reserved before forwarding: the request's worst case (model calls only). */
  reservedUsd?: number
  /**
   * What an answer the upstream may have billed cost was not read whole (no usage, usage without its input or
   * output count, or an answer that did not end): it was charged its worst case.
   */
  worstCase?: true
  /** The answer's usage held a figure that cannot be true (the upstream's fault): charged its worst case. */
  impossibleUsage?: string
  /** Never forwarded: its worst case did not fit in what was left of the budget (`error` says by how much). */
  refused?: 'budget' | 'ledger'
}

export interface ModelProxyOptions {
  wire: ModelWire
  /** The upstream's base URL (https://api.anthropic.com, a gateway); request paths are appended to it. */
  upstream: string
  /** The real API key, from the job's environment. */
  apiKey: string
  /** Extra certificate authorities (PEM) to trust for the upstream, on top of Node's. */
  ca?: string
  /** Dollars for a request's tokens; undefined when unknown. */
  price(usage: UsageReport): number | undefined
  /** A request's usage changed (cumulative for the request), or the request ended. */
  onRequest?(request: MeteredRequest): void
  /** Asked after every usage change: true cuts every request in flight (the budget is crossed). */
  overBudget?(): boolean
  /** Dollars left to spend (the cap minus what is metered); undefined: no cap, nothing is pre-authorised. */
  budgetLeft?(): number | undefined
  /**
   * The repository's budget, asked before a call goes up for `needUsd` beyond what is spent (the worst cases
   * of the calls in flight and of this one): true when granted (its lease topped up if need be), else the
   * one line saying which budget is spent. Undefined: no such budget.
   */
  grant?(needUsd: number): Promise<true | { refused: string }>
  /** Hosts the agent may reach through CONNECT (exact names, or `*.example.com`). */
  allowedHosts?: string[]
}
