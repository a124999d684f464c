// The front-end's output under back-pressure: while its reader is behind, the agent's pipes are not read and
// the agent blocks on its own writes; the record still gets every byte once the reader catches up.
import { readFileSync, statSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { Writable } from 'node:stream'
import { setTimeout as sleep } from 'node:timers/promises'
import { outputRoomOf } from '../../src/loop/index.js'
import { harness, type Harness } from './harness.js'

let h: Harness
beforeEach(() => (h = harness()))
afterEach(() => h.cleanup())

const CHUNK = 64 * 1024

/** An agent that writes `count` chunks with blocking writes and its progress (bytes) to `counter` after each. */
function writerAgent(counter: string, count: number): string {
  const program = `const fs = require('fs'); const buf = Buffer.alloc(${CHUNK}, 120)
for (let i = 1; i <= ${count}; i++) {
  let off = 0
  while (off < buf.length) { try { off += fs.writeSync(1, buf, off) } catch (e) { if (e.code !== 'EAGAIN') throw e } }
  fs.writeFileSync(${JSON.stringify(counter)}, String(i * ${CHUNK}))
}`
  const file = path.join(h.tools, 'writer.cjs')
  writeFileSync(file, program)
  return h.script('agent', `exec ${JSON.stringify(process.execPath)} ${JSON.stringify(file)}`)
}

const progress = (counter: string): number => {
  try {
    return Number(readFileSync(counter, 'utf8') || 0)
  } catch {
    return 0
  }
}

/** Waits until the agent's own progress counter stops moving: it is blocked in write. */
async function stalled(counter: string): Promise<number> {
  let last = -1
  for (;;) {
    const now = progress(counter)
    if (now > 0 && now === last) return now
    last = now
    await sleep(300)
  }
}

test('a stdout whose reader is behind pauses the agent (it blocks in write), and the agent goes on once it is read', async () => {
  const counter = path.join(h.tools, 'counter')
  const total = 512 // chunks: 32 MiB
  // A slow reader: nothing is taken until `reading` is set.
  let reading = false
  const held: (() => void)[] = []
  let echoed = 0
  const stdout = new Writable({
    highWaterMark: 16 * 1024,
    write(chunk: Buffer, _encoding, done) {
      echoed += chunk.length
      if (reading) done()
      else held.push(done)
    }
  })
  const agent = writerAgent(counter, total)
  h.writeRalph(`agent: ${agent}`, 'Print a lot.')
  const run = h.run(
    { maxIterations: 1 },
    {
      emit: event => {
        if (event.type === 'agent_output') stdout.write(event.chunk)
      },
      outputRoom: outputRoomOf(stdout)
    }
  )
  const written = await stalled(counter)
  // Nothing buffered past the pipes and the streams' own small buffers.
  expect(written).toBeLessThan(8 * 1024 * 1024)
  expect(written - echoed).toBeLessThan(4 * 1024 * 1024)
  reading = true
  for (const done of held.splice(0)) done()
  const { result } = await run
  expect(progress(counter)).toBe(total * CHUNK)
  const log = path.join(h.record, result.iterations[0].agent?.log ?? '')
  expect(statSync(log).size).toBe(total * CHUNK)
}, 120_000)
