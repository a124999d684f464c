// The run record's status.json: rewritten after every iteration from the iterations' JSON (serialised once,
// kept in a file while the loop runs), it must stay exactly the status, serialised.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { progressSection } from '../../src/loop/progress.js'
import { RunRecord, STATUS_FILE } from '../../src/loop/record.js'
import type { IterationRecord, LoopResult, LoopStatus } from '../../src/loop/types.js'

let dir: string
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'ralph-record-'))
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

const status = (): LoopStatus => ({
  version: 1,
  state: 'running',
  ralph: { name: 'r "iterations":[]', file: '/r/RALPH.md', dir: '/r' },
  projectRoot: '/p',
  workTree: '/p',
  recordDir: dir,
  startedAt: '2026-01-01T00:00:00.000Z',
  durationMs: 0,
  budgets: { maxIterations: 3 },
  start: {},
  iterations: [],
  cost: {
    totalUsd: 0,
    source: 'unknown',
    enforced: true,
    tokens: { input: 0, output: 0, cache_read: 0, cache_write: 0 }
  },
  success: false,
  warnings: ['a "quoted" warning, with "iterations":[] in it']
})

const iteration = (n: number, extra: Partial<IterationRecord> = {}): IterationRecord => ({
  iteration: n,
  startedAt: '2026-01-01T00:00:01.000Z',
  durationMs: 12,
  verdict: 'ran',
  commands: [],
  checks: [],
  completion: { tag: false, given: false },
  failureFingerprint: '',
  ...extra
})

const written = (): string => readFileSync(path.join(dir, STATUS_FILE), 'utf8')

/** status.json as it must be: the status, with every iteration the record was given. */
const expected = (s: LoopStatus, iterations: IterationRecord[]): string =>
  `${JSON.stringify({ ...s, iterations })}\n`

test('status.json is the status serialised, with each iteration the record was given', async () => {
  const s = status()
  const record = RunRecord.create(dir, s)
  expect(written()).toBe(`${JSON.stringify(s)}\n`)
  const given = [iteration(1, { error: 'a "crash"\nwith a newline' })]
  record.appendIteration(given[0])
  record.writeStatus(s)
  await record.flush()
  expect(written()).toBe(expected(s, given))
  given.push(iteration(2), iteration(3, { diffStat: ' a | 1 +\n' }))
  record.appendIteration(given[1])
  record.appendIteration(given[2])
  s.inFlight = 4
  s.warnings.push('another')
  record.writeStatus(s)
  await record.flush()
  expect(written()).toBe(expected(s, given))
  expect(JSON.parse(written())).toEqual({ ...s, iterations: given })
  expect(record.iterations()).toEqual(given)
})

test('the iterations wait in a file, not in memory, however many and however long, and leave no trace', async () => {
  const s = status()
  // A chain's earlier iterations are the record's first.
  s.iterations = [iteration(1), iteration(2)]
  const record = RunRecord.create(dir, s)
  expect(JSON.parse(written())).toEqual(s)
  const given = [...s.iterations]
  // Records of ~9 KiB, multi-byte characters among them, so status.json is copied in several chunks.
  for (let n = 3; n <= 60; n++) {
    given.push(iteration(n, { error: `é${'x'.repeat(9000 + n)}€` }))
    record.appendIteration(given.at(-1) as IterationRecord)
    record.writeStatus(s)
  }
  await record.flush()
  expect(written()).toBe(expected(s, given))
  expect(readdirSync(dir).sort()).toEqual(['logs', 'progress.md', 'status.iterations.tmp', 'status.json'])
  const result: LoopResult = {
    ...s,
    iterations: record.iterations(),
    state: 'finished',
    stopReason: 'max_iterations',
    stopDetail: 'reached the cap',
    finishedAt: '2026-01-01T00:00:02.000Z'
  }
  expect(result.iterations).toEqual(given)
  await record.finish(result)
  expect(JSON.parse(written())).toEqual(result)
  expect(readdirSync(dir).sort()).toEqual(['logs', 'progress.md', 'status.json'])
})

