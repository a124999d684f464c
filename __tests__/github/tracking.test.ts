// The tracking comment's whole life, against the OpenAPI-checked GitHub stand-in and a real loop:
// 👀 at once, "working…" at the start, an edit per iteration, the outcome at the end — and the post step
// finalising a run that was cancelled, so the comment never stays "working…".
import type { IterationRecord, LoopStatus } from '../../src/loop/index.js'
import { acknowledge, finaliseCancelled, postRefusal, TrackingComment } from '../../src/github/tracking.js'
import {
  MAX_COMMENT_CHARS,
  renderFinal,
  renderWorking,
  type TrackingInfo
} from '../../src/report/tracking.js'
import { githubClient } from '../../src/github/client.js'
import { retryTiming } from '../../src/github/retry.js'
import type { FaultKind } from '../support/faults.js'
import { useStandIn } from './stand-in.js'
import { countRuns, harness, type Harness } from '../loop/harness.js'

const stand = useStandIn()
let h: Harness | undefined
const repo = { owner: 'acme', repo: 'widgets' }
const info: TrackingInfo = {
  ralphName: 'fix-tests',
  runId: '4242',
  runUrl: 'https://github.com/acme/widgets/actions/runs/4242',
  branch: 'ralph/issue-1',
  actor: 'alice',
  maxIterations: 5
}

afterEach(() => {
  h?.cleanup()
  h = undefined
})

const edits = () => stand.api.requests.filter(r => r.operationId === 'issues/update-comment')

function trigger() {
  const issue = stand.api.state.addIssue({ title: 'Tests fail', body: 'npm test fails' })
  const comment = stand.api.state.addComment(issue.number, { body: '/ralph fix-tests', user: 'alice' })
  return { issueNumber: issue.number, commentId: comment.id, target: { ...repo, issueNumber: issue.number } }
}

function iteration(n: number, passed: boolean[], verdict: IterationRecord['verdict']): IterationRecord {
  return {
    iteration: n,
    startedAt: new Date(0).toISOString(),
    durationMs: 61000,
    verdict,
    commands: [],
    checks: passed.map((p, i) => ({
      name: `gate-${i}`,
      run: 'true',
      passed: p,
      exitCode: p ? 0 : 1,
      timedOut: false,
      durationMs: 10,
      outputBytes: 0,
      tail: '',
      log: ''
    })),
    agent: {
      preset: 'generic',
      argv: ['agent'],
      exitCode: 0,
      signal: null,
      timedOut: false,
      success: true,
      durationMs: 50000,
      usage: { input: 0, output: 0, cache_read: 0, cache_write: 0, cost_usd: 0.25, cost_source: 'reported' },
      log: '',
      notes: []
    },
    completion: { tag: false, given: false },
    failureFingerprint: ''
  }
}

function status(iterations: IterationRecord[], extra: Partial<LoopStatus> = {}): LoopStatus {
  return {
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
    iterations,
    cost: {
      totalUsd: 0.25 * iterations.length,
      source: 'reported',
      enforced: true,
      tokens: { input: 0, output: 0, cache_read: 0, cache_write: 0 }
    },
    success: false,
    warnings: [],
    ...extra
  }
}

