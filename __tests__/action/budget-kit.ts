// What the budget e2e files share (#38): the stand-in `claude` that asks the model a number of times through
// the model proxy, an upstream that bills each request a fixed amount, the run of the action with a budget,
// and the ledger as the bare remote holds it.
import { execFileSync } from 'node:child_process'
import { afterAll, beforeAll } from '@jest/globals'
import { LedgerStore, openLease } from '../../src/ledger/index.js'
import { runAction, startStand, type ActionRun, type Project, type Stand } from './harness.js'
import { startAnthropicServer, text, type ScriptedServer } from '../support/model-server/index.js'
import { proxiedInputs, proxiedRalph } from '../support/proxied-ralph.js'

/** input 1000 and output 1000 tokens of claude-sonnet-4-5 ($3/M, $15/M). */
export const BILLED = 0.018

/**
 * A stand-in `claude`: asks the model $ASKS times, one after another ($ASK_PAUSE_MS apart), until an answer is
 * not a 200.
 */
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
    await new Promise(resolve => setTimeout(resolve, Number(process.env.ASK_PAUSE_MS ?? 0)))
    if (response.status !== 200) { console.log('refused: ' + response.status); process.exit(1) }
  }
  console.log('Done.')
})
`

export const budgetFiles = proxiedRalph('spend', AGENT)
export const BUDGET_INPUTS = proxiedInputs('spend')

export interface BudgetStand {
  stand(): Stand
  /** The upstream: every request it answered is billed BILLED. */
  upstream(): ScriptedServer
  /** The action on `p` with `inputs` (over BUDGET_INPUTS), its agent asking `asks` times. */
  run(
    p: Project,
    inputs: Record<string, string>,
    asks: number,
    more?: Parameters<typeof runAction>[2]
  ): Promise<ActionRun>
}

/** The artifact service and a billing upstream, started before the file's tests and stopped after. */
export function budgetStand(): BudgetStand {
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
  return {
    stand: () => stand,
    upstream: () => upstream,
    run: (p, inputs, asks, more = {}) =>
      runAction(p, stand, {
        ...more,
        inputs: { ...BUDGET_INPUTS, ...inputs },
        env: {
          ANTHROPIC_BASE_URL: upstream.url,
          ANTHROPIC_API_KEY: 'sk-ant-job-secret',
          ASKS: String(asks),
          ...more.env
        }
      })
  }
}

/** The ledger's commits' change lines, oldest first, and its file now. */
export function ledgerOf(p: Project): {
  changes: string[]
  json: { leases: Array<{ id: string; requester?: string }> }
} {
  const log = p.remoteGit('log', '--reverse', '--format=%B', 'refs/ralph/ledger')
  const changes = log
    .split('\n')
    .filter(line => /^(reserve|top-up|settle|expire|compact|restore) /.test(line))
  return { changes, json: JSON.parse(p.remoteGit('show', 'refs/ralph/ledger:ledger.json')) }
}

/** What the settle lines say was spent, in dollars. */
export const settledUsd = (changes: string[]): number =>
  changes
    .filter(c => c.startsWith('settle '))
    .reduce((sum, c) => sum + Number(/ spent=([\d.]+)/.exec(c)?.[1] ?? NaN), 0)

/** The day's budget of $`usd` spent by another run: its lease settled in full, written as the action writes it. */
export async function spendTheDay(p: Project, usd: number): Promise<void> {
  const store = await LedgerStore.open({
    serverUrl: p.gitServer.url,
    repository: p.gitServer.repository,
    token: p.token
  })
  try {
    const opened = await openLease(store, {
      run: { id: '1', attempt: 1 },
      limits: { repository: { day: Math.round(usd * 1e6) }, perRequester: {} },
      minimumUsd: 0.05,
      deadline: new Date(Date.now() + 3600_000)
    })
    if (!('lease' in opened)) throw new Error(opened.refused.line)
    await opened.lease.cover(usd)
    await opened.lease.settle(usd)
  } finally {
    await store.close()
  }
}

/** The ledger's commit messages, oldest first, or none when the ref is not there. */
export function ledgerLog(p: Project): string {
  try {
    return p.remoteGit('log', '--format=%B', 'refs/ralph/ledger')
  } catch {
    return ''
  }
}

/** git in the bare remote, with `input` on stdin, as a person or another writer on the server (no HTTP). */
export function bareGit(p: Project, args: string[], input?: string): string {
  return execFileSync('git', ['--git-dir', p.remote, ...args], {
    encoding: 'utf8',
    ...(input !== undefined ? { input } : {}),
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 'o',
      GIT_AUTHOR_EMAIL: 'o@e',
      GIT_COMMITTER_NAME: 'o',
      GIT_COMMITTER_EMAIL: 'o@e'
    }
  }).trim()
}
