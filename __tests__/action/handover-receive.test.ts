// The deliver job's refusals of a handover, where they are decided: the manifest's form and whose run made it
// (their e2e proofs: two-jobs.e2e.test.ts, two-jobs-runs.e2e.test.ts).
import { malformed } from '../../src/action/handover/format.js'
import { madeElsewhere } from '../../src/action/handover/receive.js'

const sha = 'b'.repeat(40)
const manifest = {
  version: 1,
  repository: 'o/r',
  runId: '9',
  runAttempt: '1',
  ralph: 'fix',
  branch: 'ralph/fix',
  base: 'main',
  start: sha,
  head: sha,
  result: {
    success: true,
    stopReason: 'all_checks_passed',
    iterations: [],
    cost: { totalUsd: 0 },
    durationMs: 1
  },
  notes: [],
  trigger: { event: 'push', hunt: false }
}

test.each<[string, object, string | undefined]>([
  ['a manifest this action wrote is read', {}, undefined],
  ['another version', { version: 2 }, 'its version is 2, not 1'],
  [
    'a branch a log line could read as more',
    { branch: 'a\n::warning::x' },
    'branch is missing or not a name'
  ],
  ['a head that is not a commit', { head: 'HEAD' }, 'head is not a commit id'],
  [
    'a stop reason the loop has no word for',
    { result: { ...manifest.result, stopReason: 'won' } },
    'result has no stop reason'
  ],
  [
    'an iteration that is not one',
    { result: { ...manifest.result, iterations: [{ iteration: 1.5, durationMs: 1, checks: [] }] } },
    'result has an iteration that is not one'
  ],
  ['no notes', { notes: undefined }, 'notes is missing'],
  [
    'an issue that is not a number',
    { trigger: { event: 'issues', hunt: false, issue: '3' } },
    'trigger.issue is not a number'
  ]
])('the manifest: %s', (_, over, problem) => {
  expect(malformed({ ...manifest, ...over })).toBe(problem)
})

const context = { repo: { owner: 'o', repo: 'r' }, runId: '9', runAttempt: '2' }
test.each<[string, object, string | undefined]>([
  ["this run's agent job's is delivered", {}, undefined],
  ["an earlier attempt's is this run's (the deliver job re-run alone)", { runAttempt: '1' }, undefined],
  ['another repository is refused', { repository: 'x/r' }, 'repository x/r'],
  ['another run is refused', { runId: '8' }, 'run 8'],
  ['a later attempt is refused', { runAttempt: '3' }, 'attempt 3 of this run'],
  ['an attempt that is no number is refused', { runAttempt: 'one' }, 'attempt one of this run']
])('whose run: %s', (_, over, theirs) => {
  expect(madeElsewhere({ repository: 'o/r', runId: '9', runAttempt: '2', ...over }, context)).toBe(theirs)
})
