// The cache service v2 stand-in with the real @actions/cache, through src/github/cache.ts: a folder saved
// under a key comes back byte for byte, a second save of the key is refused without failing, a miss is a
// miss, and a restore needs the same path (the client's version hash) as the save.
import { randomBytes } from 'node:crypto'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { jest } from '@jest/globals'
import { restoreFolder, saveFolder } from '../../src/github/cache.js'
import { startArtifactService, type ArtifactService } from '../support/artifacts/index.js'
import { quietStdout, SavedEnv } from '../support/in-process-client.js'

let service: ArtifactService
let work: string
const env = new SavedEnv()
const content = randomBytes(200_000)

beforeAll(async () => {
  quietStdout()
  service = await startArtifactService()
  work = mkdtempSync(join(tmpdir(), 'cache-standin-'))
  env.set({ ...service.env, RUNNER_TEMP: join(work, 'runner-temp') })
})

afterAll(async () => {
  jest.restoreAllMocks()
  env.restore()
  if (work) rmSync(work, { recursive: true, force: true })
  await service?.close()
})

test('a folder saved under a key is restored byte for byte, once the folder is gone', async () => {
  const folder = join(work, 'tool', 'gemini', '0.61.0', 'x64')
  mkdirSync(join(folder, 'node_modules', '.bin'), { recursive: true })
  writeFileSync(join(folder, 'node_modules', 'blob.bin'), content)
  writeFileSync(join(folder, 'node_modules', '.bin', 'gemini'), '#!/bin/sh\necho 0.61.0\n', { mode: 0o755 })

  expect(await restoreFolder(folder, 'agent-gemini-0.61.0')).toBe(false)
  expect(await saveFolder(folder, 'agent-gemini-0.61.0')).toBe(true)
  expect(service.listCacheEntries()).toEqual([
    expect.objectContaining({ key: 'agent-gemini-0.61.0', finalized: true })
  ])

  rmSync(join(work, 'tool'), { recursive: true, force: true })
  expect(await restoreFolder(folder, 'agent-gemini-0.61.0')).toBe(true)
  expect(readFileSync(join(folder, 'node_modules', 'blob.bin')).equals(content)).toBe(true)
  expect(readFileSync(join(folder, 'node_modules', '.bin', 'gemini'), 'utf8')).toContain('0.61.0')
  expect(service.violations).toEqual([])
})

test('saving a key that exists is refused without failing (the stand-in notes it); another folder does not restore it', async () => {
  const folder = join(work, 'again')
  mkdirSync(folder, { recursive: true })
  writeFileSync(join(folder, 'a.txt'), 'a')
  expect(await saveFolder(folder, 'agent-once')).toBe(true)
  expect(await saveFolder(folder, 'agent-once')).toBe(false)
  // The version hashes the cached path: a different folder is a different entry.
  expect(await restoreFolder(join(work, 'elsewhere'), 'agent-once')).toBe(false)
  // A client that saves what it could have restored is doing needless work: the stand-in keeps it as a violation.
  expect(service.violations.splice(0)).toEqual([
    { method: 'CreateCacheEntry', message: 'cache entry with the same key, version and scope already exists' }
  ])
})

test('without a results service the cache is a miss, never a failure', async () => {
  const url = process.env.ACTIONS_RESULTS_URL
  delete process.env.ACTIONS_RESULTS_URL
  try {
    expect(await restoreFolder(join(work, 'none'), 'agent-none')).toBe(false)
    expect(await saveFolder(work, 'agent-none')).toBe(false)
  } finally {
    process.env.ACTIONS_RESULTS_URL = url
  }
})
