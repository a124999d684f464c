// Each action step in a network namespace of its own (`unshare --net`, as root): the egress rules it sets live
// and die there, never on the machine. The job's servers outside (git, the API, the model servers) are
// reached through a unix socket each, which a namespace does not separate; inside, the step sees them on
// the same loopback ports. After the step, the namespace's iptables rules are appended to `<dir>/rules`.
import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import net from 'node:net'
import path from 'node:path'
import { whyNoIsolation } from './isolation.js'

/** Why a test cannot run steps in a namespace of their own here, or undefined when it can. */
export function whyNoNetns(): string | undefined {
  if (process.getuid?.() !== 0) return 'a network namespace of its own needs root'
  const missing = ['unshare', 'nsenter', 'iptables', 'ip'].filter(
    tool => spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0
  )
  if (missing.length > 0)
    return `${missing.join(', ')} missing (apt-get install iptables iproute2 util-linux)`
  return whyNoIsolation()
}

// In node, not sh: sh drops variables whose names it cannot hold, such as INPUT_GITHUB-TOKEN. A port in
// NETNS_CLOSED gets a server of root's that says `answered` and closes (a loopback port the agent must not reach).
const WRAP = `
const { execFileSync, spawn } = require('node:child_process')
const fs = require('node:fs')
const net = require('node:net')
const dir = process.env.NETNS_DIR
execFileSync('ip', ['link', 'set', 'lo', 'up'])
// A route (and an address of its own) for the outside: connect() to it gets as far as the rules, as on a runner.
execFileSync('ip', ['addr', 'replace', '198.51.100.1/32', 'dev', 'lo'])
execFileSync('ip', ['route', 'replace', 'default', 'dev', 'lo', 'src', '198.51.100.1'])
const listening = JSON.parse(process.env.NETNS_FORWARD).map(port => new Promise(ok =>
  net.createServer(c => {
    const u = net.connect(dir + '/fwd-' + port + '.sock')
    c.pipe(u).pipe(c)
    c.on('error', () => u.destroy())
    u.on('error', () => c.destroy())
  }).listen(port, '127.0.0.1', ok).unref()))
for (const port of JSON.parse(process.env.NETNS_CLOSED || '[]'))
  listening.push(new Promise(ok => net.createServer(c => c.end('answered')).listen(port, '127.0.0.1', ok).unref()))
Promise.all(listening).then(() => {
  const child = spawn(process.argv[1], process.argv.slice(2), { stdio: 'inherit' })
  fs.writeFileSync(dir + '/step.pid', String(child.pid))
  for (const signal of ['SIGTERM', 'SIGINT']) process.on(signal, () => child.kill(signal))
  child.on('close', (code, signal) => {
    fs.appendFileSync(dir + '/rules', '--- after a step\\n')
    for (const table of ['filter', 'nat'])
      fs.appendFileSync(dir + '/rules', execFileSync('iptables', ['-t', table, '-S'], { encoding: 'utf8' }))
    process.exit(code ?? (signal ? 128 : 1))
  })
})
`

export interface StepNamespace {
  /** runAction's `wrap`. */
  wrap: string[]
  /** Variables the wrapper reads: add them to the step's environment. */
  env: Record<string, string>
  /** The namespace's `iptables -S` (filter and nat) after each step so far. */
  rules(): string
  /** The pid of the step's own `node dist/index.js` (the last one started). */
  stepPid(): number
  /** Stops the forwarders (and removes a shared namespace). */
  close(): void
}

/**
 * Steps that run in a namespace of their own, `forward`ed ports reaching the servers outside on loopback and
 * `closed` ports answered (`answered`) by a server of root's inside. `dir` holds the sockets and the rules (writable by root).
 */
export function stepNamespace(
  dir: string,
  forward: number[],
  closed: number[] = [],
  options: { shared?: boolean } = {}
): StepNamespace {
  // shared: every step enters one namespace (main and post see the same rules), else each gets a fresh one.
  const pinned = options.shared ? `/run/netns/ralph-test-${path.basename(dir)}` : undefined
  if (pinned) {
    mkdirSync('/run/netns', { recursive: true })
    writeFileSync(pinned, '')
    execFileSync('unshare', [`--net=${pinned}`, 'true'])
  }
  const forwarders = forward.map(port =>
    net
      .createServer(c => {
        const t = net.connect(port, '127.0.0.1')
        c.pipe(t).pipe(c)
        c.on('error', () => t.destroy())
        t.on('error', () => c.destroy())
      })
      .listen(path.join(dir, `fwd-${port}.sock`))
  )
  const rules = path.join(dir, 'rules')
  return {
    wrap: [...(pinned ? ['nsenter', `--net=${pinned}`] : ['unshare', '--net']), process.execPath, '-e', WRAP],
    env: {
      NETNS_DIR: dir,
      NETNS_FORWARD: JSON.stringify(forward),
      NETNS_CLOSED: JSON.stringify(closed)
    },
    rules: () => (existsSync(rules) ? readFileSync(rules, 'utf8') : ''),
    stepPid: () => Number(readFileSync(path.join(dir, 'step.pid'), 'utf8')),
    close: () => {
      for (const forwarder of forwarders) forwarder.close()
      if (pinned) {
        spawnSync('umount', [pinned])
        rmSync(pinned, { force: true })
      }
    }
  }
}

