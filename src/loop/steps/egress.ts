// Step: egress — the agent's uid may reach only the proxy (model-only, allow-list): iptables, where the
// agent is its own user. Its other TCP and UDP is named (from conntrack) as it is refused.
import { egressPrefix, egressUnavailable, restrictEgress, type EgressRules } from '../../proxy/egress.js'
import { startRefusalListener, type RefusalListener } from '../../proxy/refusals.js'
import type { LoopConfig } from '../types.js'
import type { Metered } from './meter.js'

export interface Egress {
  network: string
  rules?: EgressRules
  refusals?: RefusalListener
}

export async function limitEgress(
  config: LoopConfig,
  { proxied }: Pick<Metered, 'proxied'>,
  warn: (message: string) => void
): Promise<Egress> {
  const network = config.modelProxy?.network ?? 'model-only'
  if (!proxied || network === 'open') return { network }
  const { agentUid: uid, agentPrivilege: privilege } = config.modelProxy ?? {}
  const why = uid === undefined ? 'the agent does not run as its own user' : egressUnavailable(uid, privilege)
  if (why !== undefined || uid === undefined) {
    warn(
      `egress is not enforced (agent-network ${network}): ${why}; the proxy still holds the model key and meters every token`
    )
    return { network }
  }
  let refusals: RefusalListener | undefined
  try {
    refusals = await startRefusalListener(proxied.proxy, egressPrefix(privilege))
    const rules = await restrictEgress({
      uid,
      proxyPort: proxied.proxy.port,
      refusalPort: refusals.port,
      prefix: egressPrefix(privilege)
    })
    if (rules.ipv6Unnamed)
      warn(
        `the agent's IPv6 connections are refused but not named (this kernel has no IPv6 nat: ${rules.ipv6Unnamed})`
      )
    return { network, rules, refusals }
  } catch (error) {
    warn(`egress is not enforced: the rules could not be set (${(error as Error).message})`)
    return { network, ...(refusals ? { refusals } : {}) }
  }
}
