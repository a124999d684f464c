// The record's upload where the job has no artifact service (a local trial, a runner stand-in without it):
// one warning naming what is missing, and no second attempt under a random name.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { jest } from '@jest/globals'
import { uploadArtifact } from '../../src/action/upload.js'

const saved = { token: process.env.ACTIONS_RUNTIME_TOKEN, url: process.env.ACTIONS_RESULTS_URL }
let dir: string
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'ralph-upload-'))
  writeFileSync(path.join(dir, 'progress.md'), '# run\n')
  delete process.env.ACTIONS_RUNTIME_TOKEN
  delete process.env.ACTIONS_RESULTS_URL
})
afterEach(() => {
  rmSync(dir, { recursive: true, force: true })
  for (const [name, value] of [
    ['ACTIONS_RUNTIME_TOKEN', saved.token],
    ['ACTIONS_RESULTS_URL', saved.url]
  ] as const)
    if (value === undefined) delete process.env[name]
    else process.env[name] = value
  jest.restoreAllMocks()
})

test('without the runtime token and results URL, one warning and no retry under another name', async () => {
  const printed: string[] = []
  jest.spyOn(process.stdout, 'write').mockImplementation(chunk => {
    printed.push(String(chunk))
    return true
  })
  const upload = await uploadArtifact(dir, 'ralph-fix-tests-1')
  const text = printed.join('')
  expect(upload).toEqual({
    failed:
      'ACTIONS_RUNTIME_TOKEN and ACTIONS_RESULTS_URL are not set (a GitHub runner gives them to every step)'
  })
  expect(text.match(/::warning::/g)).toHaveLength(1)
  expect(text).toContain(
    `::warning::The run record was not uploaded: ACTIONS_RUNTIME_TOKEN and ACTIONS_RESULTS_URL are not set`
  )
  expect(text).toContain(`it is on the runner at ${dir}.`)
  expect(text).not.toContain('uploading it again')
})

test('one of the two missing is named alone', async () => {
  process.env.ACTIONS_RESULTS_URL = 'http://127.0.0.1:9/'
  jest.spyOn(process.stdout, 'write').mockImplementation(() => true)
  expect(await uploadArtifact(dir, 'x')).toEqual({
    failed: 'ACTIONS_RUNTIME_TOKEN is not set (a GitHub runner gives them to every step)'
  })
})
