// The action (dist/index.js, started as the runner starts it) with `model-proxy: true`, driving each of the
// five real CLIs behind the model proxy, the scripted model servers upstream (claude's over TLS with a test
// CA): the agent's environment and files hold no model key, every request reached upstream with the real key,
// the cost is metered at the wire, and a dollar budget crossed in a response stops the run.
import { testTempBase } from '../support/isolation.js'
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import path from 'node:path'
import { text, type ScriptedServer } from '../support/model-server/index.js'
import { makeTestCa, startTlsFront, type TestCa } from '../support/tls-front.js'
import { projectFiles, ralph } from '../action/fixtures.js'
import {
  GITHUB_TOKEN,
  createProject,
  runAction,
  startStand,
  type Project,
  type Stand
} from '../action/harness.js'
import type { LoopResult } from '../../src/loop/index.js'
import { sharedDir } from '../support/isolation.js'
import { portOf, stepNamespace, whyNoNetns } from '../support/netns.js'
import { DRIVERS, type LiveDriver } from './drivers.js'
import { describeWithAgent } from './live.js'

// Isolated and model-only, the product's defaults, wherever a step can have a network namespace of its own
// (root): the rules then live there, never on the machine. Elsewhere the same runs, the network open.
const noNetns = whyNoNetns()
if (noNetns) process.stderr.write(`The live proxy tests run without egress rules: ${noNetns}\n`)

let stand: Stand
let scratch: string
let ca: TestCa

beforeAll(async () => {
  stand = await startStand()
  ca = makeTestCa()
  scratch = mkdtempSync(path.join(testTempBase(), 'ralph-live-proxy-'))
  // Anyone may write here: the agent leaves what it saw in its environment and files (as its own user too).
  chmodSync(scratch, 0o1777)
}, 120_000)

afterAll(async () => {
  await stand?.close()
  ca?.remove()
  rmSync(scratch, { recursive: true, force: true })
})

/** The run's status.json, from the record folder under RUNNER_TEMP. */
function statusOf(p: Project): LoopResult {
  const dir = readdirSync(p.runnerTemp).find(name => name.startsWith('ralph-record-'))
  if (!dir) throw new Error(`no run record under ${p.runnerTemp}`)
  return JSON.parse(readFileSync(path.join(p.runnerTemp, dir, 'status.json'), 'utf8'))
}

const realKey = (d: LiveDriver): string => `sk-scripted-offline-${d.name}`

async function runBehindProxy(
  d: LiveDriver,
  turns: Parameters<typeof d.startServer>[0]['script'],
  inputs: Record<string, string>
): Promise<{ p: Project; server: ScriptedServer; run: Awaited<ReturnType<typeof runAction>> }> {
  const server = await d.startServer({ script: turns })
  // claude's upstream is HTTPS, verified with the test CA: the proxy's forwarding is HTTPS in the product.
  const front = d.name === 'claude' ? await startTlsFront(server.url, ca) : undefined
  const upstream = front?.url ?? server.url
  const home = mkdtempSync(path.join(scratch, `home-${d.name}-`))
  const p = await createProject(
    projectFiles(
      '',
      ralph({ agent: d.agent(), checks: ['exit 0'], body: 'Look around. Iteration {{ ralph.iteration }}.' })
    )
  )
  const servers = [p.gitServer.url, p.api.url, upstream]
  const ns = noNetns ? undefined : stepNamespace(sharedDir('ralph-live-netns-'), servers.map(portOf))
  try {
    const run = await runAction(p, stand, {
      inputs: {
        ralph: 'fix-tests',
        'max-iterations': '1',
        'open-pr': 'false',
        'on-failure': 'none',
        // The gate is green from the start (a workflow_dispatch is a hunt): the agent's requests are the test.
        'skip-if-green': 'false',
        'model-proxy': 'true',
        'model-upstream': upstream,
        ...(front ? { 'model-ca': ca.file } : {}),
        // The artifact service's blob store is not forwarded into the namespace: the record is read on disk.
        ...(ns ? { isolation: 'user', 'agent-network': 'model-only', 'upload-artifacts': 'false' } : {}),
        ...inputs
      },
      env: {
        ...d.env(server.url, home),
        // opencode's recipe puts its key in its config file; a workflow gives it in the environment.
        ...(d.name === 'opencode' ? { OPENAI_API_KEY: realKey(d) } : {}),
        GITHUB_TOKEN,
        ...ns?.env
      },
      ...(ns ? { wrap: ns.wrap } : {})
    })
    if (ns) {
      // The rules lived in the step's namespace and are gone after it.
      expect(run.main.stdout).not.toContain('egress is not enforced')
      expect(ns.rules()).toContain('-P OUTPUT ACCEPT')
      expect(ns.rules()).not.toContain('RALPH-AGENT')
    }
    return { p, server, run }
  } finally {
    ns?.close()
    await front?.close()
  }
}

