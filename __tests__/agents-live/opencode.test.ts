// The real opencode CLI (pinned in scripts/install-agent-clis.json) through its OpenAI-compatible provider
// against the scripted Chat Completions server: a title request first, then steps that each report their
// dollars (priced from the config's cost, which ralph-action fills from its price table), and an API error.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { always, httpError, text, toolCall } from '../support/model-server/index.js'
import { tableCost } from './drivers.js'
import { describeWithAgent, liveCli } from './live.js'

const opencode = liveCli('opencode', setup => ['run', '--format', 'json', ...setup.args])
// opencode takes 14-22 s to start on an idle 2-core runner, much longer on a shared one.
const RUN_MS = 240000

const bash = (command: string, usage: { input: number; output: number }) =>
  toolCall('bash', { command, description: 'Run a scripted command' }, { usage })

describeWithAgent('opencode')('the real opencode CLI against a scripted Chat Completions server', () => {
  it(
    'runs bash on a real file; every step reports its dollars at the configured price',
    async () => {
      const usage = [
        { input: 3000, output: 120 },
        { input: 800, output: 25 }
      ]
      const run = await opencode.run(
        'success: bash, text',
        [
          bash('printf "hello from the scripted model\\n" > hello.txt', usage[0]),
          text('I created hello.txt.', { usage: usage[1] })
        ],
        { timeoutMs: RUN_MS }
      )

      expect(run.exitCode).toBe(0)
      expect(readFileSync(join(opencode.workspace.cwd, 'hello.txt'), 'utf8')).toBe(
        'hello from the scripted model\n'
      )
      expect(opencode.server.problems).toEqual([])
      // The title first (no tools), then the two turns; nothing else (no model catalogue, no plugins).
      expect(
        opencode.server.requests.map(request => `${request.method} ${request.url} ${request.answer}`)
      ).toEqual([
        'POST /v1/chat/completions title',
        'POST /v1/chat/completions tool bash',
        'POST /v1/chat/completions text'
      ])
      const steps = run.events.filter(event => event.type === 'step_finish')
      expect(steps).toHaveLength(2)
      steps.forEach((step, i) => {
        const part = step.part as { cost: number; tokens: { input: number; output: number } }
        expect(part.tokens).toMatchObject(usage[i])
        expect(part.cost).toBeCloseTo(tableCost('opencode', usage[i]), 10)
      })
      opencode.record('opencode-live-success.jsonl', run)
    },
    RUN_MS + 60000
  )

  it(
    'reports an HTTP 400 as an error event',
    async () => {
      const run = await opencode.run('api error: 400', always(httpError(400, 'invalid_request_error')), {
        timeoutMs: RUN_MS
      })

      expect(run.events.some(event => event.type === 'error')).toBe(true)
      opencode.record('opencode-live-api-error.jsonl', run)
    },
    RUN_MS + 60000
  )
})
