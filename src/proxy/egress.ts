// The agent's only way out is the model proxy: an iptables owner match sends every packet the agent's uid
// originates to a chain of our own that accepts the proxy's port on loopback and rejects the rest. Its other
// TCP and UDP (IPv4 and IPv6) are first redirected (nat) to a refusal listener of the action's, which reads
// where each was going from the kernel's connection tracking and names it (for DNS, the host asked for), then
// resets it or answers REFUSED (refusals.ts): so a user sees what to allow, and nothing gets out.
// The chains are named after the uid, so a later step (post, after a cancel) can remove exactly what a run
// added.
import { readFileSync } from 'node:fs'
import { runProcess } from '../proc/index.js'
import { which } from '../proc/index.js'

export interface EgressOptions {
  /** The agent's own uid (the isolation's user): never 0, never the action's. */
  uid: number
  /** The model proxy's port on 127.0.0.1. */
  proxyPort: number
  /** argv put before each iptables call, e.g. nsenter into a network namespace (tests). */
  prefix?: string[]
  /** The refusal listener's port on 127.0.0.1: the agent's other TCP (IPv4) goes there to be named. */
  refusalPort?: number
}

export interface EgressRules {
  chain: string
  /** Why the agent's refused IPv6 connections are not named (no IPv6 nat here), or undefined when they are. */
  ipv6Unnamed?: string
  /** Removes the rules; answers what could not be removed (one line each). */
  remove(): Promise<string[]>
}

export const SYSTEM_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'

/** The chain of a uid's rules (iptables allows 28 characters). */
export const egressChain = (uid: number): string => `RALPH-AGENT-${uid}`

/** The iptables calls that restrict `uid` to the proxy, in order (ip6tables: the same, minus the proxy). */
export function egressRuleCommands(
  uid: number,
  proxyPort: number,
  refusalPort?: number
): { v4: string[][]; v6: string[][]; v6nat: string[][] } {
  const chain = egressChain(uid)
  const owner = ['-m', 'owner', '--uid-owner', String(uid)]
  const rejectAll = [
    ['-A', chain, '-p', 'tcp', '-j', 'REJECT', '--reject-with', 'tcp-reset'],
    ['-A', chain, '-j', 'REJECT']
  ]
  const accept = (loopback: string, protocol: string, port: number): string[] => [
    '-A',
    chain,
    '-o',
    'lo',
    '-d',
    loopback,
    '-p',
    protocol,
    '--dport',
    String(port),
    '-j',
    'ACCEPT'
  ]
  // The refusal listener's port (TCP and UDP) on loopback: where the nat rules below send the rest, to be named.
  const toListener = (loopback: string): string[][] =>
    refusalPort === undefined ? [] : ['tcp', 'udp'].map(protocol => accept(loopback, protocol, refusalPort))
  const nat = ['-t', 'nat']
  const redirect = (returns: string[][]): string[][] =>
    refusalPort === undefined
      ? []
      : [
          [...nat, '-N', chain],
          ...returns,
          ...['tcp', 'udp'].map(protocol => [
            ...nat,
            '-A',
            chain,
            '-p',
            protocol,
            '-j',
            'REDIRECT',
            '--to-ports',
            String(refusalPort)
          ]),
          [...nat, '-I', 'OUTPUT', '1', ...owner, '-j', chain]
        ]
  const jump = ['-I', 'OUTPUT', '1', ...owner, '-j', chain]
  return {
    v4: [
      ['-N', chain],
      accept('127.0.0.1', 'tcp', proxyPort),
      ...toListener('127.0.0.1'),
      ...rejectAll,
      jump,
      ...redirect([
        [...nat, '-A', chain, '-d', '127.0.0.1', '-p', 'tcp', '--dport', String(proxyPort), '-j', 'RETURN']
      ])
    ],
    v6: [['-N', chain], ...toListener('::1'), ...rejectAll, jump],
    // Without IPv6 nat (a kernel lacking it) the agent's IPv6 is still refused, only not named.
    v6nat: redirect([])
  }
}

/** The calls that remove a uid's chains (each may fail when it is not there: that is fine). */
function removalCommands(uid: number): string[][] {
  const chain = egressChain(uid)
  const owner = ['-m', 'owner', '--uid-owner', String(uid)]
  return [
    ['-D', 'OUTPUT', ...owner, '-j', chain],
    ['-F', chain],
    ['-X', chain],
    ['-t', 'nat', '-D', 'OUTPUT', ...owner, '-j', chain],
    ['-t', 'nat', '-F', chain],
    ['-t', 'nat', '-X', chain]
  ]
}

