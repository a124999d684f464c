// The egress rules in a real run: the built CLI with `--isolation user --model-proxy`, inside a network
// namespace of the test's own (unshare --net as root, so the machine's iptables are not touched). A stand-in
// `claude` (run as the agent's user) tries the proxy and another loopback port: model-only lets it reach the
// proxy alone; open lets it reach both (the control: the refusal is the rules'); allow-list lets it reach an
// allowed host through the proxy's CONNECT, and only so; without iptables the run says egress is not enforced;
// no rule is left after the run.
import { execFileSync, spawnSync } from 'node:child_process'
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, expect, test } from '@jest/globals'
import type { Privilege } from '../../src/security/index.js'
import {
  TEST_AGENT_USER,
  cliForAnyUser,
  describeIsolated,
  isolationStartPaths,
  sudoRunner,
  whyNoIsolation
} from '../support/isolation.js'
import { egressProbeAgent } from '../support/netns.js'

const CLI = path.resolve('dist/cli/index.js')
const OTHER_PORT = 47999
const tools = ['unshare', 'iptables', 'ip6tables', 'ip'].filter(
  tool => spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0
)
const why =
  process.getuid?.() !== 0
    ? 'a network namespace of its own needs root'
    : tools.length > 0
      ? `${tools.join(', ')} missing`
      : whyNoIsolation()

const dirs: string[] = []
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

// Also IPv6 (TCP to ::1), UDP (v4 and v6) and a DNS lookup: each refused and named. Then a flood of 150
// connections, each to a port of its own: the log and the record name only so many.
const FLOOD = 150
const AGENT = egressProbeAgent(OTHER_PORT, "'egress.json'", { v6AndUdp: true, flood: FLOOD })
// allow-list: root's server on an address of the namespace's own, as an outside host would be (not loopback,
// which NO_PROXY sends around the proxy), through the proxy's CONNECT and directly; loopback and ::1 through
// the CONNECT too (not allowed).
const ALLOWED = '198.51.100.1'
const TUNNELS = [`${ALLOWED}:${OTHER_PORT}`, `127.0.0.1:${OTHER_PORT}`, `[::1]:${OTHER_PORT}`]
const TUNNEL_AGENT = egressProbeAgent(OTHER_PORT, "'egress.json'", {
  connect: TUNNELS,
  direct: { allowed: [ALLOWED, OTHER_PORT] }
})
const PLAIN_AGENT = egressProbeAgent(OTHER_PORT, "'egress.json'")
// A setup command (npm ci's place): through the HTTPS_PROXY it was given, a CONNECT to the allowed host.
const SETUP_PROBE = `#!${process.execPath}
const proxy = process.env.HTTPS_PROXY
if (!proxy) { console.log('no HTTPS_PROXY'); process.exit(1) }
const url = new URL(proxy)
const s = require('node:net').connect(Number(url.port), url.hostname, () => s.write('CONNECT ${ALLOWED}:${OTHER_PORT} HTTP/1.1\\r\\n\\r\\n'))
let got = ''
s.on('data', d => { got += d; if (got.includes('answered')) s.destroy() })
s.on('close', () => { console.log(got.includes('answered') ? 'setup reached the allowed host: answered' : 'no answer: ' + got); process.exitCode = got.includes('answered') ? 0 : 1 })
s.on('error', e => console.log(e.code))
s.setTimeout(10000, () => s.destroy())
`

// An attack: a DNS query whose name carries a newline and a workflow command, sent before the probes.
const INJECT = `#!${process.execPath}
const name = ['x\\n::error::owned-by-the-agent', 'org']
const question = Buffer.concat([...name.map(l => Buffer.concat([Buffer.from([l.length]), Buffer.from(l)])), Buffer.from([0, 0, 1, 0, 1])])
const packet = Buffer.concat([Buffer.from([0x12, 0x34, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0]), question])
const s = require('node:dgram').createSocket('udp4')
const done = () => { try { s.close() } catch {} }
s.on('message', done)
s.on('error', done)
setTimeout(done, 3000)
s.send(packet, 53, '127.0.0.53')
`

