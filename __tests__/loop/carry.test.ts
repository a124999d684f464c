// A loop that goes on from an earlier job's (continuation across jobs, #30): iteration numbers, the caps,
// the breaker, the baseline and the start carry over, and the record holds the whole chain.
import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import type { LoopStart, LoopResult } from '../../src/loop/index.js'
import { countRuns, harness, type Harness } from './harness.js'
import { tempDir } from '../git/temp-repo.js'

let h: Harness
beforeEach(() => {
  h = harness()
})
afterEach(() => h.cleanup())

/** What job 1 hands job 2: its final status, the chain so far, job 2's run, and job 1's record. */
function carryFrom(first: LoopResult, record: string): LoopStart {
  return {
    status: first,
    jobs: [
      {
        run: { id: '101', attempt: '1' },
        iterations: first.iterations.length,
        costUsd: first.cost.totalUsd,
        durationMs: first.durationMs,
        stopReason: first.stopReason
      }
    ],
    run: { id: '202', attempt: '1' },
    recordDir: record
  }
}

test('job 2 numbers its iterations after job 1, runs no baseline again, counts the cap over both, and records the chain', async () => {
  // The gate needs three fixes; the agent makes one a run, so the chain needs three iterations in all.
  const agent = h.script(
    'agent.sh',
    `${countRuns(h.tools)}\ncat > '${h.tools}/prompt-'$n\necho $n > fix-$n.txt`
  )
  h.writeRalph(
    `agent: ${agent}\nchecks:\n  - name: three-fixes\n    run: 'test -f fix-1.txt && test -f fix-2.txt && test -f fix-3.txt'`,
    'Fix it.\n\n{{ ralph.failures }}'
  )
  const first = await h.run({ maxIterations: 2, completionTag: '' })
  expect(first.result.stopReason).toBe('max_iterations')
  const earlier = h.record
  const record = path.join(tempDir('ralph-record-2-'), 'record')
  const second = await h.run({
    maxIterations: 4,
    completionTag: '',
    recordDir: record,
    carry: carryFrom(first.result, earlier)
  })
  const result = second.result
  expect(result.stopReason).toBe('all_checks_passed')
  expect(result.iterations.map(it => it.iteration)).toEqual([1, 2, 3])
  // The agent ran once in job 2, and did not redo job 1's fixes.
  expect(readFileSync(path.join(h.tools, 'count'), 'utf8').trim()).toBe('3')
  expect(second.events.some(e => e.type === 'baseline_started')).toBe(false)
  expect(result.baseline).toEqual(first.result.baseline)
  expect(result.start.commit).toBe(first.result.start.commit)
  expect(result.chain?.jobs.map(job => [job.run.id, job.iterations])).toEqual([
    ['101', 2],
    ['202', 1]
  ])
  // The record is the chain's: job 1's logs, and a section per job in progress.md.
  expect(existsSync(path.join(record, 'logs', 'iteration-001'))).toBe(true)
  expect(existsSync(path.join(record, 'logs', 'iteration-003'))).toBe(true)
  const progress = readFileSync(path.join(record, 'progress.md'), 'utf8')
  const job1 = progress.indexOf('## Job 1: run 101')
  const job2 = progress.indexOf('## Job 2: run 202')
  expect(job1).toBeGreaterThan(-1)
  expect(job2).toBeGreaterThan(job1)
  expect(progress.indexOf('## Iteration 1')).toBeGreaterThan(job1)
  expect(progress.indexOf('## Iteration 3')).toBeGreaterThan(job2)
  // Job 1's sections come without its outcome: one outcome, the chain's, at the top.
  expect(progress.match(/^## Stopped: /gm)).toHaveLength(1)
  expect(first.result.progressSectionsAt).toBeGreaterThan(0)
  const status = JSON.parse(readFileSync(path.join(record, 'status.json'), 'utf8')) as LoopResult
  expect(status.iterations).toHaveLength(3)
  expect(status.chain?.jobs).toHaveLength(2)
})

test('max-iterations counts every job: a chain at its cap runs no agent in the next job', async () => {
  const agent = h.script('agent.sh', `${countRuns(h.tools)}\ncat >/dev/null\necho $n > work-$n.txt`)
  h.writeRalph(`agent: ${agent}\nchecks:\n  - name: never\n    run: 'echo no $RANDOM; exit 1'`, 'Work.')
  const first = await h.run({ maxIterations: 2, completionTag: '' })
  const record = path.join(tempDir('ralph-record-2-'), 'record')
  const second = await h.run({
    maxIterations: 2,
    completionTag: '',
    recordDir: record,
    carry: carryFrom(first.result, h.record)
  })
  expect(second.result.stopReason).toBe('max_iterations')
  expect(second.result.iterations).toHaveLength(2)
  expect(readFileSync(path.join(h.tools, 'count'), 'utf8').trim()).toBe('2')
})

test("max-cost counts every job: the earlier job's dollars are spent already", async () => {
  const agent = h.script('agent.sh', `${countRuns(h.tools)}\ncat >/dev/null\necho $n > work-$n.txt`)
  h.writeRalph(`agent: ${agent}\nchecks:\n  - name: never\n    run: 'echo no $RANDOM; exit 1'`, 'Work.')
  const first = await h.run({ maxIterations: 1, completionTag: '' })
  const spent: LoopResult = {
    ...first.result,
    cost: { ...first.result.cost, totalUsd: 2.5, source: 'reported' }
  }
  const record = path.join(tempDir('ralph-record-2-'), 'record')
  const second = await h.run({
    maxIterations: 10,
    maxCostUsd: 2.5,
    completionTag: '',
    recordDir: record,
    carry: carryFrom(spent, h.record)
  })
  expect(second.result.stopReason).toBe('budget_exhausted')
  expect(second.result.cost.totalUsd).toBe(2.5)
  expect(readFileSync(path.join(h.tools, 'count'), 'utf8').trim()).toBe('1')
})

test("the breaker's counts carry over: two idle iterations in job 1 and one in job 2 open the circuit", async () => {
  const agent = h.script('agent.sh', `${countRuns(h.tools)}\ncat >/dev/null`)
  // The gate fails differently every time, so only the no-progress rule can trip.
  h.writeRalph(
    `agent: ${agent}\nchecks:\n  - name: varies\n    run: 'echo "attempt $RANDOM$RANDOM"; exit 1'`,
    'Work.'
  )
  const first = await h.run({ maxIterations: 2, completionTag: '' })
  expect(first.result.stopReason).toBe('max_iterations')
  const record = path.join(tempDir('ralph-record-2-'), 'record')
  const second = await h.run({
    maxIterations: 10,
    completionTag: '',
    recordDir: record,
    carry: carryFrom(first.result, h.record)
  })
  expect(second.result.stopReason).toBe('circuit_open')
  expect(second.result.breaker).toMatchObject({ rule: 'no_progress', count: 3 })
  expect(second.result.iterations).toHaveLength(3)
})
