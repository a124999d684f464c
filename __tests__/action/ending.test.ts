// How the main step ends: a failure that comes before a run's summary is written still says, in the job
// summary, the one line that failed (a newcomer found an empty summary under a red step).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, afterEach, beforeEach, expect, test } from '@jest/globals'
import { writeEnding } from '../../src/action/steps/ending.js'
import { saveState } from '../../src/action/state.js'

// One folder for the file: @actions/core keeps the summary file's path once it has written to it.
const dir = mkdtempSync(path.join(tmpdir(), 'ralph-ending-'))
const kept = { ...process.env }
const summary = (): string => readFileSync(path.join(dir, 'summary.md'), 'utf8')

beforeEach(() => {
  for (const file of ['summary.md', 'state', 'output']) writeFileSync(path.join(dir, file), '')
  process.env.GITHUB_STEP_SUMMARY = path.join(dir, 'summary.md')
  process.env.GITHUB_STATE = path.join(dir, 'state')
  process.env.GITHUB_OUTPUT = path.join(dir, 'output')
})
afterEach(() => {
  process.env = { ...kept }
  process.exitCode = 0
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

test('a step that fails before any run writes its one line to the job summary', async () => {
  await writeEnding({ failure: { message: "Input 'max-cost' must be a number." }, finished: true })
  expect(summary()).toBe("❌ Input 'max-cost' must be a number.\n")
})

test('a summary the step wrote itself is kept, not doubled', async () => {
  await writeEnding({ failure: { message: 'Refused.' }, summary: 'own words\n', finished: true })
  expect(summary()).toBe('own words\n')
})

test('a step that ends well, or leaves its record to post, adds nothing', async () => {
  await writeEnding({ finished: true })
  await writeEnding({ failure: { message: 'The loop was cancelled.' }, finished: false })
  expect(summary()).toBe('')
})

test('after the run wrote its summary, the failure line is not added below it', async () => {
  saveState('summaryWritten', true)
  await writeEnding({ failure: { message: 'Every gate passed, but …' }, finished: true })
  expect(summary()).toBe('')
})
