// Step: close — whatever way the run ended: the guard stopped, the work tree given up, the egress rules
// removed, the proxy closed and what it refused the agent said.
import type { AgentBehindProxy } from '../../proxy/agent.js'
import { HOST_PORT, hostAllowed, MOST_REFUSALS_NAMED } from '../../proxy/server.js'
import { disposeQuietly } from './dispose.js'
import type { Egress } from './egress.js'
import type { Metered } from './meter.js'
import type { LoopRun } from './run.js'

/** Refused destinations warned one by one; the rest in one line (the record names up to MOST_REFUSALS_NAMED). */
const REFUSALS_WARNED = 10

export async function closeRun(run: LoopRun, metered: Metered, egress: Egress): Promise<void> {
  metered.stop()
  await disposeQuietly(run.env.workspace)
  for (const problem of (await egress.rules?.remove()) ?? [])
    run.warn(`the egress rules were not all removed: ${problem}`)
  await egress.refusals?.close()
  if (metered.proxied) await closeProxy(run, metered.proxied, egress.network)
}

async function closeProxy(run: LoopRun, proxied: AgentBehindProxy, network: string): Promise<void> {
  const { proxy } = proxied
  await proxied.close()
  run.status.modelProxy = {
    upstream: proxied.upstream,
    requests: proxy.requests.length,
    refused: [...proxy.refused],
    ...(proxy.refusedUnnamed > 0 ? { refusedUnnamed: proxy.refusedUnnamed } : {}),
    ...(proxy.refusedRequests.length > 0 ? { refusedRequests: [...proxy.refusedRequests] } : {})
  }
  for (const line of proxied.warnings()) run.warn(line)
  const allowedHosts = run.config.modelProxy?.allowedHosts ?? []
  for (const target of proxy.refused.slice(0, REFUSALS_WARNED))
    run.warn(refusalWarning(network, target, allowedHosts))
  const more = [
    ...(proxy.refused.length > REFUSALS_WARNED
      ? [
          `${proxy.refused.length - REFUSALS_WARNED} more destination(s), named in status.json (modelProxy.refused)`
        ]
      : []),
    ...(proxy.refusedUnnamed > 0
      ? [
          `${proxy.refusedUnnamed} connection(s) or datagram(s) counted only, not named (past the first ${MOST_REFUSALS_NAMED}, or more at once than the lookups kept up with) (modelProxy.refusedUnnamed)`
        ]
      : [])
  ]
  if (more.length > 0) run.warn(`agent-network ${network} refused the agent ${more.join(' and ')}`)
}

/**
 * One refused destination, with what would let it through: allowed-hosts for TCP, nothing short of open for
 * UDP. A host allowed-hosts already names was refused because the agent went there directly, not through the
 * proxy: adding it again would not help. Plain HTTP is never forwarded.
 */
function refusalWarning(network: string, target: string, allowedHosts: string[]): string {
  if (target.startsWith('http://'))
    return `agent-network ${network} refused the agent a plain-HTTP request to ${target} through the proxy: it forwards HTTPS (CONNECT) to allowed-hosts, never plain HTTP`
  if (target.startsWith('udp '))
    return `agent-network ${network} refused the agent a datagram to ${target.slice(4)}: only agent-network open lets UDP out (hosts in allowed-hosts need no DNS lookup: the proxy resolves them)`
  const host = HOST_PORT.exec(target)?.[1]
  return host !== undefined && hostAllowed(host, allowedHosts)
    ? `agent-network ${network} refused the agent a direct connection to ${target}: ${host} is in allowed-hosts, reached only through the proxy's CONNECT (the HTTPS_PROXY in the agent's environment)`
    : `agent-network ${network} refused the agent a connection to ${target}: add it to allowed-hosts (agent-network allow-list) if the agent needs it`
}