// Inside the namespace: loopback up, a server of root's on the other port, the run, then the rules left.
// AS runs the CLI as the job's user (empty: root); NO_V6_NAT hides the IPv6 nat table from ip6tables;
// NO_IPTABLES hides iptables. The CLI runs in the background so that a TERM (spawnSync's timeout) is handled
// at once: the CLI and the server are stopped with the script, never left running in the namespace.
const SCRIPT = `set -e
ip link set lo up
# A route (and an address of its own) for the outside: connect() to it gets as far as the rules, as on a runner.
ip addr add 198.51.100.1/32 dev lo
ip route add default dev lo src 198.51.100.1
ip -6 addr add 2001:db8::1/128 dev lo nodad
ip -6 route add default dev lo
if [ -n "$NO_V6_NAT" ]; then
  # A kernel without IPv6 nat, as our ip6tables sees it: every call on the nat table fails (and is logged).
  mkdir "$OUT/sbin"
  cp -a /usr/local/sbin/. "$OUT/sbin/"
  cat > "$OUT/sbin/ip6tables" <<SHIM
#!/bin/sh
for a in "\\$@"; do if [ "\\$a" = nat ]; then echo "\\$*" >> "$OUT/no-v6-nat"; echo "ip6tables: table nat does not exist" >&2; exit 3; fi; done
exec /usr/sbin/ip6tables "\\$@"
SHIM
  chmod 755 "$OUT/sbin/ip6tables"
  mount --bind "$OUT/sbin" /usr/local/sbin
fi
if [ -n "$NO_IPTABLES" ]; then
  # A runner without iptables: its alternative is gone (ip6tables and the rest stay).
  mkdir "$OUT/alternatives"
  cp -a /etc/alternatives/. "$OUT/alternatives/"
  rm "$OUT/alternatives/iptables"
  mount --bind "$OUT/alternatives" /etc/alternatives
fi
if [ -n "$AS" ]; then $AS cat /proc/net/nf_conntrack > /dev/null 2>&1 && echo readable > "$OUT/conntrack" || echo unreadable > "$OUT/conntrack"; fi
"$NODE" -e "$SERVERS" &
server=$!
cli=
trap 'kill $server $cli 2>/dev/null; exit 143' TERM
while [ ! -e "$OUT/ready" ]; do sleep 0.1; done
set +e
$AS "$NODE" "$CLI" run . -n 1 --record-dir "$OUT/record" --isolation user --agent-user "$AGENT_USER" --model-proxy --agent-network "$NETWORK" $ALLOWED < /dev/null > "$OUT/cli.log" 2>&1 &
cli=$!
wait $cli
echo $? > "$OUT/exit"
[ -z "$NO_V6_NAT" ] || umount /usr/local/sbin
[ -z "$NO_IPTABLES" ] || umount /etc/alternatives
iptables -S > "$OUT/rules"
iptables -t nat -S >> "$OUT/rules"
ip6tables -S >> "$OUT/rules"
ip6tables -t nat -S >> "$OUT/rules"
kill $server
`

function project(owner?: { uid: number; gid: number }, agent = AGENT, setup = false): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'ralph-egress-run-'))
  dirs.push(dir)
  const frontmatter = setup ? 'agent: ./claude\nsetup: ./setup-probe\n' : 'agent: ./claude\n'
  writeFileSync(path.join(dir, 'RALPH.md'), `---\n${frontmatter}---\nWork.\n`)
  writeFileSync(path.join(dir, 'probe'), agent)
  writeFileSync(path.join(dir, 'inject'), INJECT)
  writeFileSync(path.join(dir, 'claude'), '#!/bin/sh\n./inject\nexec ./probe\n')
  writeFileSync(path.join(dir, 'setup-probe'), SETUP_PROBE)
  for (const program of ['probe', 'inject', 'claude', 'setup-probe'])
    chmodSync(path.join(dir, program), 0o755)
  const env = { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@l' }
  for (const args of [
    ['init', '-q', '-b', 'main'],
    ['add', '-A'],
    ['-c', 'user.name=t', '-c', 'user.email=t@l', 'commit', '-qm', 'start']
  ])
    execFileSync('git', args, { cwd: dir, env })
  if (owner) execFileSync('chown', ['-R', `${owner.uid}:${owner.gid}`, dir])
  return dir
}

