// The action, started as the runner starts it (the __tests__/action harness), driving the real claude CLI
// against the scripted Anthropic server: claude's transcript in the iteration groups, its reported cost in
// the outputs, the summary's cost chart and the pull request, and no GitHub token in claude's environment.
import { testTempBase } from '../support/isolation.js'
import { mkdtempSync, rmSync } from 'node:fs'
import path from 'node:path'
import { agentBin, claudeEnv, CLAUDE_TEST_MODEL } from '../support/agents.js'
import {
  byPrompt,
  claudeRead,
  claudeWrite,
  startAnthropicServer,
  text
} from '../support/model-server/index.js'
import { projectFiles, ralph } from '../action/fixtures.js'
import {
  AGENT_JOB_TOKEN,
  GITHUB_TOKEN,
  checkoutAgain,
  createProject,
  runAction,
  startStand,
  type Stand
} from '../action/harness.js'
import { TEST_AGENT_USER } from '../support/agent-user.js'
import { describeWithAgent } from './live.js'

let stand: Stand
let home: string

beforeAll(async () => {
  stand = await startStand()
  home = mkdtempSync(path.join(testTempBase(), 'ralph-live-action-home-'))
}, 120_000)

afterAll(async () => {
  await stand?.close()
  rmSync(home, { recursive: true, force: true })
})

describeWithAgent('claude')('the action on the real claude CLI', () => {
  it('fails its gate in iteration 1, passes in iteration 2, and opens the pull request with the cost', async () => {
    const fixed = 'export function add(a, b) {\n  return a + b\n}\n'
    const wrong = 'export function add(a, b) {\n  return a * b\n}\n'
    const server = await startAnthropicServer({
      script: byPrompt([
        [
          /This is iteration 2\./,
          [
            claudeRead('calc.js'),
            claudeWrite('calc.js', fixed),
            text('Fixed add.\n\n<promise>COMPLETE</promise>')
          ]
        ],
        [/This is iteration 1\./, [claudeRead('calc.js'), claudeWrite('calc.js', wrong), text('Tried *.')]]
      ])
    })
    const agent = `${agentBin('claude')} -p --model ${CLAUDE_TEST_MODEL} --permission-mode acceptEdits`
    const p = await createProject(projectFiles('', ralph({ agent })))
    try {
      const run = await runAction(p, stand, {
        // claude's own reported cost, as without the proxy (its ANTHROPIC_API_KEY would turn model-proxy auto
        // on, and its egress rules would be set on this machine): the proxy tier (proxy.test.ts) covers that.
        inputs: { ralph: 'fix-tests', 'max-cost': '1', 'model-proxy': 'false' },
        env: {
          ...(claudeEnv(server.url, home) as Record<string, string>),
          GITHUB_TOKEN,
          GH_TOKEN: GITHUB_TOKEN
        }
      })
      expect(server.problems).toEqual([])
      expect(run.main.exitCode).toBe(0)
      expect(run.outputs).toMatchObject({
        'stop-reason': 'all_checks_passed',
        iterations: '2',
        'cost-source': 'reported',
        'pr-operation': 'created'
      })
      expect(Number(run.outputs.cost)).toBeGreaterThan(0)
      // As the action runs agents by default (CI is root): claude ran as its own user.
      if (process.getuid?.() === 0) {
        expect(run.main.stdout).toContain(`run as ${TEST_AGENT_USER} (uid `)
        expect(run.main.stdout).toMatch(/\(uid \d+, started with setpriv, at most \d+ processes\)/)
      }
      // The readable transcript, not the raw JSON stream, in the log.
      expect(run.main.stdout).toContain('→ Write')
      expect(run.main.stdout).not.toContain('"type":"assistant"')
      expect(run.summary).toContain('Cost per iteration (USD)')
      expect(p.api.state.pulls[0].body).toMatch(/Cost \$0\.\d{4} \(reported\)/)
      // claude got the job's environment without the tokens the workflow put there.
      for (const request of server.requests) expect(JSON.stringify(request)).not.toContain(GITHUB_TOKEN)
      expect(p.api.violations).toEqual([])
      expect(stand.artifacts.violations).toEqual([])
    } finally {
      await server.close()
      await p.cleanup()
    }
  })

  it('in two jobs: claude runs in the agent job (read-only token), the deliver job (no key, no claude) opens the pull request', async () => {
    const fixed = 'export function add(a, b) {\n  return a + b\n}\n'
    const server = await startAnthropicServer({
      script: byPrompt([
        [
          /This is iteration 1\./,
          [
            claudeRead('calc.js'),
            claudeWrite('calc.js', fixed),
            text('Fixed add.\n\n<promise>COMPLETE</promise>')
          ]
        ]
      ])
    })
    const agent = `${agentBin('claude')} -p --model ${CLAUDE_TEST_MODEL} --permission-mode acceptEdits`
    const p = await createProject(projectFiles('', ralph({ agent })), { token: AGENT_JOB_TOKEN })
    const runId = String(7_400_000_000 + process.pid)
    try {
      const first = await runAction(p, stand, {
        runId,
        job: 'agent',
        inputs: { ralph: 'fix-tests', mode: 'agent', 'max-cost': '1', 'model-proxy': 'false' },
        env: claudeEnv(server.url, home) as Record<string, string>
      })
      expect(server.problems).toEqual([])
      expect(first.main.exitCode).toBe(0)
      expect(first.outputs).toMatchObject({ 'stop-reason': 'all_checks_passed', 'cost-source': 'reported' })
      expect(p.api.writesBy(AGENT_JOB_TOKEN)).toEqual([])
      expect(p.gitServer.pushAttemptsBy(AGENT_JOB_TOKEN)).toEqual([])
      const asked = server.requests.length
      expect(asked).toBeGreaterThan(0)
      // The deliver job: a fresh checkout, the write token, no model key, no claude on its way.
      const job = await checkoutAgain(p)
      try {
        const second = await runAction(job, stand, {
          runId,
          job: 'deliver',
          token: GITHUB_TOKEN,
          inputs: { ralph: 'fix-tests', mode: 'deliver', delivery: first.outputs.delivery, 'max-cost': '1' }
        })
        expect(second.main.exitCode).toBe(0)
        expect(second.outputs).toMatchObject({
          'stop-reason': 'all_checks_passed',
          verified: 'true',
          'pr-operation': 'created',
          cost: first.outputs.cost,
          'cost-source': 'reported'
        })
        // No model request from the deliver job.
        expect(server.requests.length).toBe(asked)
        expect(p.remoteGit('show', `${second.outputs.commit}:calc.js`)).toBe(fixed)
        expect(p.api.violations).toEqual([])
      } finally {
        await job.cleanup()
      }
    } finally {
      await server.close()
      await p.cleanup()
    }
  })
})