async function iptables(
  program: 'iptables' | 'ip6tables',
  args: string[],
  prefix: string[]
): Promise<{ ok: boolean; error: string }> {
  const result = await runProcess({
    argv: [...prefix, program, '-w', ...args],
    cwd: '/',
    env: { PATH: SYSTEM_PATH, LANG: 'C' }
  })
  const error = result.spawnError?.message ?? result.stderr.head.toString('utf8').trim().split('\n')[0] ?? ''
  return { ok: result.exitCode === 0, error }
}

/** argv put before iptables: nothing as root, `sudo -n --` otherwise (the isolation's passwordless sudo). */
export const egressPrefix = (privilege: 'root' | 'sudo' = 'root'): string[] =>
  privilege === 'sudo' ? ['sudo', '-n', '--'] : []

/** Why the rules cannot be set here, or undefined when they can be tried. */
export function egressUnavailable(uid: number, privilege: 'root' | 'sudo' = 'root'): string | undefined {
  if (process.platform !== 'linux') return `egress rules need Linux (this is ${process.platform})`
  if (privilege === 'root' && process.getuid?.() !== 0) return 'egress rules need root or sudo (iptables)'
  if (!which('iptables', { cwd: '/', path: SYSTEM_PATH })) return 'iptables is not installed'
  if (!Number.isInteger(uid) || uid <= 0 || uid === process.getuid?.())
    return "the agent does not run as its own user, so its connections cannot be told from the action's"
  return undefined
}

/** IPv6 is on when the kernel lists an address of it (`::1` counts: loopback services answer there too). */
export function ipv6On(): boolean {
  try {
    return readFileSync('/proc/net/if_inet6', 'utf8').trim() !== ''
  } catch {
    return false
  }
}

/**
 * Restricts the agent's uid to the proxy. Leftover rules of the same uid (a run that was killed) are removed
 * first. Throws with the failing call's message; nothing stays half-applied.
 */
export async function restrictEgress(options: EgressOptions): Promise<EgressRules> {
  const prefix = options.prefix ?? []
  const { uid } = options
  const remove = (): Promise<string[]> => removeEgressRules(uid, prefix)
  await remove()
  const commands = egressRuleCommands(uid, options.proxyPort, options.refusalPort)
  const have6 = which('ip6tables', { cwd: '/', path: SYSTEM_PATH }) !== null
  // Without ip6tables the agent's IPv6 (::1's services, an outside v6 address) would stay open: refuse it all.
  if (!have6 && ipv6On())
    throw new Error(
      'ip6tables is not installed while IPv6 is on, so the IPv6 connections of the agent would be open'
    )
  const run = async (program: 'iptables' | 'ip6tables', list: string[][]): Promise<void> => {
    for (const args of list) {
      const done = await iptables(program, args, prefix)
      if (!done.ok) {
        await remove()
        throw new Error(`${program} ${args.join(' ')} failed: ${done.error}`)
      }
    }
  }
  await run('iptables', commands.v4)
  let ipv6Unnamed: string | undefined
  if (have6) {
    await run('ip6tables', commands.v6)
    // A kernel without IPv6 nat: the filter rules above still refuse the agent's IPv6, only unnamed.
    for (const args of commands.v6nat) {
      const done = await iptables('ip6tables', args, prefix)
      if (done.ok) continue
      for (const undo of removalCommands(uid).filter(call => call[0] === '-t'))
        await iptables('ip6tables', undo, prefix)
      ipv6Unnamed = `ip6tables ${args.join(' ')} failed: ${done.error}`
      break
    }
  }
  return { chain: egressChain(uid), ...(ipv6Unnamed !== undefined ? { ipv6Unnamed } : {}), remove }
}

/** Removes what a run left for `uid` (the post step after a cancel). Answers what could not be removed. */
export async function removeEgressRules(uid: number, prefix: string[] = []): Promise<string[]> {
  const problems: string[] = []
  for (const program of ['iptables', 'ip6tables'] as const) {
    for (const args of removalCommands(uid)) await iptables(program, args, prefix)
    for (const table of ['filter', 'nat'])
      if ((await iptables(program, ['-t', table, '-S', egressChain(uid)], prefix)).ok)
        problems.push(`${program}: the chain ${egressChain(uid)} is still there (table ${table})`)
  }
  return problems
}