/** The port of a loopback URL. */
export const portOf = (url: string): number => Number(new URL(url).port)

/**
 * An agent that tries the proxy (its ANTHROPIC_BASE_URL), another loopback port and an outside address, and
 * writes what each gave to `outFile` (a JS expression); with HOLD set it stays, as one still working at a cancel.
 * `connect` targets are tried through the proxy's CONNECT, `direct` ones (name: [host, port]) directly.
 */
export const egressProbeAgent = (
  otherPort: number,
  outFile: string,
  options: {
    v6AndUdp?: boolean
    flood?: number
    connect?: string[]
    direct?: Record<string, [string, number]>
  } = {}
): string => `#!${process.execPath}
const net = require('node:net')
const dgram = require('node:dgram')
const base = new URL(process.env.ANTHROPIC_BASE_URL)
// The proxy counts as reached when it accepts; the others only when their server answers (a refused
// connection may be accepted by the action's refusal listener, which names it and resets it).
const targets = { proxy: [base.hostname, Number(base.port)], other: ['127.0.0.1', ${otherPort}], outside: ['192.0.2.10', 443]${options.v6AndUdp ? `, other6: ['::1', ${otherPort}], outside6: ['2001:db8::5', 443]` : ''}, ...${JSON.stringify(options.direct ?? {})} }
// A datagram to a UDP server (v4 and v6) of root's: reached only when it answers.
const udp = (type, host) => new Promise(r => {
  const s = dgram.createSocket(type)
  const done = v => { clearTimeout(t); try { s.close() } catch {}; r(v) }
  const t = setTimeout(() => done('timeout'), 3000)
  s.on('message', d => done(String(d).trim()))
  s.on('error', e => done(e.code))
  s.send('probe', ${otherPort}, host, e => { if (e) done(e.code) })
})
// A DNS lookup through a resolver on loopback (as systemd-resolved's 127.0.0.53 on a runner): its answer's code.
const lookup = () => new Promise(r => {
  const resolver = new (require('node:dns').promises.Resolver)({ timeout: 3000, tries: 1 })
  resolver.setServers(['127.0.0.53'])
  resolver.resolve4('registry.npmjs.org').then(() => r(['dns', 'answered']), e => r(['dns', e.code]))
})
// Through the proxy the action gave it (HTTPS_PROXY, set under allow-list): a CONNECT to each target; what the
// tunnel's far end says when the proxy lets it through, else the proxy's status code.
const tunnel = target => new Promise(r => {
  const proxy = new URL(process.env.HTTPS_PROXY)
  const s = net.connect(Number(proxy.port), proxy.hostname, () => s.write('CONNECT ' + target + ' HTTP/1.1\\r\\nHost: ' + target + '\\r\\n\\r\\n'))
  let got = ''
  const done = () => {
    s.destroy()
    const status = /^HTTP\\/1\\.1 (\\d+)/.exec(got)
    r(['connect ' + target, status && status[1] === '200' ? got.slice(got.indexOf('\\r\\n\\r\\n') + 4).trim() : status ? status[1] : 'no answer'])
  }
  s.on('data', d => { got += d; if (!got.startsWith('HTTP/1.1 200') || got.includes('answered')) done() })
  s.on('close', done)
  s.on('error', done)
  s.setTimeout(10000, done)
})
const tunnels = ${JSON.stringify(options.connect ?? [])}.map(tunnel)
const datagrams = ${options.v6AndUdp ? `[udp('udp4', '127.0.0.1').then(v => ['udp', v]), udp('udp6', '::1').then(v => ['udp6', v]), lookup()]` : '[]'}
Promise.all([...tunnels, ...datagrams, ...Object.entries(targets).map(([name, [host, port]]) => new Promise(r => {
  const s = net.connect(port, host, () => { if (name === 'proxy') { s.destroy(); r([name, 'open']) } })
  s.on('data', d => { s.destroy(); r([name, String(d).trim()]) })
  s.on('close', () => r([name, 'closed']))
  s.on('error', e => r([name, e.code]))
  s.setTimeout(10000, () => { s.destroy(); r([name, 'timeout']) })
}))]).then(async all => {
  // flood: then as many connections as that, each to a loopback port of its own, ten at a time.
  for (let port = 48000; port < 48000 + ${options.flood ?? 0}; port += 10)
    await Promise.all([...Array(10).keys()].map(i => new Promise(r => {
      const s = net.connect(port + i, '127.0.0.1')
      s.on('close', r)
      s.on('error', () => undefined)
    })))
  require('node:fs').writeFileSync(${outFile}, JSON.stringify(Object.fromEntries(all)))
  // HOLD: the agent stays, as one still working when the job is cancelled.
  if (process.env.HOLD) setInterval(() => undefined, 60000)
})
`
