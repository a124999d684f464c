// The egress rules through dist/index.js as the runner runs it: `model-proxy: true`, `agent-network:
// model-only`, `isolation: user`, each step inside a network namespace of its own (unshare --net as root, so
// the machine's iptables are not touched). A stand-in `claude`, run as the agent's user, tries the proxy and
// another loopback port (a server of root's): it reaches the proxy alone, and no rule is left after main.
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync, rmSync } from 'node:fs'
import net from 'node:net'
import path from 'node:path'
import { afterAll, beforeAll, expect, test } from '@jest/globals'
import { createProject, runAction, startStand, type Project, type Stand } from '../action/harness.js'
import { describeIsolated, sharedDir, whyNoIsolation } from '../support/isolation.js'

const OTHER_PORT = 47998
const missing = ['unshare', 'iptables', 'ip'].filter(
  tool => spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0
)
const why =
  process.getuid?.() !== 0
    ? 'a network namespace of its own needs root'
    : missing.length > 0
      ? `${missing.join(', ')} missing`
      : whyNoIsolation()

// Tries the proxy (its ANTHROPIC_BASE_URL, the proxy's) and the other port; writes what it found to $OUT.
const AGENT = `#!${process.execPath}
const net = require('node:net')
const base = new URL(process.env.ANTHROPIC_BASE_URL)
const targets = { proxy: [base.hostname, Number(base.port)], other: ['127.0.0.1', ${OTHER_PORT}] }
Promise.all(Object.entries(targets).map(([name, [host, port]]) => new Promise(r => {
  const s = net.connect(port, host, () => { s.destroy(); r([name, 'open']) })
  s.on('error', e => r([name, e.code]))
  s.setTimeout(10000, () => { s.destroy(); r([name, 'timeout']) })
}))).then(all => require('node:fs').writeFileSync(process.env.OUT + '/egress.json', JSON.stringify(Object.fromEntries(all))))
`

// Each step: loopback up, root's server on the other port, the step, then the iptables rules it left. In node,
// not sh: sh drops variables whose names it cannot hold, such as INPUT_GITHUB-TOKEN.
const WRAP = `
const { execFileSync, spawnSync } = require('node:child_process')
const fs = require('node:fs')
execFileSync('ip', ['link', 'set', 'lo', 'up'])
// The job's servers (git, the API) live outside the namespace: reached through a unix socket each.
for (const port of JSON.parse(process.env.FORWARD))
  require('node:net').createServer(c => {
    const u = require('node:net').connect(process.env.OUT + '/fwd-' + port + '.sock')
    c.pipe(u).pipe(c)
    c.on('error', () => u.destroy())
    u.on('error', () => c.destroy())
  }).listen(port, '127.0.0.1').unref()
const server = require('node:net').createServer(c => c.end())
server.listen(Number(process.env.OTHER_PORT), '127.0.0.1', () => {
  const [node, bundle] = process.argv.slice(1)
  const child = require('node:child_process').spawn(node, [bundle], { stdio: 'inherit' })
  child.on('close', code => {
    fs.appendFileSync(process.env.OUT + '/rules', execFileSync('iptables', ['-S'], { encoding: 'utf8' }))
    server.close()
    process.exit(code ?? 1)
  })
})
`

let stand: Stand
let project: Project
let out: string
beforeAll(async () => {
  stand = await startStand()
}, 120_000)
afterAll(async () => {
  await project?.cleanup()
  await stand?.close()
  if (out) rmSync(out, { recursive: true, force: true })
})

describeIsolated('egress rules through dist/index.js (isolation user, model proxy)', why)(
  'egress rules through dist/index.js (isolation user, model proxy)',
  () => {
    test('model-only: the agent reaches the proxy and not another loopback port; no rule is left', async () => {
      out = sharedDir('ralph-egress-action-')
      project = await createProject({
        '.agents/ralphs/egress/RALPH.md': '---\nagent: ./claude\n---\nWork.\n',
        claude: { content: AGENT, mode: 0o755 }
      })
      const ports = [project.gitServer.url, project.api.url].map(url => Number(new URL(url).port))
      const forwarders = ports.map(port =>
        net
          .createServer(c => {
            const t = net.connect(port, '127.0.0.1')
            c.pipe(t).pipe(c)
            c.on('error', () => t.destroy())
            t.on('error', () => c.destroy())
          })
          .listen(path.join(out, `fwd-${port}.sock`))
      )
      const run = await runAction(project, stand, {
        inputs: {
          ralph: 'egress',
          'model-proxy': 'true',
          'agent-network': 'model-only',
          isolation: 'user',
          'max-iterations': '1',
          'upload-artifacts': 'false',
          'open-pr': 'false',
          'on-failure': 'none'
        },
        env: {
          ANTHROPIC_API_KEY: 'sk-ant-test-not-a-real-key',
          ANTHROPIC_BASE_URL: 'http://127.0.0.1:9',
          OUT: out,
          OTHER_PORT: String(OTHER_PORT),
          FORWARD: JSON.stringify(ports)
        },
        wrap: ['unshare', '--net', process.execPath, '-e', WRAP]
      })
      for (const forwarder of forwarders) forwarder.close()
      const log = `${run.main.stdout}\n${run.main.stderr}`
      if (!existsSync(path.join(out, 'egress.json')))
        throw new Error(`the agent left no egress.json:\n${log}`)
      const reached = JSON.parse(readFileSync(path.join(out, 'egress.json'), 'utf8')) as Record<
        string,
        string
      >
      expect(reached).toEqual({ proxy: 'open', other: 'ECONNREFUSED' })
      expect(log).not.toContain('egress is not enforced')
      expect(readFileSync(path.join(out, 'rules'), 'utf8')).not.toContain('RALPH-AGENT')
    }, 300_000)
  }
)
