// Rounds (issue #39) and the repository's budget (#38), through dist/index.js: a review or CI round is a run like
// any other, metered by the model proxy against `budget` (its spend settled in the ledger), and a round that finds
// the budget spent runs no agent and says so on the pull request.
import { afterAll, beforeAll, expect, test } from '@jest/globals'
import { LedgerStore, openLease } from '../../src/ledger/index.js'
import { createProject, runAction, startStand, type ActionRun, type Project, type Stand } from './harness.js'
import { failedRun } from './rounds.js'
import { startAnthropicServer, text, type ScriptedServer } from '../support/model-server/index.js'
import { actionsPull, OWN_BRANCH } from '../support/pull-requests.js'

/** input 1000 and output 1000 tokens of claude-sonnet-4-5 ($3/M, $15/M). */
const BILLED = 0.018

/** A stand-in `claude`: asks the model $ASKS times, then says it is done; it changes nothing. */
const AGENT = `#!${process.execPath}
process.stdin.resume()
process.stdin.on('end', async () => {
  for (let i = 0; i < Number(process.env.ASKS); i++) {
    const response = await fetch(process.env.ANTHROPIC_BASE_URL + '/v1/messages', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': process.env.ANTHROPIC_API_KEY ?? '' },
      body: JSON.stringify({ model: 'claude-sonnet-4-5', max_tokens: 1000, messages: [{ role: 'user', content: 'Work.' }] })
    })
    await response.text()
    if (response.status !== 200) { console.log('refused: ' + response.status); process.exit(1) }
  }
  console.log('Done.')
})
`

const files = {
  '.agents/ralphs/spend/RALPH.md': '---\nagent: ./claude\n---\nWork.\n',
  claude: { content: AGENT, mode: 0o755 }
}

const INPUTS = {
  ralph: 'spend',
  isolation: 'none',
  'model-proxy': 'true',
  'max-iterations': '1',
  checks: 'true',
  'completion-tag': 'none',
  'upload-artifacts': 'false',
  'ci-fix': 'ci.yml',
  budget: '1/day'
}

let stand: Stand
let upstream: ScriptedServer
beforeAll(async () => {
  stand = await startStand()
  upstream = await startAnthropicServer({
    script: () => text('ok', { usage: { input: 1000, output: 1000 } })
  })
}, 120_000)
afterAll(async () => {
  await upstream?.close()
  await stand?.close()
})

function run(p: Project, more: Parameters<typeof runAction>[2], asks: number): Promise<ActionRun> {
  return runAction(p, stand, {
    ...more,
    inputs: INPUTS,
    env: { ANTHROPIC_BASE_URL: upstream.url, ANTHROPIC_API_KEY: 'sk-ant-job-secret', ASKS: String(asks) }
  })
}

/** What the ledger's settle lines say was spent, in dollars. */
function settledUsd(p: Project): number {
  return p
    .remoteGit('log', '--format=%B', 'refs/ralph/ledger')
    .split('\n')
    .filter(line => line.startsWith('settle '))
    .reduce((sum, line) => sum + Number(/ spent=([\d.]+)/.exec(line)?.[1] ?? NaN), 0)
}

const roundComments = (p: Project, number: number) =>
  p.api.state.comments.filter(c => c.issueNumber === number && c.body.includes('ralph-action:fix-round'))

test("a review round is metered against the repository's budget: what the upstream billed is settled in the ledger", async () => {
  const p = await createProject(files)
  try {
    p.api.state.addUser('alice', { role: 'write' })
    const pull = actionsPull(p)
    const review = p.api.state.addReview(pull.number, {
      user: 'alice',
      state: 'CHANGES_REQUESTED',
      body: 'Work.'
    })
    const before = upstream.requests.length
    const r = await run(
      p,
      { eventName: 'pull_request_review', event: p.api.events.pullRequestReview(review.id) },
      2
    )
    expect(r.main.exitCode).toBe(0)
    const billed = (upstream.requests.length - before) * BILLED
    expect(billed).toBeCloseTo(2 * BILLED, 9)
    expect(settledUsd(p)).toBeCloseTo(billed, 6)
    expect(r.outputs['budget-left']).toBe((1 - billed).toFixed(2))
    expect(roundComments(p, pull.number)).toHaveLength(1)
  } finally {
    await p.cleanup()
  }
}, 300_000)

test('a CI round that finds the budget spent runs no agent and says so on the pull request; it is not counted as a round', async () => {
  const p = await createProject(files)
  try {
    const store = await LedgerStore.open({
      serverUrl: p.gitServer.url,
      repository: p.gitServer.repository,
      token: p.token
    })
    const opened = await openLease(store, {
      run: { id: '1', attempt: 1 },
      limits: { repository: { day: 1_000_000 }, perRequester: {} },
      minimumUsd: 0.05,
      deadline: new Date(Date.now() + 3600_000)
    })
    if (!('lease' in opened)) throw new Error(opened.refused.line)
    await opened.lease.cover(1)
    await opened.lease.settle(1)
    await store.close()

    const pull = actionsPull(p)
    const tip = p.remoteGit('rev-parse', OWN_BRANCH).trim()
    const ci = failedRun(p, OWN_BRANCH, 'AssertionError')
    const before = upstream.requests.length
    const r = await run(p, { eventName: 'workflow_run', event: p.api.events.workflowRun(ci.id) }, 2)
    expect(r.main.exitCode).toBe(0)
    expect(upstream.requests.length).toBe(before)
    expect(r.outputs).toMatchObject({ 'stop-reason': 'budget', iterations: '0', 'budget-left': '0.00' })
    expect(p.remoteGit('rev-parse', OWN_BRANCH).trim()).toBe(tip)
    const said = p.api.state.comments.filter(c => c.issueNumber === pull.number)
    expect(said).toHaveLength(1)
    expect(said[0].body).toMatch(/The repository's budget of \$1\/day is spent[^\n]*No agent ran\./)
    expect(roundComments(p, pull.number)).toEqual([])
  } finally {
    await p.cleanup()
  }
}, 300_000)
