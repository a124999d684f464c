// When a job hands its loop on (continue-jobs): a pure decision, tested with a table (caps, cancel, progress).
import { execFileSync } from 'node:child_process'
import { continuesIn, type ChainJobFacts } from '../../src/action/chain/decide.js'
import { claimRef, resumeRefusal } from '../../src/action/chain/resume.js'
import { malformedContinuation, malformedStatus, type Resumed } from '../../src/action/chain/format.js'
import type { RunPlan } from '../../src/action/plan.js'
import type { LoopResult } from '../../src/loop/index.js'

type Iteration = LoopResult['iterations'][number]
/** An iteration whose agent ran to its end and committed (progress), or `as` says otherwise. */
const iteration = (as: 'committed' | 'no-commit' | 'killed' | 'no-agent' = 'committed'): Iteration =>
  ({
    ...(as === 'no-agent' ? {} : { agent: as === 'killed' ? { killedBy: 'timeout' } : {} }),
    ...(as === 'committed' ? { commit: { sha: 'c0ffee' } } : {})
  }) as Iteration
const iterations = (n: number, as?: Parameters<typeof iteration>[0]): Iteration[] =>
  Array.from({ length: n }, () => iteration(as))

const result = (
  over: Partial<LoopResult> = {}
): Pick<LoopResult, 'stopReason' | 'success' | 'iterations' | 'cost'> => ({
  stopReason: 'timeout',
  success: false,
  iterations: iterations(3),
  cost: {
    totalUsd: 1,
    source: 'reported',
    enforced: true,
    tokens: { input: 0, output: 0, cache_read: 0, cache_write: 0 }
  },
  ...over
})
const inputs = { continueJobs: 3, maxIterations: 10, maxCostUsd: 5 }
/** Job 1 of the chain, not cancelled, on a branch of its own. */
const job = (over: Partial<ChainJobFacts> = {}): ChainJobFacts => ({
  jobsSoFar: 1,
  carried: 0,
  cancelled: false,
  ...over
})

test.each([
  ['out of time, with jobs, iterations and dollars left', inputs, result(), job(), true],
  ['continue-jobs 1 (the default) never continues', { ...inputs, continueJobs: 1 }, result(), job(), false],
  ['a loop that succeeded', inputs, result({ success: true, stopReason: 'all_checks_passed' }), job(), false],
  ['a loop stopped by its iterations', inputs, result({ stopReason: 'max_iterations' }), job(), false],
  ['a loop stopped by its dollars', inputs, result({ stopReason: 'budget_exhausted' }), job(), false],
  ['a cancelled loop', inputs, result({ stopReason: 'cancelled' }), job(), false],
  [
    'out of time, then the job cancelled (a signal after the loop)',
    inputs,
    result(),
    job({ cancelled: true }),
    false
  ],
  ['the breaker', inputs, result({ stopReason: 'circuit_open' }), job(), false],
  ['the last job the chain may run', inputs, result(), job({ jobsSoFar: 3 }), false],
  [
    'every iteration spent over the chain',
    inputs,
    result({ iterations: iterations(10) }),
    job({ jobsSoFar: 2 }),
    false
  ],
  [
    'every dollar spent over the chain',
    inputs,
    result({ cost: { ...result().cost, totalUsd: 5 } }),
    job({ jobsSoFar: 2 }),
    false
  ],
  ["a person's pull request branch", inputs, result(), job({ branchWas: 'pr' }), false],
  ['a branch that was there before the chain', inputs, result(), job({ branchWas: 'existing' }), false],
  [
    'no agent run at all in this job (setup took its max-time)',
    inputs,
    result({ iterations: [] }),
    job(),
    false
  ],
  [
    'agent runs that never finished (killed at max-time)',
    inputs,
    result({ iterations: iterations(2, 'killed') }),
    job(),
    false
  ],
  [
    'agent runs that finished and committed nothing',
    inputs,
    result({ iterations: iterations(2, 'no-commit') }),
    job(),
    false
  ],
  [
    "job 2 that only carried job 1's commits: no progress of its own",
    inputs,
    result({ iterations: [...iterations(3), iteration('killed')] }),
    job({ jobsSoFar: 2, carried: 3 }),
    false
  ],
  [
    "job 2 with a commit of its own after job 1's",
    inputs,
    result({ iterations: [...iterations(3, 'no-commit'), iteration('committed'), iteration('killed')] }),
    job({ jobsSoFar: 2, carried: 3 }),
    true
  ],
  [
    'an iteration that committed, then was cut short in its gates: progress',
    inputs,
    result({ iterations: [{ ...iteration('killed'), commit: { sha: 'c0ffee' } }] }),
    job(),
    true
  ]
] as const)('%s', (_, given, loop, facts, continues) => {
  expect(continuesIn(given, loop, facts).continues).toBe(continues)
})

