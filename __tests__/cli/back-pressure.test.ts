// The CLI under back-pressure: while nobody reads its stdout (a pipe), the agent blocks on its own writes
// instead of the CLI buffering them, and it goes on once the pipe is read. Judged by the agent's own progress.
import { spawn } from 'node:child_process'
import { readFileSync, statSync } from 'node:fs'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { expect, test } from '@jest/globals'
import { CLI, gitEnv, project, recordOf } from './helpers.js'

const CHUNK = 64 * 1024
const TOTAL = 512 // chunks: 32 MiB

const writer = `const fs = require('fs'); fs.readFileSync(0); const buf = Buffer.alloc(${CHUNK}, 120)
for (let i = 1; i <= ${TOTAL}; i++) {
  let off = 0
  while (off < buf.length) { try { off += fs.writeSync(1, buf, off) } catch (e) { if (e.code !== 'EAGAIN') throw e } }
  fs.writeFileSync('counter', String(i * ${CHUNK}))
}
`

const progress = (file: string): number => {
  try {
    return Number(readFileSync(file, 'utf8') || 0)
  } catch {
    return 0
  }
}

test('a stdout nobody reads pauses the agent (it blocks in write); once read, the run ends with every byte in agent.log', async () => {
  const dir = project({
    'r/RALPH.md': `---\nagent: ${process.execPath} writer.cjs\n---\nPrint a lot.\n`,
    'writer.cjs': writer
  })
  const record = recordOf(dir)
  const counter = path.join(dir, 'counter')
  const child = spawn(process.execPath, [CLI, 'run', 'r', '-n', '1', '--record-dir', record], {
    cwd: dir,
    env: gitEnv(),
    stdio: ['ignore', 'pipe', 'inherit']
  })
  child.stdout.pause()
  let last = -1
  for (;;) {
    const now = progress(counter)
    if (now > 0 && now === last) break
    last = now
    await sleep(300)
  }
  // Blocked with little written: the pipe's buffer and the CLI's stream buffers, not the 32 MiB.
  expect(last).toBeLessThan(8 * 1024 * 1024)
  let echoed = 0
  child.stdout.on('data', (chunk: Buffer) => (echoed += chunk.length))
  child.stdout.resume()
  const code = await new Promise<number | null>(resolve => child.on('close', resolve))
  expect(code).toBe(0)
  expect(progress(counter)).toBe(TOTAL * CHUNK)
  expect(echoed).toBeGreaterThan(TOTAL * CHUNK)
  expect(statSync(path.join(record, 'logs', 'iteration-001', 'agent.log')).size).toBe(TOTAL * CHUNK)
}, 120_000)
