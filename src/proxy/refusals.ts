// The refusal listener: where the egress rules (egress.ts) send the agent's other TCP and UDP. It reads where
// each was going from the kernel's connection tracking and names it (for DNS, the host asked for), then resets
// the connection, answers a DNS query REFUSED or drops the datagram. Names are bounded: a flood of refusals
// costs a count, not a lookup each.
import { readFile } from 'node:fs/promises'
import dgram from 'node:dgram'
import net, { type AddressInfo } from 'node:net'
import { runProcess } from '../proc/index.js'
import { ipv6On, SYSTEM_PATH } from './egress.js'
import type { ModelProxy } from './server.js'

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
      argv: [...prefix, 'grep', '-F', `dport=${clientPort} `, file],
      cwd: '/',
      env: { PATH: SYSTEM_PATH }
    })
    if (read.exitCode === 2 || read.spawnError) return `an unknown destination (${file} cannot be read)`
    table = read.stdout.head.toString('utf8')
  }
  // "ipv4 2 tcp 6 117 SYN_SENT src=A dst=B sport=C dport=D ... src=127.0.0.1 dst=.. sport=LISTEN dport=C' ...":
  // the first tuple is the connection as the agent made it, the second as the listener sees it. Matched on
  // the second: where the agent's port C is still held by an earlier connection's entry (a refusal it just
  // made), the nat gives this one another port C', the one the listener sees.
  for (const line of table.split('\n')) {
    const tuple =
      /^ipv[46]\s+\d+\s+(\w+)\s.*?\bdst=(\S+) sport=\d+ dport=(\d+)\b.*\bsport=(\d+) dport=(\d+)/.exec(line)
    if (tuple && tuple[1] === protocol && Number(tuple[4]) === listenPort && Number(tuple[5]) === clientPort)
      return `${hostOf(tuple[2])}:${tuple[3]}`
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

/** Where a redirected connection was going (originalDestination's contract: never rejects on a missing entry). */
export type DestinationLookup = typeof originalDestination

/**
 * Where the agent's redirected connections and datagrams arrive: each is named through `refusals`; a
 * connection is reset, a DNS query answered REFUSED at once (by us, on loopback), other datagrams dropped.
 * `prefix` is the argv that reads conntrack when the action is not root (sudo -n). Names are recorded in the
 * order the refusals arrived, whatever order their lookups end in. Closing waits for the lookups in flight,
 * so every refusal is in the record.
 */
export async function startRefusalListener(
  refusals: Pick<ModelProxy, 'refuse' | 'namingRefusals'>,
  prefix: string[] = [],
  lookup: DestinationLookup = originalDestination
): Promise<RefusalListener> {
  const pending = new Set<Promise<void>>()
  // The first refused are the first named (and warned one by one), however long their lookups took.
  let recorded: Promise<void> = Promise.resolve()
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
    const target = lookup(protocol, clientPort, port, prefix)
      .then(named)
      .catch(() => undefined)
    recorded = recorded.then(async () => refusals.refuse(await target))
    const done: Promise<void> = target.then(() => pending.delete(done)).then(() => undefined)
    pending.add(done)
    return done
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
      await recorded
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
