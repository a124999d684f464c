// The egress rules for real: iptables inside a network namespace of the test's own (unshare --net as root),
// so nothing else on the machine is touched. A process of the agent's uid (nobody stands in for it) reaches
// the proxy's port and nothing else; root in the same namespace is not restricted; the rules are gone after
// remove, and after a run that never removed them (a cancel) the post step's removal takes them away.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import dgram from 'node:dgram'
import net from 'node:net'
import { egressChain, removeEgressRules, restrictEgress } from '../../src/proxy/egress.js'
import { dnsQuestion, startRefusalListener } from '../../src/proxy/refusals.js'

const AGENT_UID = 65534
const usable =
  process.platform === 'linux' &&
  process.getuid?.() === 0 &&
  ['unshare', 'nsenter', 'iptables', 'ip', 'setpriv'].every(
    tool => spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0
  )
const describeAsRoot = usable ? describe : describe.skip
if (!usable)
  process.stderr.write('Skipping the egress tests: they need root, unshare, nsenter, ip and iptables\n')

let holder: ChildProcess
let prefix: string[]
let servers: ChildProcess
let ports: { proxy: number; other: number; outside: number }

/** A line from a child's stdout. */
const firstLine = (child: ChildProcess): Promise<string> =>
  new Promise((resolve, reject) => {
    let out = ''
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8')
      if (out.includes('\n')) resolve(out.split('\n')[0])
    })
    child.on('exit', code => reject(new Error(`exited ${code} before a line: ${out}`)))
  })

const SERVERS = `
const net = require('node:net')
const listen = host => new Promise(r => { const s = net.createServer(c => { c.on('error', () => {}); c.end('hi') }); s.listen(0, host, () => r(s.address().port)) })
Promise.all([listen('127.0.0.1'), listen('127.0.0.1'), listen('10.9.9.1')]).then(([proxy, other, outside]) =>
  console.log(JSON.stringify({ proxy, other, outside })))
`

/** Tries each target as `uid` inside the namespace: 'open' or the connect error's code. */
function tryConnect(uid: number, targets: Record<string, [string, number]>): Record<string, string> {
  const script = `
const net = require('node:net')
const targets = ${JSON.stringify(targets)}
Promise.all(Object.entries(targets).map(([name, [host, port]]) => new Promise(r => {
  const s = net.connect(port, host, () => { s.destroy(); r([name, 'open']) })
  s.on('error', e => r([name, e.code]))
  s.setTimeout(10000, () => { s.destroy(); r([name, 'timeout']) })
}))).then(all => console.log(JSON.stringify(Object.fromEntries(all))))
`
  const as = uid === 0 ? [] : ['setpriv', `--reuid=${uid}`, `--regid=${uid}`, '--clear-groups']
  const result = spawnSync(prefix[0], [...prefix.slice(1), ...as, process.execPath, '-e', script], {
    encoding: 'utf8',
    timeout: 60_000
  })
  if (result.status !== 0) throw new Error(`the connect script failed: ${result.stderr}`)
  return JSON.parse(result.stdout) as Record<string, string>
}

const rulesInNamespace = (): string =>
  spawnSync(prefix[0], [...prefix.slice(1), 'iptables', '-S'], { encoding: 'utf8' }).stdout