/** root's servers on the other port: TCP on 127.0.0.1, ::1 and the allowed address, UDP on 127.0.0.1 and ::1; each answers 'answered'. */
const SERVERS = `const net = require('node:net'), dgram = require('node:dgram'), fs = require('node:fs')
let left = 5
const up = () => { if (--left === 0) fs.writeFileSync(process.env.OUT + '/ready', '') }
for (const host of ['127.0.0.1', '::1', '${ALLOWED}']) net.createServer(c => c.end('answered')).listen(${OTHER_PORT}, host, up)
for (const [type, host] of [['udp4', '127.0.0.1'], ['udp6', '::1']]) {
  const s = dgram.createSocket(type)
  s.on('message', (m, from) => s.send('answered', from.port, from.address))
  s.bind(${OTHER_PORT}, host, up)
}`

/**
 * One run in a fresh namespace, the CLI started as root or as a job user with passwordless sudo (GitHub's
 * `runner`): what the agent reached, the run's warnings and the iptables rules after.
 */
function runIn(
  network: string,
  start: Privilege = 'root',
  options: {
    noV6Nat?: boolean
    noIptables?: boolean
    allowedHosts?: string[]
    agent?: string
    setup?: boolean
  } = {}
) {
  const runner = start === 'sudo' ? sudoRunner() : undefined
  const dir = project(runner, options.agent, options.setup)
  const out = mkdtempSync(path.join(tmpdir(), 'ralph-egress-run-out-'))
  dirs.push(out)
  if (runner) chmodSync(out, 0o777)
  const as = runner
    ? `setpriv --reuid=${runner.uid} --regid=${runner.gid} --init-groups env HOME=/home/${runner.name}`
    : ''
  const result = spawnSync('unshare', ['--net', '--mount', 'sh', '-c', SCRIPT], {
    cwd: dir,
    encoding: 'utf8',
    timeout: 180_000,
    env: {
      PATH: process.env.PATH,
      LANG: 'C.UTF-8',
      HOME: process.env.HOME,
      NODE: process.execPath,
      CLI: runner ? cliForAnyUser() : CLI,
      OUT: out,
      OTHER_PORT: String(OTHER_PORT),
      SERVERS,
      AGENT_USER: TEST_AGENT_USER,
      NETWORK: network,
      AS: as,
      NO_V6_NAT: options.noV6Nat ? '1' : '',
      NO_IPTABLES: options.noIptables ? '1' : '',
      ALLOWED: (options.allowedHosts ?? []).map(host => `--allowed-hosts ${host}`).join(' '),
      ANTHROPIC_API_KEY: 'sk-ant-test-not-a-real-key',
      // Nothing answers there: the proxy (root) gets no reply, which is fine, the agent only connects.
      ANTHROPIC_BASE_URL: 'http://127.0.0.1:9'
    }
  })
  const log = (): string => readFileSync(path.join(out, 'cli.log'), 'utf8')
  if (result.status !== 0) throw new Error(`the namespace script failed: ${result.stderr}\n${log()}`)
  const status = JSON.parse(readFileSync(path.join(out, 'record', 'status.json'), 'utf8')) as {
    warnings: string[]
    modelProxy: { refused: string[]; refusedUnnamed?: number }
    setup?: { passed: boolean; tail: string }[]
  }
  let reached: Record<string, string>
  try {
    reached = JSON.parse(readFileSync(path.join(dir, 'egress.json'), 'utf8')) as Record<string, string>
  } catch {
    throw new Error(`the agent left no egress.json:\n${log()}`)
  }
  const read = (name: string): string => {
    try {
      return readFileSync(path.join(out, name), 'utf8').trim()
    } catch {
      return ''
    }
  }
  return {
    exit: Number(read('exit')),
    conntrack: read('conntrack'),
    noV6Nat: read('no-v6-nat'),
    reached,
    warnings: status.warnings,
    modelProxy: status.modelProxy,
    setup: status.setup,
    rules: readFileSync(path.join(out, 'rules'), 'utf8'),
    log: log()
  }
}

