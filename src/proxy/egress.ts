// The agent's only way out is the model proxy: an iptables owner match sends every packet the agent's uid
// originates to a chain of our own that accepts the proxy's port on loopback and rejects the rest. Its other
// TCP and UDP (IPv4 and IPv6) are first redirected (nat) to a refusal listener of the action's, which reads
// where each was going from the kernel's connection tracking and names it (for DNS, the host asked for), then
// resets it or answers REFUSED: so a user sees what to allow, and nothing gets out.
// The chains are named after the uid, so a later step (post, after a cancel) can remove exactly what a run
// added.
import { readFileSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import dgram from 'node:dgram'
import net, { type AddressInfo } from 'node:net'
import { runProcess } from '../proc/index.js'
import { which } from '../proc/index.js'
import type { ModelProxy } from './server.js'

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

const SYSTEM_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'

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
  return { chain: egressChain(uid), ipv6Unnamed, remove }
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
  /** One port, TCP and UDP, on 127.0.0.1 and (where IPv6 is on) ::1. */
  port: number
  close(): Promise<void>
}

/** An address as a user writes it: IPv6 compressed and bracketed (conntrack writes all 32 digits). */
const hostOf = (address: string): string =>
  address.includes(':') ? new URL(`http://[${address}]/`).hostname : address

/** The original destination (host:port) of a redirected connection from `clientPort`, from conntrack. */
async function originalDestination(
  protocol: 'tcp' | 'udp',
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
  // "ipv4 2 tcp 6 117 SYN_SENT src=A dst=B sport=C dport=D ... src=127.0.0.1 dst=.. sport=LISTEN dport=C ...":
  // the first tuple is the connection as the agent made it.
  for (const line of table.split('\n')) {
    const tuple =
      /^ipv[46]\s+\d+\s+(\w+)\s.*?\bdst=(\S+) sport=(\d+) dport=(\d+)\b.*\bsport=(\d+) dport=(\d+)/.exec(line)
    if (tuple && tuple[1] === protocol && Number(tuple[3]) === clientPort && Number(tuple[5]) === listenPort)
      return `${hostOf(tuple[2])}:${tuple[4]}`
  }
  return 'an unknown destination (no conntrack entry)'
}

/**
 * The name a DNS query asks for and the REFUSED answer to it, or undefined when `packet` is not a query.
 * A name is kept only in the characters of host names: it is the agent's text, and it goes into the log.
 */
export function dnsQuestion(packet: Buffer): { name: string; refusal: Buffer } | undefined {
  if (packet.length < 12 || packet[2] & 0x80 || packet.readUInt16BE(4) < 1) return undefined
  const labels: string[] = []
  let at = 12
  for (let length = packet[at]; length !== 0; length = packet[at]) {
    if (length === undefined || length > 63 || at + 1 + length > packet.length) return undefined
    labels.push(packet.toString('latin1', at + 1, at + 1 + length))
    at += 1 + length
  }
  const end = at + 5 // the root label, QTYPE and QCLASS
  if (end > packet.length) return undefined
  const name = labels.join('.')
  const refusal = Buffer.concat([packet.subarray(0, 12), packet.subarray(12, end)])
  refusal[2] = (packet[2] & 0x79) | 0x80 // an answer, of the same opcode, RD kept
  refusal[3] = 5 // REFUSED
  refusal.writeUInt16BE(1, 4)
  refusal.fill(0, 6, 12)
  return {
    name: /^[A-Za-z0-9_.-]{1,253}$/.test(name) ? name : 'a name with other characters than a host name',
    refusal
  }
}

