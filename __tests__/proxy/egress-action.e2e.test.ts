// The egress rules through dist/index.js as the runner runs it: `model-proxy: true`, `agent-network:
// model-only`, `isolation: user`, the steps inside a network namespace of the test's own (unshare --net as
// root, so the machine's iptables are not touched). A stand-in `claude`, run as the agent's user, tries the
// proxy, another loopback port (a server of root's) and an outside address: it reaches the proxy alone, the
// refused ones are named, and no rule is left, after main or, when main is killed, after post.
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, expect, test } from '@jest/globals'
import { createProject, runAction, startStand, type Project, type Stand } from '../action/harness.js'
import { describeIsolated, sharedDir } from '../support/isolation.js'
import { egressProbeAgent, portOf, stepNamespace, whyNoNetns } from '../support/netns.js'

const OTHER_PORT = 47998
const why = whyNoNetns()

const AGENT = egressProbeAgent(OTHER_PORT, "process.env.OUT + '/egress.json'")

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
    const inputs = {
      ralph: 'egress',
      'model-proxy': 'true',
      'agent-network': 'model-only',
      isolation: 'user',
      'max-iterations': '1',
      'upload-artifacts': 'false',
      'open-pr': 'false',
      'on-failure': 'none'
    }
    const jobEnv = {
      ANTHROPIC_API_KEY: 'sk-ant-test-not-a-real-key',
      ANTHROPIC_BASE_URL: 'http://127.0.0.1:9'
    }
    const reachedBy = (log: string): Record<string, string> => {
      if (!existsSync(path.join(out, 'egress.json')))
        throw new Error(`the agent left no egress.json:\n${log}`)
      return JSON.parse(readFileSync(path.join(out, 'egress.json'), 'utf8')) as Record<string, string>
    }
    const newProject = async (): Promise<void> => {
      await project?.cleanup()
      if (out) rmSync(out, { recursive: true, force: true })
      out = sharedDir('ralph-egress-action-')
      project = await createProject({
        '.agents/ralphs/egress/RALPH.md': '---\nagent: ./claude\n---\nWork.\n',
        claude: { content: AGENT, mode: 0o755 }
      })
    }

    test('model-only: the agent reaches the proxy alone, each refused connection is named in the log and the record; no rule is left', async () => {
      await newProject()
      const ns = stepNamespace(out, [project.gitServer.url, project.api.url].map(portOf), [OTHER_PORT])
      const run = await runAction(project, stand, {
        inputs,
        env: { ...jobEnv, OUT: out, ...ns.env },
        wrap: ns.wrap
      }).finally(() => ns.close())
      const log = `${run.main.stdout}\n${run.main.stderr}`
      // Accepted by the refusal listener, named, reset: neither server answered.
      expect(reachedBy(log)).toEqual({ proxy: 'open', other: 'ECONNRESET', outside: 'ECONNRESET' })
      expect(log).not.toContain('egress is not enforced')
      const record = readdirSync(project.runnerTemp).find(name => name.startsWith('ralph-record-'))
      const status = JSON.parse(
        readFileSync(path.join(project.runnerTemp, record ?? '', 'status.json'), 'utf8')
      ) as { modelProxy: { refused: string[] }; warnings: string[] }
      const named = [`127.0.0.1:${OTHER_PORT}`, '192.0.2.10:443']
      expect([...status.modelProxy.refused].sort()).toEqual(named.sort())
      for (const target of named) {
        expect(log).toContain(
          `::warning::agent-network model-only refused the agent a connection to ${target}`
        )
        expect(status.warnings.join('\n')).toContain(`refused the agent a connection to ${target}`)
      }
      expect(ns.rules()).toContain('-P OUTPUT ACCEPT')
      expect(ns.rules()).not.toContain('RALPH-AGENT')
    }, 300_000)

    test('main killed while the agent works: the rules were left, and post removes them', async () => {
      await newProject()
      // One namespace for both steps: post must find and remove what the killed main left.
      const ns = stepNamespace(out, [project.gitServer.url, project.api.url].map(portOf), [OTHER_PORT], {
        shared: true
      })
      try {
        const run = await runAction(project, stand, {
          inputs,
          env: { ...jobEnv, OUT: out, HOLD: '1', ...ns.env },
          wrap: ns.wrap,
          duringMain: async () => {
            // The agent has tried its connections (so the rules are in place) and is still running.
            while (!existsSync(path.join(out, 'egress.json'))) await new Promise(r => setTimeout(r, 100))
            process.kill(ns.stepPid(), 'SIGKILL')
          }
        })
        expect(run.main.exitCode).not.toBe(0)
        const [afterMain, afterPost] = ns.rules().split('--- after a step\n').slice(1)
        // The control: the killed main left its rules (filter and nat) behind.
        expect(afterMain).toContain('-N RALPH-AGENT-')
        expect(afterMain).toContain('REDIRECT')
        expect(afterPost).toContain('-P OUTPUT ACCEPT')
        expect(afterPost).not.toContain('RALPH-AGENT')
        expect(run.post?.exitCode).toBe(0)
      } finally {
        ns.close()
      }
    }, 300_000)
  }
)
