// The agent's only way out is the model proxy: an iptables owner match sends every packet the agent's uid
// originates to a chain of our own that accepts the proxy's port on loopback and rejects the rest. Its other
// TCP connections are first redirected (nat) to a refusal listener of the action's, which reads where each
// was going from the kernel's connection tracking, names it, and resets it: so a user sees what to allow.
// The chains are named after the uid, so a later step (post, after a cancel) can remove exactly what a run
// added.
import { readFileSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import net, { type AddressInfo } from 'node:net'
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
  /** Removes the rules; answers what could not be removed (one line each). */
  remove(): Promise<string[]>
}

const SYSTEM_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'

/** The chain of a uid's rules (iptables allows 28 characters). */
export const egressChain = (uid: number): string => `RALPH-AGENT-${uid}`

/** The iptables calls that restrict `uid` to the proxy, in order (the same for ip6tables, minus the proxy). */
export function egressRuleCommands(
  uid: number,
  proxyPort: number,
  refusalPort?: number
): { v4: string[][]; v6: string[][] } {
  const chain = egressChain(uid)
  const owner = ['-m', 'owner', '--uid-owner', String(uid)]
  const rejectAll = [
    ['-A', chain, '-p', 'tcp', '-j', 'REJECT', '--reject-with', 'tcp-reset'],
    ['-A', chain, '-j', 'REJECT']
  ]
  const accept = (port: number): string[] => [
    '-A',
    chain,
    '-o',
    'lo',
    '-d',
    '127.0.0.1',
    '-p',
    'tcp',
    '--dport',
    String(port),
    '-j',
    'ACCEPT'
  ]
  const nat = ['-t', 'nat']
  const redirect =
    refusalPort === undefined
      ? []
      : [
          [...nat, '-N', chain],
          [...nat, '-A', chain, '-d', '127.0.0.1', '-p', 'tcp', '--dport', String(proxyPort), '-j', 'RETURN'],
          [...nat, '-A', chain, '-p', 'tcp', '-j', 'REDIRECT', '--to-ports', String(refusalPort)],
          [...nat, '-I', 'OUTPUT', '1', ...owner, '-j', chain]
        ]
  return {
    v4: [
      ['-N', chain],
      accept(proxyPort),
      ...(refusalPort === undefined ? [] : [accept(refusalPort)]),
      ...rejectAll,
      ['-I', 'OUTPUT', '1', ...owner, '-j', chain],
      ...redirect
    ],
    v6: [['-N', chain], ...rejectAll, ['-I', 'OUTPUT', '1', ...owner, '-j', chain]]
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
function ipv6On(): boolean {
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
  for (const [program, list] of [
    ['iptables', commands.v4],
    ...(have6 ? [['ip6tables', commands.v6] as const] : [])
  ] as const) {
    for (const args of list) {
      const done = await iptables(program, args, prefix)
      if (!done.ok) {
        await remove()
        throw new Error(`${program} ${args.join(' ')} failed: ${done.error}`)
      }
    }
  }
  return { chain: egressChain(uid), remove }
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

export interface RefusalListener {
  port: number
  close(): Promise<void>
}

/** The original destination (host:port) of a redirected connection from `clientPort`, from conntrack. */
async function originalDestination(
  clientPort: number,
  listenPort: number,
  prefix: string[]
): Promise<string> {
  const file = '/proc/net/nf_conntrack'
  let table: string
  try {
    table = await readFile(file, 'utf8')
  } catch {
    // Readable by root only: the job's user reads it through the same sudo as iptables.
    const read = await runProcess({
      argv: [...prefix, 'grep', '-F', `sport=${clientPort} `, file],
      cwd: '/',
      env: { PATH: SYSTEM_PATH }
    })
    if (read.exitCode === 2 || read.spawnError) return `an unknown destination (${file} cannot be read)`
    table = read.stdout.head.toString('utf8')
  }
  // "... tcp 6 117 SYN_SENT src=A dst=B sport=C dport=D ... src=127.0.0.1 dst=.. sport=LISTEN dport=C ...":
  // the first tuple is the connection as the agent made it.
  for (const line of table.split('\n')) {
    const tuple = /\bdst=(\S+) sport=(\d+) dport=(\d+)\b.*\bsport=(\d+) dport=(\d+)/.exec(line)
    if (tuple && Number(tuple[2]) === clientPort && Number(tuple[4]) === listenPort)
      return `${tuple[1]}:${tuple[3]}`
  }
  return 'an unknown destination (no conntrack entry)'
}

/**
 * Where the agent's redirected connections arrive: each is named through `refused` and reset. `prefix` is
 * the argv that reads conntrack when the action is not root (sudo -n).
 */
export async function startRefusalListener(
  refused: (target: string) => void,
  prefix: string[] = []
): Promise<RefusalListener> {
  const server = net.createServer(socket => {
    socket.on('error', () => undefined)
    const { port } = server.address() as AddressInfo
    void originalDestination(socket.remotePort ?? 0, port, prefix).then(target => {
      refused(target)
      socket.resetAndDestroy()
    })
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', resolve)
  })
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>(resolve => server.close(() => resolve()))
  }
}