/** Binds `port` (0: any) for TCP and UDP on 127.0.0.1, then the same port on ::1 where IPv6 is on. */
async function bindAll(
  port: number,
  onTcp: (socket: net.Socket, port: number) => void,
  onUdp: (socket: dgram.Socket, message: Buffer, from: dgram.RemoteInfo, port: number) => void
): Promise<{ port: number; close(): Promise<void> }> {
  const closers: (() => Promise<void>)[] = []
  const close = async (): Promise<void> => {
    await Promise.all(closers.map(closer => closer()))
  }
  for (const host of ipv6On() ? ['127.0.0.1', '::1'] : ['127.0.0.1'])
    try {
      const server = net.createServer(socket => onTcp(socket, port))
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject)
        server.listen(port, host, resolve)
      })
      port = (server.address() as AddressInfo).port
      closers.push(() => new Promise<void>(resolve => server.close(() => resolve())))
      const udp = dgram.createSocket(host === '::1' ? 'udp6' : 'udp4')
      udp.on('message', (message, from) => onUdp(udp, message, from, port))
      // Closed on a failed bind too (close throws when the socket is already down).
      closers.push(
        () =>
          new Promise<void>(resolve => {
            try {
              udp.close(() => resolve())
            } catch {
              resolve()
            }
          })
      )
      await new Promise<void>((resolve, reject) => {
        udp.once('error', reject)
        udp.bind(port, host, resolve)
      })
      udp.on('error', () => undefined)
    } catch (error) {
      // No ::1 (IPv6 on, loopback without it): the agent's IPv6 is still refused by the rules, only not named.
      if (host === '::1' && (error as NodeJS.ErrnoException).code === 'EADDRNOTAVAIL') break
      await close()
      throw error
    }
  return { port, close }
}

/** Conntrack lookups at once, and in a run: past either a refusal is counted, not named (a flood costs no lookup). */
const LOOKUPS_AT_ONCE = 16
const LOOKUPS_IN_A_RUN = 1000

/**
 * Where the agent's redirected connections and datagrams arrive: each is named through `refusals`; a
 * connection is reset, a DNS query answered REFUSED at once (by us, on loopback), other datagrams dropped.
 * `prefix` is the argv that reads conntrack when the action is not root (sudo -n). Closing waits for the
 * lookups in flight, so every refusal is in the record.
 */
export async function startRefusalListener(
  refusals: Pick<ModelProxy, 'refuse' | 'namingRefusals'>,
  prefix: string[] = []
): Promise<RefusalListener> {
  const pending = new Set<Promise<void>>()
  let lookups = 0
  let closed = false
  /** Names a refusal from its conntrack entry, when the budgets allow a lookup; else counts it. */
  const name = (
    protocol: 'tcp' | 'udp',
    clientPort: number,
    port: number,
    named: (target: string) => string
  ): Promise<void> => {
    if (
      closed ||
      pending.size >= LOOKUPS_AT_ONCE ||
      lookups >= LOOKUPS_IN_A_RUN ||
      !refusals.namingRefusals()
    ) {
      refusals.refuse()
      return Promise.resolve()
    }
    lookups++
    const lookup = originalDestination(protocol, clientPort, port, prefix)
      .then(target => refusals.refuse(named(target)))
      .catch(() => refusals.refuse())
      .finally(() => pending.delete(lookup))
    pending.add(lookup)
    return lookup
  }
  // A datagram resent while its first is still being looked up is not looked up (nor counted) again.
  const looking = new Set<string>()
  const onTcp = (socket: net.Socket, port: number): void => {
    socket.on('error', () => undefined)
    void name('tcp', socket.remotePort ?? 0, port, target => target).then(() => socket.resetAndDestroy())
  }
  const onUdp = (socket: dgram.Socket, message: Buffer, from: dgram.RemoteInfo, port: number): void => {
    // Every query is answered at once, whatever is looked up: a resolver asking A and AAAA from one port
    // must not wait out its timeout for the second.
    const query = dnsQuestion(message)
    if (query && !closed)
      try {
        socket.send(query.refusal, from.port, from.address, () => undefined)
      } catch {
        // The socket closed under us: the rules are gone, nothing to answer.
      }
    const key = `${from.address} ${from.port}`
    if (looking.has(key)) return
    looking.add(key)
    void name('udp', from.port, port, target =>
      query && target.endsWith(':53') ? `udp ${target} (a DNS lookup of ${query.name})` : `udp ${target}`
    ).then(() => looking.delete(key))
  }
  const listening = await bindFirstFree(onTcp, onUdp)
  return {
    port: listening.port,
    close: async () => {
      closed = true
      await Promise.all(pending)
      await listening.close()
    }
  }
}

/** One port for all four; another try when the port taken on 127.0.0.1 is in use on ::1. */
async function bindFirstFree(
  onTcp: Parameters<typeof bindAll>[1],
  onUdp: Parameters<typeof bindAll>[2]
): Promise<{ port: number; close(): Promise<void> }> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await bindAll(0, onTcp, onUdp)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE' || attempt === 5) throw error
    }
  }
}
