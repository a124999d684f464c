// The run record's status.json: rewritten after every iteration from cached iteration JSON, it must stay
// exactly the status, serialised.
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
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

test('status.json is the status serialised, whatever iterations were added, replaced or dropped', async () => {
  const s = status()
  const record = RunRecord.create(dir, s)
  expect(written()).toBe(`${JSON.stringify(s)}\n`)
  s.iterations.push(iteration(1, { error: 'a "crash"\nwith a newline' }))
  record.writeStatus(s)
  await record.flush()
  expect(written()).toBe(`${JSON.stringify(s)}\n`)
  s.iterations.push(iteration(2), iteration(3, { diffStat: ' a | 1 +\n' }))
  s.inFlight = 4
  s.warnings.push('another')
  record.writeStatus(s)
  await record.flush()
  expect(written()).toBe(`${JSON.stringify(s)}\n`)
  // A record replaced by another object is serialised again; a shorter list is followed.
  s.iterations[1] = iteration(2, { verdict: 'crashed' })
  record.writeStatus(s)
  await record.flush()
  expect(written()).toBe(`${JSON.stringify(s)}\n`)
  s.iterations.splice(1)
  delete s.inFlight
  record.writeStatus(s)
  await record.flush()
  expect(written()).toBe(`${JSON.stringify(s)}\n`)
  expect(JSON.parse(written())).toEqual(s)
})

test('status.json stays the status serialised when its iterations span many blocks and are cut inside one', async () => {
  const s = status()
  const record = RunRecord.create(dir, s)
  // Records of ~9 KiB, with multi-byte characters, so several cross the 64 KiB blocks the bytes are kept in.
  const big = (n: number) => iteration(n, { error: `é${'x'.repeat(9000 + n)}€` })
  for (let n = 1; n <= 30; n++) {
    s.iterations.push(big(n))
    record.writeStatus(s)
  }
  await record.flush()
  expect(written()).toBe(`${JSON.stringify(s)}\n`)
  // Cut back to a point inside a block, then grown again: the stale bytes past the cut are overwritten.
  s.iterations.splice(9)
  s.iterations[8] = iteration(9, { verdict: 'crashed' })
  record.writeStatus(s)
  await record.flush()
  expect(written()).toBe(`${JSON.stringify(s)}\n`)
  for (let n = 10; n <= 20; n++) s.iterations.push(big(n * 3))
  record.writeStatus(s)
  await record.flush()
  expect(written()).toBe(`${JSON.stringify(s)}\n`)
  s.iterations.splice(0)
  record.writeStatus(s)
  await record.flush()
  expect(written()).toBe(`${JSON.stringify(s)}\n`)
})

test('writes made while one is in flight become one write of the latest status, never a torn or stale file', async () => {
  const s = status()
  const record = RunRecord.create(dir, s)
  for (let n = 1; n <= 50; n++) {
    s.iterations.push(iteration(n))
    // A replaced record while a write may be in flight: its bytes are rebuilt only when the next write starts.
    if (n % 7 === 0) s.iterations[n - 2] = iteration(n - 1, { verdict: 'crashed' })
    record.writeStatus(s)
    // Whatever a reader sees meanwhile is a whole status.json (the rename is atomic).
    expect(() => JSON.parse(written()) as unknown).not.toThrow()
  }
  await record.flush()
  expect(written()).toBe(`${JSON.stringify(s)}\n`)
})

test('the finished status.json is indented, and written after a write still in flight', async () => {
  const s = status()
  const record = RunRecord.create(dir, s)
  s.iterations.push(iteration(1))
  record.writeStatus(s)
  const result: LoopResult = {
    ...s,
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
  rmSync(dir, { recursive: true, force: true })
  record.writeStatus(s)
  await expect(record.flush()).rejects.toThrow(/ENOENT/)
  // Reported once; the record folder back, writes go on.
  mkdirSync(dir)
  record.writeStatus(s)
  await record.flush()
  expect(written()).toBe(`${JSON.stringify(s)}\n`)
})
