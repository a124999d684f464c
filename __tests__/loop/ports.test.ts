// runLoop with fakes in its ports: no process is spawned, no git is run, time is a number we move.
import { rmSync } from 'node:fs'
import path from 'node:path'
import type { Workspace } from '../../src/git/index.js'
import { loopConfig, runLoop, taskRalph, type LoopEvent } from '../../src/loop/index.js'
import type { RunOptions, RunResult } from '../../src/proc/index.js'
import { tempDir } from '../git/temp-repo.js'
import { fakeClock } from '../support/clock.js'

const empty = { head: Buffer.alloc(0), tail: Buffer.alloc(0), totalBytes: 0, truncated: false }
const captured = (text: string) => ({
  head: Buffer.from(text),
  tail: Buffer.alloc(0),
  totalBytes: text.length,
  truncated: false
})

const fakeWorkspace = (root: string): Workspace => ({
  root,
  isRepo: async () => false,
  headSha: async () => undefined,
  treeHash: async () => 'tree',
  diffSinceStart: async () => ({ stat: '', patch: '', patchTruncated: false }),
  commitAll: async () => undefined,
  dispose: async () => undefined
})

let dir: string
beforeEach(() => {
  dir = tempDir()
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

test('a fake process runner and clock drive the loop: the time budget is checked before each iteration', async () => {
  const clock = fakeClock()
  const calls: RunOptions[] = []
  const runProcess = async (options: RunOptions): Promise<RunResult> => {
    calls.push(options)
    clock.advance(4000)
    return {
      exitCode: 0,
      signal: null,
      timedOut: false,
      aborted: false,
      stdout: captured('working'),
      stderr: empty,
      durationMs: 4000
    }
  }
  const events: LoopEvent[] = []
  const ralph = taskRalph({ agent: 'my-agent --fast', dir })
  const result = await runLoop(
    loopConfig({
      ralph,
      projectRoot: dir,
      promptText: 'Do it.',
      recordDir: path.join(dir, '..', `${path.basename(dir)}-record`),
      maxTimeSeconds: 10
    }),
    { clock, runProcess, workspace: fakeWorkspace(dir), emit: e => events.push(e) }
  )
  rmSync(result.recordDir, { recursive: true, force: true })
  expect(calls.map(c => c.argv)).toEqual([
    ['my-agent', '--fast'],
    ['my-agent', '--fast'],
    ['my-agent', '--fast']
  ])
  expect(calls[0].input).toBe('Do it.')
  expect(result.stopReason).toBe('timeout')
  expect(result.iterations).toHaveLength(3)
  expect(result.durationMs).toBe(12000)
  expect(events.map(e => e.type).filter(t => t !== 'agent_output')).toEqual([
    'loop_started',
    ...Array(3)
      .fill(['iteration_started', 'agent_started', 'cost_update', 'agent_finished', 'iteration_finished'])
      .flat(),
    'stop'
  ])
})

test('a listener that throws does not stop the loop', async () => {
  const runProcess = async (): Promise<RunResult> => ({
    exitCode: 0,
    signal: null,
    timedOut: false,
    aborted: false,
    stdout: captured('<promise>COMPLETE</promise>'),
    stderr: empty,
    durationMs: 1
  })
  const ralph = taskRalph({ agent: 'x', dir })
  const recordDir = path.join(dir, '..', `${path.basename(dir)}-record`)
  const result = await runLoop(loopConfig({ ralph, projectRoot: dir, promptText: 'Go.', recordDir }), {
    runProcess,
    workspace: fakeWorkspace(dir),
    emit: () => {
      throw new Error('render failed')
    }
  })
  rmSync(recordDir, { recursive: true, force: true })
  expect(result.stopReason).toBe('completed')
})