test('the tracking comment lives its whole life: 👀, working…, an edit per iteration, the outcome with the PR', async () => {
  const { commentId, target } = trigger()
  expect(await acknowledge(stand.octokit, { ...target, commentId })).toBe(true)
  expect(stand.api.state.reactions.map(r => [r.subject, r.subjectId, r.content])).toEqual([
    ['comment', commentId, 'eyes']
  ])

  const tracking = await TrackingComment.create(stand.octokit, target, info)
  expect(tracking).toBeDefined()
  const body = () => stand.api.state.comment(tracking!.id)!.body
  expect(body()).toMatch(
    /^<!-- ralph-action:tracking run=4242 state=working -->\n### 🔁 ralph `fix-tests` is working… \(starting\)/
  )
  expect(body()).toContain(
    '[The run](https://github.com/acme/widgets/actions/runs/4242) · branch `ralph/issue-1` · started by @alice'
  )

  // A real loop: the gate fails in iteration 1 and passes in iteration 2.
  h = harness('fix-tests')
  const agent = h.script(
    'agent.sh',
    `${countRuns(h.tools)}\ncat >/dev/null\n[ "$n" -ge 2 ] && echo ok > fixed.txt; true`
  )
  h.writeRalph(`agent: ${agent}\nchecks:\n  - name: tests\n    run: test -f fixed.txt`, 'Fix it.')
  const follow = tracking!.follow()
  const { result } = await h.run(
    { maxIterations: 5, completionTag: '' },
    {
      emit: follow.emit
    }
  )
  await follow.settled()
  expect(result.stopReason).toBe('all_checks_passed')
  expect(body()).toMatch(/is working… \(2 iterations done of at most 5\)/)
  expect(body()).toContain('| 1 | ❌ gates failed | ✗ `tests` | ? |')
  expect(body()).toContain('Cost so far: unknown (the agent reported none).')
  expect(body()).toContain('| 2 | ✅ passed | ✓ `tests` |')
  expect(edits().length).toBeGreaterThanOrEqual(1)
  expect(edits().length).toBeLessThanOrEqual(2)

  await tracking!.finalise({
    status: result,
    pullRequest: { number: 9, url: 'https://github.com/acme/widgets/pull/9', operation: 'created' }
  })
  expect(body()).toMatch(
    /^<!-- ralph-action:tracking run=4242 state=final -->\n### ✅ Every gate passed after 2 iterations — pull request #9 opened: https:\/\/github.com\/acme\/widgets\/pull\/9/
  )
  // Progress after the outcome is ignored: a late edit cannot turn the outcome back into "working…".
  expect(await tracking!.update(result)).toBe(false)
  expect(body()).toContain('state=final')
  // One tracking comment, by the action.
  const ours = stand.api.state.comments.filter(c => c.user === 'github-actions[bot]')
  expect(ours).toHaveLength(1)
})

