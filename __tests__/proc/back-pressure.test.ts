// A caller without room for more output (a full stdout) stops the reading: the program blocks on its own
// writes instead of our process buffering them. Measured by what the program says it has written, never by time.
import { readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'

import { runProcess } from '../../src/proc/index.js'
import { tempDir } from './helpers.js'

let dir: string
let cleanup: () => void
beforeEach(() => ({ dir, cleanup } = tempDir()))
afterEach(() => cleanup())

const CHUNK = 64 * 1024
/** Writes `count` chunks to stdout with blocking writes, and after each one the count so far to `counter`. */
const writer = (counter: string, count: number): string[] => [
  process.execPath,
  '-e',
  `const fs = require('fs'); const buf = Buffer.alloc(${CHUNK}, 120)
   for (let i = 1; i <= ${count}; i++) {
     let off = 0
     while (off < buf.length) {
       try { off += fs.writeSync(1, buf, off) } catch (e) { if (e.code !== 'EAGAIN') throw e }
     }
     fs.writeFileSync(${JSON.stringify(counter)}, String(i))
   }`
]

const written = (counter: string): number => {
  try {
    return Number(readFileSync(counter, 'utf8') || 0) * CHUNK
  } catch {
    return 0
  }
}

/** Waits until the program's own progress counter stops moving (it is blocked in write). */
async function stalled(counter: string): Promise<number> {
  let last = -1
  for (;;) {
    const now = written(counter)
    if (now > 0 && now === last) return now
    last = now
    await sleep(300)
  }
}

describe('runProcess: back-pressure from the caller', () => {
  test('a caller without room stops the reading: the program blocks in write, and goes on once there is room', async () => {
    const counter = join(dir, 'counter')
    const total = 1024 // chunks: 64 MiB
    let received = 0
    let open!: () => void
    let gate: Promise<void> | undefined = new Promise<void>(resolve => (open = resolve))
    const run = runProcess({
      argv: writer(counter, total),
      cwd: dir,
      onStdout: chunk => {
        received += chunk.length
      },
      outputRoom: () => gate
    })
    const progress = await stalled(counter)
    const readWhilePaused = received
    // Nothing read past the pipe's buffer and the stream's own (each well under a few MiB).
    expect(progress).toBeLessThan(8 * 1024 * 1024)
    expect(progress - readWhilePaused).toBeLessThan(4 * 1024 * 1024)
    expect(received).toBe(readWhilePaused)
    gate = undefined
    open()
    const result = await run
    expect(result.exitCode).toBe(0)
    expect(result.stdout.totalBytes).toBe(total * CHUNK)
    expect(written(counter)).toBe(total * CHUNK)
  }, 60_000)

  test('a caller that never has room again does not stop a timeout: the tree is killed and the record keeps every byte written', async () => {
    const counter = join(dir, 'counter')
    const log = join(dir, 'out.log')
    const result = await runProcess({
      argv: writer(counter, 100_000),
      cwd: dir,
      logFile: log,
      timeoutMs: 1500,
      killGraceMs: 200,
      outputRoom: () => new Promise<void>(() => {})
    })
    expect(result.timedOut).toBe(true)
    // Every byte the program got written (its counter lags by at most one chunk) reached the log and the capture.
    expect(result.stdout.totalBytes).toBeGreaterThanOrEqual(written(counter))
    expect(statSync(log).size).toBe(result.stdout.totalBytes)
    expect(result.stdout.totalBytes).toBeLessThan(8 * 1024 * 1024)
  }, 60_000)
})