test("a killed loop's status.json holds every iteration, and finishing it removes what the loop left", async () => {
  const s = status()
  const record = RunRecord.create(dir, s)
  record.appendIteration(iteration(1))
  record.writeStatus(s)
  await record.flush()
  // The loop is gone: the post step finishes the record from status.json alone.
  const left = JSON.parse(written()) as LoopStatus
  expect(left.iterations).toEqual([iteration(1)])
  await RunRecord.open(dir).finish({
    ...left,
    state: 'finished',
    stopReason: 'cancelled',
    stopDetail: 'the job was cancelled',
    finishedAt: '2026-01-01T00:00:02.000Z'
  })
  expect(readdirSync(dir).sort()).toEqual(['logs', 'progress.md', 'status.json'])
  expect((JSON.parse(written()) as LoopResult).iterations).toEqual([iteration(1)])
})

test('writes made while one is in flight become one write of the latest status, never a torn or stale file', async () => {
  const s = status()
  const record = RunRecord.create(dir, s)
  const given: IterationRecord[] = []
  for (let n = 1; n <= 50; n++) {
    given.push(iteration(n))
    record.appendIteration(given[n - 1])
    s.inFlight = n + 1
    record.writeStatus(s)
    // Whatever a reader sees meanwhile is a whole status.json (the rename is atomic).
    expect(() => JSON.parse(written()) as unknown).not.toThrow()
  }
  await record.flush()
  expect(written()).toBe(expected(s, given))
})

test('the finished status.json is indented, and written after a write still in flight', async () => {
  const s = status()
  const record = RunRecord.create(dir, s)
  record.appendIteration(iteration(1))
  record.writeStatus(s)
  const result: LoopResult = {
    ...s,
    iterations: [iteration(1)],
    state: 'finished',
    stopReason: 'max_iterations',
    stopDetail: 'reached the cap',
    finishedAt: '2026-01-01T00:00:02.000Z'
  }
  // No flush: finish waits for the running status, which must not land after the finished one.
  await record.finish(result)
  expect(written()).toBe(`${JSON.stringify(result, null, 2)}\n`)
  await new Promise(resolve => setTimeout(resolve, 50))
  expect(written()).toBe(`${JSON.stringify(result, null, 2)}\n`)
})

test('a status.json write that fails is reported by the next write, not lost', async () => {
  const s = status()
  const record = RunRecord.create(dir, s)
  record.appendIteration(iteration(1))
  rmSync(dir, { recursive: true, force: true })
  record.writeStatus(s)
  await expect(record.flush()).rejects.toThrow(/ENOENT/)
  // Reported once; the record folder back, writes go on, and the iterations were not lost with the folder.
  mkdirSync(dir)
  record.writeStatus(s)
  await record.flush()
  expect(written()).toBe(expected(s, [iteration(1)]))
})

test('progress.md tells a request with usage that cannot be true from one with no usage seen (#35)', () => {
  const request = (seq: number, extra: Record<string, unknown>) => ({
    seq,
    path: '/v1/messages',
    status: 200,
    input: 0,
    output: 0,
    cache_read: 0,
    cache_write: 0,
    cost_usd: 0.5,
    worst_case: true,
    ...extra
  })
  const agent = {
    preset: 'claude',
    argv: ['claude'],
    exitCode: 0,
    signal: null,
    timedOut: false,
    success: true,
    durationMs: 1,
    usage: {
      input: 0,
      output: 0,
      cache_read: 0,
      cache_write: 0,
      cost_usd: 1,
      cost_source: 'unknown' as const,
      requests: [request(1, {}), request(2, { impossible_usage: 'input_tokens -5' })]
    },
    log: '',
    notes: []
  }
  expect(progressSection(iteration(1, { agent }))).toContain(
    "- Model requests metered at the wire: 2, 1 with no usage seen (charged their worst case), 1 with usage that cannot be true (the upstream's fault; charged their worst case)"
  )
})