describeAsRoot('egress rules on the agent uid', () => {
  beforeAll(async () => {
    // The namespace lives as long as this shell; a second address stands for the world outside.
    holder = spawn(
      'unshare',
      [
        '--net',
        'sh',
        '-c',
        'ip link set lo up && ip addr add 10.9.9.1/32 dev lo && echo ready && exec sleep 600'
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] }
    )
    expect(await firstLine(holder)).toBe('ready')
    prefix = ['nsenter', `--net=/proc/${holder.pid}/ns/net`]
    servers = spawn(prefix[0], [...prefix.slice(1), process.execPath, '-e', SERVERS], {
      stdio: ['ignore', 'pipe', 'inherit']
    })
    ports = JSON.parse(await firstLine(servers)) as typeof ports
  }, 60_000)

  afterAll(() => {
    servers?.kill('SIGKILL')
    holder?.kill('SIGKILL')
  })

  const targets = (): Record<string, [string, number]> => ({
    proxy: ['127.0.0.1', ports.proxy],
    otherLoopback: ['127.0.0.1', ports.other],
    outside: ['10.9.9.1', ports.outside]
  })

  it('lets the agent uid reach only the proxy, leaves root alone, and leaves nothing behind', async () => {
    expect(tryConnect(AGENT_UID, targets())).toEqual({
      proxy: 'open',
      otherLoopback: 'open',
      outside: 'open'
    })
    const rules = await restrictEgress({ uid: AGENT_UID, proxyPort: ports.proxy, prefix })
    try {
      expect(rulesInNamespace()).toContain(
        `-A OUTPUT -m owner --uid-owner ${AGENT_UID} -j ${egressChain(AGENT_UID)}`
      )
      expect(tryConnect(AGENT_UID, targets())).toEqual({
        proxy: 'open',
        otherLoopback: 'ECONNREFUSED',
        outside: 'ECONNREFUSED'
      })
      expect(tryConnect(0, targets())).toEqual({ proxy: 'open', otherLoopback: 'open', outside: 'open' })
    } finally {
      expect(await rules.remove()).toEqual([])
    }
    expect(rulesInNamespace()).not.toContain('RALPH-AGENT')
    expect(tryConnect(AGENT_UID, targets())).toEqual({
      proxy: 'open',
      otherLoopback: 'open',
      outside: 'open'
    })
  }, 120_000)

  it('a run killed before it removed its rules: the next removal (post) takes them away', async () => {
    await restrictEgress({ uid: AGENT_UID, proxyPort: ports.proxy, prefix })
    // Applying again (a retried run) does not stack a second jump.
    await restrictEgress({ uid: AGENT_UID, proxyPort: ports.proxy, prefix })
    expect(rulesInNamespace().match(/--uid-owner 65534/g)).toHaveLength(1)
    expect(await removeEgressRules(AGENT_UID, prefix)).toEqual([])
    expect(rulesInNamespace()).not.toContain('RALPH-AGENT')
    expect(tryConnect(AGENT_UID, targets()).otherLoopback).toBe('open')
  }, 120_000)
})

/** A DNS query (id 0x1234, RD) for `labels`, type A, class IN, with an EDNS record after it. */
const query = (labels: string[]): Buffer =>
  Buffer.concat([
    Buffer.from([0x12, 0x34, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 1]),
    ...labels.map(label => Buffer.concat([Buffer.from([label.length]), Buffer.from(label, 'latin1')])),
    Buffer.from([0, 0, 1, 0, 1]),
    Buffer.from([0, 0, 41, 0x10, 0, 0, 0, 0, 0, 0, 0])
  ])

describe('the DNS question of a refused lookup', () => {
  it('names the host asked for and answers REFUSED to the same id and question, nothing else', () => {
    const asked = query(['registry', 'npmjs', 'org'])
    const found = dnsQuestion(asked)
    expect(found?.name).toBe('registry.npmjs.org')
    expect([...found!.refusal.subarray(0, 12)]).toEqual([0x12, 0x34, 0x81, 0x05, 0, 1, 0, 0, 0, 0, 0, 0])
    expect(found!.refusal.subarray(12)).toEqual(asked.subarray(12, 12 + 20 + 4))
  })

  it("keeps the agent's other characters out of the log (an attack: a workflow command in a label)", () => {
    expect(dnsQuestion(query(['x\n::error::owned', 'org']))?.name).toBe(
      'a name with other characters than a host name'
    )
  })

  it('is not fooled by an answer, a cut packet or a label longer than the packet', () => {
    const answer = query(['a', 'org'])
    answer[2] |= 0x80
    expect(dnsQuestion(answer)).toBeUndefined()
    expect(dnsQuestion(query(['registry', 'org']).subarray(0, 20))).toBeUndefined()
    expect(dnsQuestion(Buffer.from([1, 2, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 60, 97]))).toBeUndefined()
    expect(dnsQuestion(Buffer.from('probe'))).toBeUndefined()
  })
})

