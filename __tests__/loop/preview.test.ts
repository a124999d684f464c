// previewPrompt: what `ralph-action prompt` prints, the commands run for real and no agent.
import { rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { previewPrompt } from '../../src/loop/index.js'
import { CREDIT_TRAILER, RalphError } from '../../src/ralph/index.js'
import { tempDir } from '../git/temp-repo.js'
import { harness, type Harness } from './harness.js'

let h: Harness
beforeEach(() => {
  h = harness()
})
afterEach(() => h.cleanup())

test('the preview is the prompt of the given iteration, with max_iterations empty when unlimited', async () => {
  h.writeRalph(
    'agent: no-such-agent\ncommands:\n  - name: hi\n    run: echo hi',
    '{{ commands.hi }}{{ ralph.iteration }}/[{{ ralph.max_iterations }}]'
  )
  expect(await previewPrompt(h.config(), 3)).toBe('hi\n3/[]' + CREDIT_TRAILER)
  expect(await previewPrompt(h.config({ maxIterations: 7 }))).toBe('hi\n1/[7]' + CREDIT_TRAILER)
})

test('the preview of a gated ralph shows the loop status section of a first iteration', async () => {
  h.writeRalph('agent: cat\nchecks:\n  - name: t\n    run: "true"', 'Body.')
  const prompt = await previewPrompt(h.config())
  expect(prompt).toMatch(/^Body\.\n\n---\n\n## Loop status\n\n/)
  expect(prompt).toContain('None yet: this is the first iteration.')
})

test('a command that cannot run makes the preview fail with the reference message', async () => {
  h.writeRalph('agent: cat\ncommands:\n  - name: x\n    run: not-a-program-abc', 'Body.')
  const preview = previewPrompt(h.config())
  await expect(preview).rejects.toThrow(RalphError)
  await expect(previewPrompt(h.config())).rejects.toThrow(
    "Command 'x' binary not found: 'not-a-program-abc'."
  )
})

test('gates work outside git, with a warning that progress cannot be seen', async () => {
  const plain = tempDir()
  writeFileSync(
    path.join(plain, 'RALPH.md'),
    '---\nagent: cat\nchecks:\n  - name: ok\n    run: "true"\n---\nBody.'
  )
  const { loadRalph } = await import('../../src/ralph/index.js')
  const { runLoop, loopConfig } = await import('../../src/loop/index.js')
  const ralph = loadRalph(path.join(plain, 'RALPH.md'), { cwd: plain })
  const record = path.join(tempDir(), 'record')
  const result = await runLoop(
    loopConfig({ ralph, projectRoot: plain, recordDir: record, completionTag: '' })
  )
  expect(result.stopReason).toBe('all_checks_passed')
  expect(result.warnings[0]).toMatch(/not a git repository/)
  expect(result.iterations[0].progressed).toBeUndefined()
  rmSync(plain, { recursive: true, force: true })
  rmSync(path.dirname(record), { recursive: true, force: true })
})
