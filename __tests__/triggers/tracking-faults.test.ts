// The tracking comment is best-effort: its edits are coalesced (one in flight, the latest state wins) and a
// stalled or failing edit costs a warning, never the run. Against the GitHub stand-in with a fault schedule,
// through the action's own client.
import { afterAll, beforeAll, expect, test } from '@jest/globals'
import { githubClient } from '../../src/github/client.js'
import { retryTiming } from '../../src/github/retry.js'
import { TrackingComment, type TrackingInfo } from '../../src/github/tracking.js'
import type { IterationRecord, LoopStatus } from '../../src/loop/index.js'
import { startGitHubApi, type GitHubApi } from '../support/github-api/index.js'

let api: GitHubApi
const repo = { owner: 'acme', repo: 'widgets' }
const info: TrackingInfo = { ralphName: 'fix-tests', runId: '77', runUrl: 'https://github.com/r/77' }
// A stalled edit is given up after 1 s.
const timing = retryTiming({ RALPH_ACTION_TEST_WAIT_SCALE: '0.001', RALPH_ACTION_TEST_TIMEOUT_MS: '1000' })

beforeAll(async () => {
  api = await startGitHubApi({ owner: 'acme', repo: 'widgets' })
})
afterAll(async () => {
  expect(api.violations).toEqual([])
  await api.close()
})

function record(n: number): IterationRecord {
  return {
    iteration: n,
    startedAt: new Date(0).toISOString(),
    durationMs: 1000,
    verdict: 'checks_failed',
    commands: [],
    checks: [],
    completion: { tag: false, given: false },
    failureFingerprint: ''
  }
}

const started: LoopStatus = {
  version: 1,
  state: 'running',
  ralph: { name: 'fix-tests', file: '', dir: '' },
  projectRoot: '',
  workTree: '',
  recordDir: '',
  startedAt: new Date(0).toISOString(),
  durationMs: 0,
  budgets: {},
  start: {},
  iterations: [],
  cost: {
    totalUsd: 0,
    source: 'unknown',
    enforced: true,
    tokens: { input: 0, output: 0, cache_read: 0, cache_write: 0 }
  },
  success: false,
  warnings: []
}

test('while an edit stalls, later iterations wait as one: two edits for five iterations, the last state sent', async () => {
  const issue = api.state.addIssue({ title: 'Tests fail' })
  const warnings: string[] = []
  const octokit = await githubClient('ghs_token', { baseUrl: api.url, timing })
  let inFlight = 0
  let mostInFlight = 0
  octokit.hook.wrap('request', async (request, options) => {
    if (options.method !== 'PATCH') return request(options)
    mostInFlight = Math.max(mostInFlight, ++inFlight)
    try {
      return await request(options)
    } finally {
      inFlight--
    }
  })
  const tracking = await TrackingComment.create(octokit, { ...repo, issueNumber: issue.number }, info, m =>
    warnings.push(m)
  )
  api.faults.add('issues/update-comment', 1, 'stall')
  const follow = tracking!.follow()
  follow.emit({ type: 'loop_started', status: started })
  for (let n = 1; n <= 5; n++) follow.emit({ type: 'iteration_finished', record: record(n) })
  await follow.settled()

  const edits = api.requests.filter(r => r.operationId === 'issues/update-comment')
  expect(edits.map(e => e.fault ?? e.status)).toEqual(['stall', 200])
  expect(mostInFlight).toBe(1)
  // The stalled edit (iteration 1) is given up, not retried: the next edit carries iterations 1–5.
  expect(warnings).toEqual([
    expect.stringMatching(/^Could not edit the tracking comment \d+: no answer within 1\.0 s/)
  ])
  const comment = api.state.comments.find(c => c.id === tracking!.id)
  expect(comment?.body).toContain('5 iterations done')
})

test('edits failing every time cost warnings only; the final edit is retried and lands', async () => {
  const issue = api.state.addIssue({ title: 'Tests fail' })
  const warnings: string[] = []
  const octokit = await githubClient('ghs_token', { baseUrl: api.url, timing })
  const tracking = await TrackingComment.create(octokit, { ...repo, issueNumber: issue.number }, info, m =>
    warnings.push(m)
  )
  api.faults.clear()
  for (let call = 1; call <= 3; call++) api.faults.add('issues/update-comment', call, '502')
  const follow = tracking!.follow()
  follow.emit({ type: 'loop_started', status: started })
  follow.emit({ type: 'iteration_finished', record: record(1) })
  await follow.settled()
  follow.emit({ type: 'iteration_finished', record: record(2) })
  await follow.settled()
  // The final edit meets one more 502, and is tried again.
  const finalised = await tracking!.finalise({
    status: {
      ...started,
      state: 'finished',
      stopReason: 'max_iterations',
      iterations: [record(1), record(2)]
    }
  })
  expect(finalised).toBe(true)
  expect(warnings).toHaveLength(2)
  expect(api.state.comments.find(c => c.id === tracking!.id)?.body).toContain('state=final')
})
