// The egress rules through dist/index.js as the runner runs it: `model-proxy: true`, `agent-network:
// model-only`, `isolation: user`, each step inside a network namespace of its own (unshare --net as root, so
// the machine's iptables are not touched). A stand-in `claude`, run as the agent's user, tries the proxy and
// another loopback port (a server of root's): it reaches the proxy alone, and no rule is left after main.
import { existsSync, readFileSync, rmSync } from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, expect, test } from '@jest/globals'
import { createProject, runAction, startStand, type Project, type Stand } from '../action/harness.js'
import { describeIsolated, sharedDir } from '../support/isolation.js'
import { portOf, stepNamespace, whyNoNetns } from '../support/netns.js'

const OTHER_PORT = 47998
const why = whyNoNetns()

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
      const ns = stepNamespace(out, [project.gitServer.url, project.api.url].map(portOf), [OTHER_PORT])
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
          ...ns.env
        },
        wrap: ns.wrap
      })
      ns.close()
      const log = `${run.main.stdout}\n${run.main.stderr}`
      if (!existsSync(path.join(out, 'egress.json')))
        throw new Error(`the agent left no egress.json:\n${log}`)
      const reached = JSON.parse(readFileSync(path.join(out, 'egress.json'), 'utf8')) as Record<
        string,
        string
      >
      expect(reached).toEqual({ proxy: 'open', other: 'ECONNREFUSED' })
      expect(log).not.toContain('egress is not enforced')
      expect(ns.rules()).toContain('-P OUTPUT ACCEPT')
      expect(ns.rules()).not.toContain('RALPH-AGENT')
    }, 300_000)
  }
)