const agentUid = (): number =>
  Number(execFileSync('id', ['-u', TEST_AGENT_USER], { encoding: 'utf8' }).trim())

const refusedLine = (target: string, network = 'model-only'): string =>
  target.startsWith('udp ')
    ? `agent-network ${network} refused the agent a datagram to ${target.slice(4)}: only agent-network open lets UDP out (hosts in allowed-hosts need no DNS lookup: the proxy resolves them)`
    : `agent-network ${network} refused the agent a connection to ${target}: add it to allowed-hosts (agent-network allow-list) if the agent needs it`

describeIsolated('egress rules in a run of the CLI (isolation user, model proxy)', why)(
  'egress rules in a run of the CLI (isolation user, model proxy)',
  () => {
    // sudo: the CLI runs as a job user with passwordless sudo, as on GitHub-hosted runners: the rules and the
    // conntrack reads go through `sudo -n`.
    test.each(isolationStartPaths())(
      'model-only, started with %s: the agent reaches the proxy alone, each refused connection is named; no rule is left',
      start => {
        const run = runIn('model-only', start)
        expect(run.exit).toBe(0)
        // The job's user cannot read conntrack itself: the names below came through sudo.
        expect(run.conntrack).toBe(start === 'sudo' ? 'unreadable' : '')
        // Accepted by the refusal listener, named, then reset: neither server answered.
        expect(run.reached).toMatchObject({ proxy: 'open', other: 'ECONNRESET', outside: 'ECONNRESET' })
        // IPv6 and UDP are refused too: no server answered them.
        for (const attack of ['other6', 'udp', 'udp6']) expect(run.reached[attack]).not.toBe('answered')
        expect(run.warnings.filter(w => w.includes('egress'))).toEqual([])
        for (const target of [`127.0.0.1:${OTHER_PORT}`, '192.0.2.10:443'])
          expect(run.warnings).toContain(refusedLine(target))
        // IPv6 TCP (loopback and outside), UDP (v4, v6) and a DNS lookup are named too; the lookup is
        // answered REFUSED, on loopback.
        expect(run.reached).toMatchObject({
          other6: 'ECONNRESET',
          outside6: 'ECONNRESET',
          udp: 'timeout',
          udp6: 'timeout',
          dns: 'EREFUSED'
        })
        for (const target of [
          `[::1]:${OTHER_PORT}`,
          '[2001:db8::5]:443',
          `udp 127.0.0.1:${OTHER_PORT}`,
          `udp [::1]:${OTHER_PORT}`,
          'udp 127.0.0.53:53 (a DNS lookup of registry.npmjs.org)'
        ])
          expect(run.warnings).toContain(refusedLine(target))
        expect(run.log).toContain(`refused the agent a connection to 192.0.2.10:443`)
        expect(run.log).toContain(`refused the agent a connection to [2001:db8::5]:443`)
        // An attack: a DNS name with a newline and a workflow command is named without them.
        expect(run.warnings).toContain(
          refusedLine('udp 127.0.0.53:53 (a DNS lookup of a name with other characters than a host name)')
        )
        expect(run.log).not.toContain('owned-by-the-agent')
        expect(JSON.stringify(run.modelProxy)).not.toContain('owned-by-the-agent')
        // The injection, the seven probes and the flood: ten warned one by one, the rest in one line; the
        // record names 100.
        const probeNames = [
          `127.0.0.1:${OTHER_PORT}`,
          '192.0.2.10:443',
          `[::1]:${OTHER_PORT}`,
          '[2001:db8::5]:443',
          `udp 127.0.0.1:${OTHER_PORT}`,
          `udp [::1]:${OTHER_PORT}`,
          'udp 127.0.0.53:53 (a DNS lookup of registry.npmjs.org)',
          'udp 127.0.0.53:53 (a DNS lookup of a name with other characters than a host name)'
        ]
        const probes = probeNames.length
        expect(run.warnings.filter(w => /refused the agent a (connection|datagram) to/.test(w))).toHaveLength(
          10
        )
        // The flood's refusals are named while the lookups keep up (16 at once, 100 in all), else counted: how
        // many of each depends on the machine's load (a loaded CI named fewer than 100), never their sum.
        const named = run.modelProxy.refused.length
        expect(named).toBeGreaterThan(10)
        expect(named).toBeLessThanOrEqual(100)
        expect(run.warnings).toContain(
          `agent-network model-only refused the agent ${named - 10} more destination(s), named in status.json (modelProxy.refused) and ${probes + FLOOD - named} connection(s) or datagram(s) counted only, not named (past the first 100, or more at once than the lookups kept up with) (modelProxy.refusedUnnamed)`
        )
        // The probes first (names are recorded in the order the refusals arrived), then the flood's ports; nothing else.
        expect(
          run.modelProxy.refused.filter(
            target => !/^127\.0\.0\.1:48[01]\d\d$/.test(target) && !probeNames.includes(target)
          )
        ).toEqual([])
        // Each refusal once: named or counted.
        expect(run.modelProxy.refusedUnnamed).toBe(probes + FLOOD - named)
        expect(run.rules).toContain('-P OUTPUT ACCEPT')
        expect(run.rules).not.toContain('RALPH-AGENT')
      },
      240_000
    )

    test("open (the control): the same agent reaches the other port, so the refusal above is the rules' doing", () => {
      const run = runIn('open')
      expect(run.reached).toMatchObject({
        proxy: 'open',
        other: 'answered',
        other6: 'answered',
        udp: 'answered',
        udp6: 'answered',
        // Nothing serves DNS in the namespace: without the rules the lookup gets no DNS answer at all.
        dns: 'ECONNREFUSED'
      })
      // A default IPv6 route through loopback is a reject route: without the rules the kernel answers the
      // outside IPv6 address itself (no listener resets it, nothing names it).
      expect(run.reached.outside6).toBe('ENETUNREACH')
      expect(run.warnings.join('\n')).not.toContain('refused the agent')
      expect(run.rules).not.toContain('RALPH-AGENT')
    }, 240_000)

    test("allow-list: an allowed host answers through the proxy's CONNECT alone; directly, it is refused and named as allowed but bypassing the proxy; hosts not allowed (loopback too) get 403 and are named; no rule is left", () => {
      const run = runIn('allow-list', 'root', { allowedHosts: [ALLOWED], agent: TUNNEL_AGENT })
      expect(run.exit).toBe(0)
      expect(run.reached).toEqual({
        [`connect ${ALLOWED}:${OTHER_PORT}`]: 'answered',
        [`connect 127.0.0.1:${OTHER_PORT}`]: '403',
        [`connect [::1]:${OTHER_PORT}`]: '403',
        proxy: 'open',
        // The same server, directly: the rules refuse it (allowed-hosts is for the proxy's CONNECT).
        allowed: 'ECONNRESET',
        other: 'ECONNRESET',
        outside: 'ECONNRESET'
      })
      // (The injected DNS query runs before every probe agent.)
      const injected = 'udp 127.0.0.53:53 (a DNS lookup of a name with other characters than a host name)'
      expect([...run.modelProxy.refused].sort()).toEqual(
        [
          `${ALLOWED}:${OTHER_PORT}`,
          `127.0.0.1:${OTHER_PORT}`,
          '192.0.2.10:443',
          `[::1]:${OTHER_PORT}`,
          injected
        ].sort()
      )
      const refusals = run.warnings.filter(w => w.includes('refused the agent'))
      expect(refusals.sort()).toEqual(
        [
          `agent-network allow-list refused the agent a direct connection to ${ALLOWED}:${OTHER_PORT}: ${ALLOWED} is in allowed-hosts, reached only through the proxy's CONNECT (the HTTPS_PROXY in the agent's environment)`,
          refusedLine(`127.0.0.1:${OTHER_PORT}`, 'allow-list'),
          refusedLine('192.0.2.10:443', 'allow-list'),
          refusedLine(`[::1]:${OTHER_PORT}`, 'allow-list'),
          refusedLine(injected, 'allow-list')
        ].sort()
      )
      expect(run.rules).toContain('-P OUTPUT ACCEPT')
      expect(run.rules).not.toContain('RALPH-AGENT')
    }, 240_000)

    test("allow-list: a setup command (npm ci's place) shares the agent's rules and its way out: HTTPS_PROXY, through which it reaches the allowed host", () => {
      const run = runIn('allow-list', 'root', { allowedHosts: [ALLOWED], agent: PLAIN_AGENT, setup: true })
      expect(run.setup).toEqual([
        expect.objectContaining({
          passed: true,
          tail: expect.stringContaining('setup reached the allowed host: answered')
        })
      ])
      expect(run.exit).toBe(0)
      expect(run.rules).not.toContain('RALPH-AGENT')
    }, 240_000)

    test('a runner without iptables: the run says egress is not enforced, and it is not (the agent reaches the other port); the proxy is still its model endpoint', () => {
      const run = runIn('model-only', 'root', { noIptables: true, agent: PLAIN_AGENT })
      expect(run.exit).toBe(0)
      expect(run.warnings).toContain(
        'egress is not enforced (agent-network model-only): iptables is not installed; the proxy still holds the model key and meters every token'
      )
      expect(run.reached).toMatchObject({ proxy: 'open', other: 'answered' })
      expect(run.modelProxy.refused).toEqual([])
    }, 240_000)

    test('a kernel without IPv6 nat: IPv6 is still refused (unnamed), IPv4 still named, the run goes on; no rule is left', () => {
      const run = runIn('model-only', 'root', { noV6Nat: true })
      // The IPv6 nat calls were made, and failed.
      expect(run.noV6Nat).toContain('-t nat')
      // No server of root's answered over IPv6: the filter rules rejected it (a reset by the kernel, not the
      // listener's accept-and-reset), and nothing names it.
      expect(run.reached).toMatchObject({ proxy: 'open', other: 'ECONNRESET', other6: 'ECONNREFUSED' })
      for (const attack of ['other6', 'outside6', 'udp6']) expect(run.reached[attack]).not.toBe('answered')
      expect(run.warnings).toContain(refusedLine(`127.0.0.1:${OTHER_PORT}`))
      expect(run.warnings).toContain(refusedLine('udp 127.0.0.53:53 (a DNS lookup of registry.npmjs.org)'))
      expect(run.warnings.join('\n')).not.toMatch(/\[::1\]|2001:db8/)
      // The run goes on, enforced, and says why IPv6 goes unnamed.
      expect(run.warnings.filter(w => w.includes('egress'))).toEqual([])
      expect(run.warnings).toContain(
        "the agent's IPv6 connections are refused but not named (this kernel has no IPv6 nat: ip6tables -t nat -N RALPH-AGENT-" +
          `${agentUid()} failed: ip6tables: table nat does not exist)`
      )
      // A gate-less run at its iteration cap ended normally.
      expect(run.exit).toBe(0)
      expect(run.rules).not.toContain('RALPH-AGENT')
    }, 240_000)
  }
)