for (const d of DRIVERS)
  describeWithAgent(d.name)(`the action with ${d.name} behind the model proxy`, () => {
    it('the agent holds only a placeholder key, the upstream gets the real one, and the cost is metered', async () => {
      const seen = path.join(scratch, `seen-${d.name}.txt`)
      // What a prompt-injected agent would look at: its environment and the configuration it was given.
      const look =
        // The shell's parent is the CLI: its whole environment, which gemini's shell tool filters.
        `env > ${seen}; tr '\\0' '\\n' < /proc/$PPID/environ >> ${seen}; ` +
        `for f in "$OPENCODE_CONFIG" "$CODEX_HOME/config.toml"; do ` +
        `[ -f "$f" ] && cat "$f" >> ${seen}; done; true`
      const { p, server, run } = await runBehindProxy(
        d,
        [d.shell(look), text('Looked.\n\n<promise>COMPLETE</promise>')],
        { 'max-cost': '5' }
      )
      try {
        expect(server.problems).toEqual([])
        if (run.main.exitCode !== 0) console.info(run.main.stdout.slice(-4000))
        expect(run.main.exitCode).toBe(0)
        expect(run.outputs['stop-reason']).toBe('all_checks_passed')
        expect(run.outputs['cost-source']).toBe('metered')
        expect(Number(run.outputs.cost)).toBeGreaterThan(0)
        const agentSaw = readFileSync(seen, 'utf8')
        expect(agentSaw).not.toContain(realKey(d))
        expect(agentSaw).toMatch(/ralph-proxy-[0-9a-f]{36}/)
        // Every model request went through the proxy: the real key on it, the placeholder never.
        const modelCalls = server.requests.filter(r => r.answer !== '' && !r.answer.startsWith('404'))
        expect(modelCalls.length).toBeGreaterThan(0)
        const wire = JSON.stringify(server.requests)
        expect(wire).toContain(realKey(d))
        expect(wire).not.toMatch(/ralph-proxy-[0-9a-f]{36}/)
        const status = statusOf(p)
        const usage = status.iterations[0].agent!.usage
        expect(usage.cost_source).toBe('metered')
        const requests = usage.requests ?? []
        expect(requests.length).toBeGreaterThanOrEqual(2)
        expect(requests.every(r => r.status === 200)).toBe(true)
        expect(status.modelProxy).toMatchObject({ requests: requests.length })
        // Nothing was refused but, at times, opencode's own look-up of the npm registry at start (its
        // update check, which autoupdate: false does not stop): a DNS query, named as it is refused.
        expect(
          status.modelProxy!.refused.filter(
            target =>
              !/^udp \S+:53 \(a DNS lookup of registry\.npmjs\.org\)$/.test(target) || d.name !== 'opencode'
          )
        ).toEqual([])
        // Every request the real CLI made is one the proxy forwards: none was refused as unpriceable.
        expect(status.modelProxy!.refusedRequests ?? []).toEqual([])
        const progress = readFileSync(path.join(status.recordDir, 'progress.md'), 'utf8')
        expect(progress).toContain(`cost $${usage.cost_usd.toFixed(4)} (metered)`)
        expect(progress).toContain(`Model requests metered at the wire: ${requests.length}`)
        // Where the CLI reports a figure of its own (claude's dollars; the others' tokens priced), both are shown.
        if (usage.agent_said)
          expect(progress).toMatch(
            /The agent's own figure: \$\d+\.\d{4} \((reported|estimated)\); metered minus that: [+-]\$\d+\.\d{4}/
          )
      } finally {
        await server.close()
        await p.cleanup()
      }
    })

    it('a response that crosses the dollar budget is cut at the wire and the run stops budget_exhausted', async () => {
      // Anthropic's message_start carries the input: claude's stream is cut there, while the turn stalls
      // for two minutes. The other wires report usage at the end of the response: cut before it completes.
      // The cap is above each CLI's first worst case (its body and output limit), so the request is
      // pre-authorised and goes up; the input the server reports (10M tokens, $3 or more) is past any.
      const turn = text('This answer costs more than the budget.', {
        usage: { input: 10_000_000, output: 20 },
        ...(d.name === 'claude' ? { stallMs: 120_000 } : {})
      })
      const started = Date.now()
      const { p, server, run } = await runBehindProxy(d, [turn, turn, turn], { 'max-cost': '2.5' })
      try {
        expect(run.outputs['stop-reason']).toBe('budget_exhausted')
        expect(run.outputs['cost-source']).toBe('metered')
        const status = statusOf(p)
        const requests = status.iterations[0].agent!.usage.requests ?? []
        expect(requests.some(r => r.cut)).toBe(true)
        expect(status.enforcement).toMatchObject({ cause: 'budget_exhausted', killed: 'agent' })
        // Generous: the figure itself is printed (the issue's target is 1 s; the machine is shared).
        const latency = status.enforcement!.latencyMs
        expect(latency).toBeLessThan(10_000)
        console.info(`${d.name} behind the proxy: killed ${latency} ms after the crossing`)
        expect(Date.now() - started).toBeLessThan(110_000)
      } finally {
        await server.close()
        await p.cleanup()
      }
    })
  })
