// The files an agent writes beside its output are read by the action, which may be another, more privileged
// user (isolation): what the agent leaves at that path must not make the action read or wait for anything else.
import { spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, expect, test } from '@jest/globals'
import { WatchedFile } from '../../src/agents/watched-file.js'

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

function rewritten(): { file: WatchedFile & { readonly path: string }; seen: string[] } {
  const seen: string[] = []
  const file = WatchedFile.named({
    name: 'cost.json',
    pollMs: 60_000,
    mode: 'rewritten',
    onChange: text => {
      seen.push(text)
      return true
    }
  })
  return { file, seen }
}

test("the named file's folder lets another user create the file, but not list the folder", () => {
  const { file } = rewritten()
  // Sticky, writable and passable by all, readable by none but its owner.
  expect(statSync(path.dirname(file.path)).mode & 0o7777).toBe(0o1733)
  writeFileSync(file.path, '{"usd": 1}')
  file.close()
})

test('a report the agent wrote is read', () => {
  const { file, seen } = rewritten()
  writeFileSync(file.path, '{"usd": 1}')
  file.close()
  expect(seen).toEqual(['{"usd": 1}'])
})

test('a symlink in place of the file is not followed (it could name a file only the action may read)', () => {
  const secret = mkdtempSync(path.join(tmpdir(), 'ralph-watched-secret-'))
  dirs.push(secret)
  writeFileSync(path.join(secret, 'token'), 'ghs_SecretTheAgentMayNotRead')
  const { file, seen } = rewritten()
  symlinkSync(path.join(secret, 'token'), file.path)
  file.close()
  expect(seen).toEqual([])
})

test('a FIFO in place of the file does not block the action (its event loop enforces the budgets)', () => {
  const { file, seen } = rewritten()
  expect(spawnSync('mkfifo', [file.path]).status).toBe(0)
  // A writer that opens the FIFO only long after: a blocking open of it would wait for this writer.
  const writer = spawn('sh', ['-c', `sleep 60; echo '{"usd": 9}' > '${file.path}'`], { stdio: 'ignore' })
  try {
    file.close()
    // Still sleeping: had the read waited for it, the writer would have written and exited (a zombie or gone).
    expect(readFileSync(`/proc/${writer.pid}/status`, 'utf8')).not.toMatch(/^State:\s+[ZX]/m)
    expect(seen).toEqual([])
  } finally {
    writer.kill('SIGKILL')
  }
})

test('an appended file that is a symlink is not followed either', () => {
  const secret = mkdtempSync(path.join(tmpdir(), 'ralph-watched-secret-'))
  dirs.push(secret)
  writeFileSync(path.join(secret, 'log'), '{"type":"token_count"}\n')
  const chunks: Buffer[] = []
  const file = new WatchedFile({
    find: () => path.join(secret, 'link.jsonl'),
    pollMs: 60_000,
    mode: 'appended',
    onData: chunk => chunks.push(chunk)
  })
  symlinkSync(path.join(secret, 'log'), path.join(secret, 'link.jsonl'))
  file.close()
  expect(chunks).toEqual([])
})
