// What a loop keeps from one iteration to the next must not grow with its length (issue #35): the prompt's
// history is the last few iterations, and the run's totals are added up as it goes, carried jobs included.
import { mkdirSync, readFileSync, symlinkSync } from 'node:fs'
import path from 'node:path'
import { recentHistory } from '../../src/loop/environment.js'
import { PROGRESS_ENTRIES } from '../../src/loop/prompt.js'
import type { IterationRecord } from '../../src/loop/types.js'
import { harness, type Harness } from './harness.js'
import { tempDir } from '../git/temp-repo.js'

let h: Harness
beforeEach(() => {
  h = harness()
})
afterEach(() => h.cleanup())

const record = (iteration: number): IterationRecord => ({
  iteration,
  startedAt: '2026-01-01T00:00:00.000Z',
  durationMs: 1,
  verdict: 'ran',
  commands: [],
  checks: [],
  completion: { tag: false, given: false },
  failureFingerprint: ''
})

test('the history handed to the next iteration is the last few iterations, however long the loop', () => {
  let history = recentHistory([])
  for (let n = 1; n <= 40; n++) history = recentHistory(history, record(n))
  expect(history.map(r => r.iteration)).toEqual([36, 37, 38, 39, 40])
  expect(PROGRESS_ENTRIES).toBe(5)
  // A chain's carried iterations: only their tail is kept.
  const carried = Array.from({ length: 12 }, (_, i) => record(i + 1))
  expect(recentHistory(carried).map(r => r.iteration)).toEqual([8, 9, 10, 11, 12])
  expect(recentHistory(carried.slice(0, 2), record(3)).map(r => r.iteration)).toEqual([1, 2, 3])
})

/** A fake `claude` (its preset is chosen by the name) that reports tokens for one turn and ends. */
function tokenClaude(): string {
  const bin = path.join(h.tools, 'bin')
  mkdirSync(bin, { recursive: true })
  const usage =
    '"usage":{"input_tokens":3,"output_tokens":10,"cache_read_input_tokens":1,"cache_creation_input_tokens":2}'
  const script = h.script(
    'token-claude.sh',
    `cat > '${h.tools}/prompt-'$(date +%s%N)
echo '{"type":"system","subtype":"init","session_id":"s","model":"test-model"}'
echo '{"type":"assistant","message":{"id":"m1","model":"test-model","content":[{"type":"text","text":"done"}],${usage}}}'
echo '{"type":"result","subtype":"success","is_error":false,"result":"done","total_cost_usd":0.01,${usage}}'`
  )
  const claude = path.join(bin, 'claude')
  symlinkSync(script, claude)
  return claude
}

test("a long loop's token totals are its iterations' sums, a carried job's included, and its prompt shows the last five", async () => {
  h.writeRalph(`agent: ${tokenClaude()} -p`, 'Work.\n\n{{ ralph.progress }}')
  const first = await h.run({ maxIterations: 4 })
  expect(first.result.iterations).toHaveLength(4)
  const second = await h.run({
    maxIterations: 9,
    recordDir: path.join(tempDir('ralph-record-2-'), 'record'),
    carry: {
      status: first.result,
      jobs: [
        {
          run: { id: '1', attempt: '1' },
          iterations: 4,
          costUsd: first.result.cost.totalUsd,
          durationMs: first.result.durationMs,
          stopReason: first.result.stopReason
        }
      ],
      run: { id: '2', attempt: '1' },
      recordDir: h.record
    }
  })
  const result = second.result
  expect(result.iterations.map(it => it.iteration)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9])
  const sum = (key: 'input' | 'output' | 'cache_read' | 'cache_write'): number =>
    result.iterations.reduce((total, it) => total + (it.agent?.usage[key] ?? 0), 0)
  expect(sum('output')).toBe(90)
  expect(result.cost.tokens).toEqual({
    input: sum('input'),
    output: sum('output'),
    cache_read: sum('cache_read'),
    cache_write: sum('cache_write')
  })
  // Iteration 9's prompt lists iterations 4 to 8, one line each, and no earlier one.
  const prompt = readFileSync(
    path.join(second.result.recordDir, 'logs', 'iteration-009', 'prompt.md'),
    'utf8'
  )
  const listed = [...prompt.matchAll(/^- Iteration (\d+) /gm)].map(m => Number(m[1]))
  expect(listed).toEqual([4, 5, 6, 7, 8])
})
