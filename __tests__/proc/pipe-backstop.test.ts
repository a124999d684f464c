import { jest } from '@jest/globals'

import { isGoneSoon, killQuietly, pidsIn, tempDir, text } from './helpers.js'

// A tree kill that misses a grandchild (as it would one it cannot find) shows that the run still ends:
// after the kill, pipes held open by a survivor are given a short moment and then closed on our side.
const real = await import('../../src/proc/tree.js')
jest.unstable_mockModule('../../src/proc/tree.js', () => ({
  ...real,
  killProcessTree: async (pid: number) => {
    process.kill(pid, 'SIGKILL')
  }
}))
const { runProcess } = await import('../../src/proc/run.js')

// The timeouts leave the loaded machine seconds to print the survivor's pid before the kill.
test('a survivor holding the output pipe open does not hang the run after a kill', async () => {
  const { dir, cleanup } = tempDir()
  const r = await runProcess({ argv: ['bash', '-c', 'sleep 30 & echo $!; wait'], cwd: dir, timeoutMs: 2000 })
  cleanup()
  const [survivor] = pidsIn(text(r.stdout))
  killQuietly(survivor)
  expect(r).toMatchObject({ timedOut: true, exitCode: null, signal: 'SIGKILL' })
  expect(survivor).toBeGreaterThan(1)
  expect(await isGoneSoon(survivor)).toBe(true)
})

test('a survivor that keeps writing is cut off too, at the latest two seconds after the kill', async () => {
  const { dir, cleanup } = tempDir()
  const r = await runProcess({
    argv: ['bash', '-c', '(echo $BASHPID; while :; do echo tick; sleep 0.02; done) & wait'],
    cwd: dir,
    timeoutMs: 2000
  })
  cleanup()
  const [survivor] = pidsIn(text(r.stdout))
  killQuietly(survivor)
  expect(r.timedOut).toBe(true)
  expect(text(r.stdout)).toContain('tick\n')
})