// The listener itself, reached directly on loopback (no rule redirects here, so conntrack has no entry: each
// refusal is named 'an unknown destination', which is all these tests need).
describe('the refusal listener', () => {
  const tally = () => {
    const named: string[] = []
    let counted = 0
    return {
      named,
      counted: () => counted,
      refuse: (target?: string) => (target === undefined ? counted++ : named.push(target)),
      namingRefusals: () => true
    }
  }

  it('answers REFUSED to each of two queries from one port at once (a resolver asks A and AAAA together)', async () => {
    const refusals = tally()
    const listener = await startRefusalListener(refusals)
    const socket = dgram.createSocket('udp4')
    const answers: number[] = []
    const both = new Promise<void>(resolve =>
      socket.on('message', answer => {
        answers.push(answer.readUInt16BE(0))
        if (answers.length === 2) resolve()
      })
    )
    const a = query(['registry', 'npmjs', 'org'])
    const aaaa = Buffer.from(a)
    aaaa.writeUInt16BE(0x5678, 0)
    socket.send(a, listener.port, '127.0.0.1')
    socket.send(aaaa, listener.port, '127.0.0.1')
    await both
    expect(answers.sort((x, y) => x - y)).toEqual([0x1234, 0x5678])
    socket.close()
    await listener.close()
    // The second came while the first was looked up: one name for the two.
    expect(refusals.named).toHaveLength(1)
  })

  it('closes after the lookups in flight: a refusal it was naming is in the record when close returns', async () => {
    const refusals = tally()
    const listener = await startRefusalListener(refusals)
    const socket = dgram.createSocket('udp4')
    const answered = new Promise(resolve => socket.once('message', resolve))
    socket.send(query(['a', 'org']), listener.port, '127.0.0.1')
    // The answer goes out before the lookup starts: when it arrives, the lookup is in flight (or done).
    await answered
    await listener.close()
    expect(refusals.named).toEqual(['udp an unknown destination (no conntrack entry)'])
    // After the close a datagram finds no listener, and nothing throws in ours.
    socket.send(query(['b', 'org']), listener.port, '127.0.0.1')
    await new Promise(resolve => setTimeout(resolve, 100))
    socket.close()
    expect(refusals.named).toHaveLength(1)
  })

  it('names refusals in the order they arrived, not the order their lookups ended: a slow lookup keeps its place', async () => {
    // A loaded machine: the first refusal's lookup ends only after the second one's.
    const refusals = tally()
    let releaseFirst = (): void => undefined
    const looked: number[] = []
    const lookup = (_protocol: 'tcp' | 'udp', clientPort: number): Promise<string> => {
      looked.push(clientPort)
      const target = `192.0.2.${looked.length}:443`
      if (looked.length > 1) return Promise.resolve(target)
      return new Promise(resolve => (releaseFirst = () => resolve(target)))
    }
    const listener = await startRefusalListener(refusals, [], lookup)
    const connect = () =>
      new Promise<void>(resolve => {
        const socket = net.connect(listener.port, '127.0.0.1')
        socket.on('error', () => undefined)
        socket.on('close', () => resolve())
      })
    const first = connect()
    while (looked.length < 1) await new Promise(resolve => setTimeout(resolve, 10))
    // The second is reset as soon as its own lookup ends: it waits for no one.
    await connect()
    expect(looked).toHaveLength(2)
    releaseFirst()
    await first
    await listener.close()
    expect(refusals.named).toEqual(['192.0.2.1:443', '192.0.2.2:443'])
  })

  it('counts, without a lookup, what comes past the cap', async () => {
    const refusals = { ...tally(), namingRefusals: () => false }
    const listener = await startRefusalListener(refusals)
    await new Promise<void>(resolve => {
      const socket = net.connect(listener.port, '127.0.0.1')
      socket.on('error', () => undefined)
      socket.on('close', () => resolve())
    })
    await listener.close()
    expect(refusals.named).toEqual([])
    expect(refusals.counted()).toBe(1)
  })
})