test('the post step finalises a comment main left "working…" as cancelled, found by the saved id', async () => {
  const { target } = trigger()
  const tracking = await TrackingComment.create(stand.octokit, target, info)
  await tracking!.update(status([iteration(1, [false], 'checks_failed')]))
  // main was killed here; post reads the id from the step state and status.json from the record.
  const killed = status([iteration(1, [false], 'checks_failed'), iteration(2, [false], 'interrupted')])
  expect(await finaliseCancelled(stand.octokit, { ...target, commentId: tracking!.id }, info, killed)).toBe(
    'finalised'
  )
  const body = stand.api.state.comment(tracking!.id)!.body
  expect(body).toMatch(/state=final -->\n### ⏹️ Cancelled after 2 iterations\n/)
  expect(body).toContain('cancelled or timed out before it finished')
  expect(body).toContain('| 2 | ⏹️ stopped |')
  expect(body).not.toMatch(/working…/)
  // Running post again changes nothing.
  const before = edits().length
  expect(await finaliseCancelled(stand.octokit, { ...target, commentId: tracking!.id }, info, killed)).toBe(
    'already-final'
  )
  expect(edits()).toHaveLength(before)
})

test('without a saved id the post step finds the comment by its marker, ignoring a copy a person posted', async () => {
  const { target, issueNumber } = trigger()
  const tracking = await TrackingComment.create(stand.octokit, target, info)
  const copy = stand.api.state.addComment(issueNumber, { body: renderWorking(info), user: 'alice' })
  expect(await finaliseCancelled(stand.octokit, target, info)).toBe('finalised')
  expect(stand.api.state.comment(tracking!.id)!.body).toMatch(/### ⏹️ Cancelled after 0 iterations/)
  expect(stand.api.state.comment(copy.id)!.body).toContain('state=working')
  // Another run's comment is not this run's.
  expect(await finaliseCancelled(stand.octokit, target, { ...info, runId: '9999' })).toBe('not-found')
})

test('a comment main finalised is left alone by the post step', async () => {
  const { target } = trigger()
  const tracking = await TrackingComment.create(stand.octokit, target, info)
  const done = status([iteration(1, [true], 'passed')], {
    state: 'finished',
    stopReason: 'all_checks_passed',
    stopDetail: 'every gate passed',
    success: true
  })
  await tracking!.finalise({ status: done, note: 'The loop left no change, so no pull request was opened.' })
  const before = edits().length
  expect(await finaliseCancelled(stand.octokit, { ...target, commentId: tracking!.id }, info)).toBe(
    'already-final'
  )
  expect(edits()).toHaveLength(before)
  expect(stand.api.state.comment(tracking!.id)!.body).toContain('no pull request was opened')
})

test('bodies stay under 65,536 characters however long the run and its names', async () => {
  const long = Array.from({ length: 2000 }, (_, i) => {
    const it = iteration(i + 1, [false, true], 'checks_failed')
    it.checks[0].name = 'g'.repeat(300)
    return it
  })
  const working = renderWorking(info, status(long))
  expect(working.length).toBeLessThan(MAX_COMMENT_CHARS + 1)
  expect(working).toContain('_1975 earlier iterations are in the run record._')
  const final = renderFinal(info, {
    status: status(long, { stopReason: 'max_iterations', stopDetail: 'x'.repeat(100000) }),
    note: 'n'.repeat(100000)
  })
  expect(final.length).toBeLessThanOrEqual(MAX_COMMENT_CHARS)
  const { target } = trigger()
  const tracking = await TrackingComment.create(stand.octokit, target, info)
  expect(await tracking!.update(status(long))).toBe(true)
  expect(
    await tracking!.finalise({
      status: status(long, { stopReason: 'max_iterations' }),
      note: 'n'.repeat(90000)
    })
  ).toBe(true)
})

test('GitHub refusing feedback is a warning, never a failure of the run', async () => {
  const { target, commentId } = trigger()
  const warnings: string[] = []
  const warn = (m: string) => warnings.push(m)
  stand.api.state.failures.next.push(
    { operationId: 'reactions/create-for-issue-comment', status: 403 },
    { operationId: 'issues/create-comment', status: 403 }
  )
  expect(await acknowledge(stand.octokit, { ...target, commentId }, warn)).toBe(false)
  expect(await TrackingComment.create(stand.octokit, target, info, warn)).toBeUndefined()
  const tracking = await TrackingComment.create(stand.octokit, target, info, warn)
  stand.api.state.failures.next.push({ operationId: 'issues/update-comment', status: 502 })
  expect(await tracking!.update(status([iteration(1, [true], 'passed')]))).toBe(false)
  expect(warnings).toEqual([
    expect.stringMatching(/^Could not react with 👀 on #1: HTTP 403/),
    expect.stringMatching(/^Could not post the tracking comment on #1: HTTP 403/),
    expect.stringMatching(/^Could not edit the tracking comment \d+: HTTP 502/)
  ])
})

test('a refusal is one reply; a run a label started gets its 👀 on the issue', async () => {
  const { target, issueNumber } = trigger()
  const url = await postRefusal(stand.octokit, target, '@rob, no ralph loop was started: reasons.')
  expect(url).toMatch(new RegExp(`/issues/${issueNumber}#issuecomment-\\d+$`))
  expect(await acknowledge(stand.octokit, target)).toBe(true)
  expect(stand.api.state.reactions.map(r => [r.subject, r.subjectId, r.content])).toEqual([
    ['issue', issueNumber, 'eyes']
  ])
})

// Best-effort under GitHub's bad minutes, through the action's own client (a stalled edit is given up after 1 s).
const timing = retryTiming({ RALPH_ACTION_TEST_WAIT_SCALE: '0.001', RALPH_ACTION_TEST_TIMEOUT_MS: '1000' })

test('while an edit stalls, later iterations wait as one: two edits for five iterations, the last state sent', async () => {
  const { target } = trigger()
  const warnings: string[] = []
  const client = await githubClient('ghs_token', { baseUrl: stand.api.url, timing })
  let inFlight = 0
  let mostInFlight = 0
  client.hook.wrap('request', async (request, options) => {
    if (options.method !== 'PATCH') return request(options)
    mostInFlight = Math.max(mostInFlight, ++inFlight)
    try {
      return await request(options)
    } finally {
      inFlight--
    }
  })
  const tracking = await TrackingComment.create(client, target, info, m => warnings.push(m))
  stand.api.faults.add('issues/update-comment', 1, 'stall')
  const follow = tracking!.follow()
  follow.emit({ type: 'loop_started', status: status([]) })
  for (let n = 1; n <= 5; n++)
    follow.emit({ type: 'iteration_finished', record: iteration(n, [false], 'checks_failed') })
  await follow.settled()

  const edits = stand.api.requests.filter(r => r.operationId === 'issues/update-comment')
  expect(edits.map(e => e.fault ?? e.status)).toEqual(['stall', 200])
  expect(mostInFlight).toBe(1)
  // The stalled edit (iteration 1) is given up, not retried: the next edit carries iterations 1–5.
  expect(warnings).toEqual([
    expect.stringMatching(/^Could not edit the tracking comment \d+: no answer within 1\.0 s/)
  ])
  const comment = stand.api.state.comments.find(c => c.id === tracking!.id)
  expect(comment?.body).toContain('5 iterations done')
})

/** Two progress edits, then the final one, with `faults` planned on the edits (the Nth edit). */
async function twoIterationsThenFinal(faults: [number, FaultKind][]) {
  const { target } = trigger()
  const warnings: string[] = []
  const client = await githubClient('ghs_token', { baseUrl: stand.api.url, timing })
  const tracking = await TrackingComment.create(client, target, info, m => warnings.push(m))
  stand.api.faults.clear()
  for (const [call, kind] of faults) stand.api.faults.add('issues/update-comment', call, kind)
  const follow = tracking!.follow()
  follow.emit({ type: 'loop_started', status: status([]) })
  follow.emit({ type: 'iteration_finished', record: iteration(1, [false], 'checks_failed') })
  await follow.settled()
  follow.emit({ type: 'iteration_finished', record: iteration(2, [false], 'checks_failed') })
  await follow.settled()
  const finalised = await tracking!.finalise({
    status: status([iteration(1, [false], 'checks_failed'), iteration(2, [false], 'checks_failed')], {
      state: 'finished',
      stopReason: 'max_iterations'
    })
  })
  const edits = stand.api.requests.filter(r => r.operationId === 'issues/update-comment')
  const body = stand.api.state.comments.find(c => c.id === tracking!.id)?.body
  return { warnings, finalised, edits: edits.map(e => e.fault ?? e.status), body }
}

test('edits failing every time cost warnings only; the final edit is retried and lands', async () => {
  // The final edit meets one more 502, and is tried again.
  const run = await twoIterationsThenFinal([
    [1, '502'],
    [2, '502'],
    [3, '502']
  ])
  expect(run.finalised).toBe(true)
  expect(run.warnings).toHaveLength(2)
  expect(run.body).toContain('state=final')
})

test('a progress edit meeting a secondary rate limit is not waited out: the next edit carries it; the final one waits', async () => {
  const run = await twoIterationsThenFinal([
    [1, 'secondary-rate-limit'],
    [3, 'secondary-rate-limit']
  ])
  // Progress 1 (limited, given up), progress 2, the final edit (limited, waited out), the final edit again.
  expect(run.edits).toEqual(['secondary-rate-limit', 200, 'secondary-rate-limit', 200])
  expect(run.warnings).toEqual([expect.stringMatching(/^Could not edit the tracking comment \d+: HTTP 403/)])
  expect(run.finalised).toBe(true)
  expect(run.body).toContain('state=final')
})

test('a run whose gates passed but whose work was not delivered (the loser of two runs) does not say ✅ (issue #26)', () => {
  const passed = status([iteration(1, [true], 'passed')], {
    state: 'finished',
    stopReason: 'all_checks_passed',
    success: true,
    stopDetail: 'every gate passed'
  })
  const problem = 'GitHub refused the push of ralph/issue-3: another run pushed to it first'
  const text = renderFinal(info, { status: passed, note: problem, undelivered: true })
  expect(text.split('\n')[1]).toBe(
    '### ⚠️ Every gate passed, but the work was not delivered after 1 iteration'
  )
  expect(text).toContain(problem)
  expect(renderFinal(info, { status: passed }).split('\n')[1]).toBe(
    '### ✅ Every gate passed after 1 iteration'
  )
})