test('each thing that ends a chain says which', () => {
  const why = (...args: Parameters<typeof continuesIn>) => {
    const next = continuesIn(...args)
    return next.continues ? undefined : next.why
  }
  expect(why(inputs, result(), job({ jobsSoFar: 3 }))).toBe('the chain has run its 3 jobs (continue-jobs)')
  expect(why(inputs, result({ cost: { ...result().cost, totalUsd: 7 } }), job())).toBe(
    'the chain has spent its $5 (max-cost)'
  )
  expect(why(inputs, result(), job({ cancelled: true }))).toBe(
    'the job was cancelled, so it hands nothing on (no next run is dispatched)'
  )
  expect(why(inputs, result({ stopReason: 'cancelled' }), job({ cancelled: true }))).toMatch(
    /^the job was cancelled/
  )
  expect(why(inputs, result({ iterations: [] }), job())).toMatch(/^no agent run finished in this job \(setup/)
  expect(why(inputs, result({ iterations: iterations(1, 'no-commit') }), job())).toMatch(
    /^no agent run of this job left a commit/
  )
  // Without a chain there is nothing to say.
  expect(why({ ...inputs, continueJobs: 1 }, result(), job({ cancelled: true }))).toBeUndefined()
})

test("a ralph's name a chain cannot carry ends the chain at its first job, not at a refusal in the next", () => {
  expect(continuesIn({ ...inputs, ralphName: 'tâche\nnext' }, result(), job())).toMatchObject({
    continues: false
  })
  expect(continuesIn({ ...inputs, ralphName: 'fix-tests' }, result(), job())).toEqual({ continues: true })
})

test("the claim's ref is a valid ref for any name, and two names never share one", () => {
  const names = ['fix-tests', 'fix tests', 'v1..2', 'fix.lock', '.hidden', '-', 'a'.repeat(200)]
  const refs = names.map(ralph => claimRef({ runId: '42', runAttempt: '1', ralph }))
  for (const ref of refs) expect(() => execFileSync('git', ['check-ref-format', ref])).not.toThrow()
  expect(new Set(refs).size).toBe(names.length)
  expect(refs[0]).toMatch(/^refs\/ralph-chain\/42\/1\/fix-tests-[0-9a-f]{8}$/)
})

// The next run's refusals, where they are decided (their e2e proofs: continuation.e2e.test.ts).
describe('resume refusals', () => {
  const sha = 'a'.repeat(40)
  const continuation = {
    version: 1,
    repository: 'o/r',
    workflowId: 7,
    runId: '41',
    runAttempt: '1',
    ralph: 'fix',
    branch: 'ralph/fix',
    base: 'main',
    start: sha,
    head: sha,
    trigger: { kind: 'run' },
    hunt: false,
    jobs: [{ run: { id: '41' }, iterations: 1, costUsd: 0.5, durationMs: 10 }]
  }
  test.each<[string, object, string | undefined]>([
    ['a continuation this action wrote is read', {}, undefined],
    ['another version', { version: 2 }, 'version 2 is not 1'],
    ['no branch', { branch: '' }, 'branch is not a name'],
    ['a head that is not a commit', { head: 'main' }, 'start or head is not a commit'],
    ['a trigger that is not a run', { trigger: { kind: 'issue' } }, 'trigger is not a run'],
    ['no jobs', { jobs: [] }, 'jobs is empty'],
    [
      "a job's dollars that are not a number",
      { jobs: [{ run: { id: '41' }, iterations: 1, costUsd: -1, durationMs: 10 }] },
      "job 41's figures are not numbers"
    ],
    ['a tracking comment that is not one', { tracking: { issueNumber: 'x' } }, 'tracking is not a comment']
  ])('continuation.json: %s', (_, over, problem) => {
    expect(malformedContinuation({ ...continuation, ...over })).toBe(problem)
  })

  const status = { state: 'finished', iterations: [], cost: { totalUsd: 0 }, start: { commit: sha } }
  test.each<[string, object, string | undefined]>([
    ['a finished loop carries on', {}, undefined],
    ['a loop still running does not', { state: 'running' }, 'it is not a finished loop'],
    ['an iteration that is not one', { iterations: [{}] }, 'an iteration is not one'],
    ['a cost that is not a number', { cost: { totalUsd: 'x' } }, 'its cost is not a number'],
    ['no start commit', { start: {} }, 'it has no start commit']
  ])('status.json: %s', (_, over, problem) => {
    expect(malformedStatus({ ...status, ...over })).toBe(problem)
  })

  const resumed = { continuation, status: {}, dir: '/tmp/x' } as unknown as Resumed
  test.each<[string, { ralph: string; branch: string }, string | undefined]>([
    ['the same ralph on the same branch goes on', { ralph: 'fix', branch: 'ralph/fix' }, undefined],
    [
      'another ralph is refused',
      { ralph: 'other', branch: 'ralph/fix' },
      'Cannot resume run 41: it handed over the ralph fix, and this run runs other. No agent ran.'
    ],
    [
      'another branch is refused',
      { ralph: 'fix', branch: 'ralph/other' },
      "Cannot resume run 41: it handed over the branch ralph/fix, and this run's is ralph/other. No agent ran."
    ]
  ])('the plan: %s', (_, plan, message) => {
    const refusal = resumeRefusal({ ralph: { name: plan.ralph }, branch: plan.branch } as RunPlan, resumed)
    expect(refusal?.failure?.message).toBe(message)
  })
})
