// Step: meter — the model proxy (when on), the cost meter starting at the chain's spend, and the guard that
// enforces time and dollars. Every cap compares the chain's total spend to max-cost.
import { priceFromTable } from '../../agents/index.js'
import { createCostMeter, type CostMeter, type CostSource } from '../../agents/cost-meter.js'
import { ModelProxyError, startAgentProxy, type AgentBehindProxy } from '../../proxy/agent.js'
import { RalphError } from '../../ralph/index.js'
import { LoopGuard } from '../guard.js'
import type { Clock, LoopConfig, LoopEvent, LoopPorts } from '../types.js'
import type { Resumed } from './resume.js'

export interface Metered {
  /** The config, its agent environment pointed at the proxy when there is one. */
  config: LoopConfig
  proxied?: AgentBehindProxy
  meter: CostMeter
  guard: LoopGuard
  deadline?: number
  /** Stops the guard and the meter's listener (the proxy is closed by the closing step). */
  stop: () => void
}

/** Throws RalphError when the proxy cannot run the agent (nothing has run then). */
export async function startMeter(
  config: LoopConfig,
  ports: LoopPorts,
  resumed: Resumed,
  { clock, startedAt, emit }: { clock: Clock; startedAt: number; emit: (event: LoopEvent) => void }
): Promise<Metered> {
  // Behind the model proxy the agent holds a placeholder key and the meter counts what crossed the wire.
  let proxied: AgentBehindProxy | undefined
  if (config.modelProxy) {
    try {
      proxied = await startAgentProxy(config.ralph.agentArgv, process.env, config.modelProxy, {
        maxCostUsd: config.maxCostUsd,
        chainSpentUsd: resumed.spent.usd,
        cap: config.spending
      })
    } catch (error) {
      if (error instanceof ModelProxyError) throw new RalphError(error.message)
      throw error
    }
    const agentEnv = config.agentEnv ?? {}
    config = {
      ...config,
      agentEnv: {
        ...agentEnv,
        set: { ...agentEnv.set, ...proxied.agentEnv.set },
        remove: [...(agentEnv.remove ?? []), ...(proxied.agentEnv.remove ?? [])]
      }
    }
  }
  const meter = fromChainSpend(
    proxied?.meter ?? ports.costMeter ?? createCostMeter(priceFromTable),
    resumed.spent
  )
  const deadline = config.maxTimeSeconds !== undefined ? startedAt + config.maxTimeSeconds * 1000 : undefined
  const guard = new LoopGuard({ clock, signal: ports.signal, deadline, meter, maxCostUsd: config.maxCostUsd })
  const maxUsd = config.maxCostUsd
  const stopWatchingCost = meter.onChange(() =>
    emit({
      type: 'cost_update',
      spentUsd: meter.spentUsd(),
      runningUsd: meter.runningUsd(),
      source: meter.source(),
      ...(maxUsd !== undefined ? { maxUsd } : {})
    })
  )
  return {
    config,
    ...(proxied ? { proxied } : {}),
    meter,
    guard,
    ...(deadline !== undefined ? { deadline } : {}),
    stop: () => {
      guard.dispose()
      stopWatchingCost()
    }
  }
}

const SOURCE_RANK = { metered: 0, reported: 1, estimated: 2, unknown: 3 } as const

/** The meter starting at the chain's spend: the guard's cap and the totals count the whole chain. */
function fromChainSpend(meter: CostMeter, spent: Resumed['spent']): CostMeter {
  const { usd, source } = spent
  if (usd <= 0 && source === undefined) return meter
  return {
    spentUsd: () => usd + meter.spentUsd(),
    runningUsd: () => meter.runningUsd(),
    source: () => weaker(source, meter.source()),
    beginRun: () => meter.beginRun(),
    observe: usage => meter.observe(usage),
    endRun: final => meter.endRun(final),
    onChange: listener => meter.onChange(listener),
    ...(meter.budgetRefusal ? { budgetRefusal: () => meter.budgetRefusal?.() } : {}),
    ...(meter.ledgerRefusal ? { ledgerRefusal: () => meter.ledgerRefusal?.() } : {})
  }
}

function weaker(earlier: CostSource | undefined, own: CostSource): CostSource {
  return earlier !== undefined && SOURCE_RANK[earlier] > SOURCE_RANK[own] ? earlier : own
}
