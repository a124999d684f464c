// A person's files that were there before the loop are never deleted (#36): a tree whose protected paths differ
// from the start commit (a vendored folder not yet committed, an edit of a test not yet committed) is refused
// before any agent runs, in one line naming the paths and the fix; the files stay as they were.
import { existsSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs'
import { spawnSync } from 'node:child_process'
import path from 'node:path'
import { cli, gitEnv, project, recordOf } from './helpers.js'

const RALPH =
  '---\nagent: ./agent.sh\nprotected: [auto, vendor/**]\nchecks:\n  - { name: gate, run: test -f done }\n---\nWork.\n'
/** An agent that marks its run and finishes the work: only the put-back before the gate could touch vendor/. */
const AGENT = '#!/bin/bash\ncat >/dev/null\necho ran >> agent-ran\ntouch done\n'

test('an untracked file under a protected folder: the run is refused before any agent runs, and the file stays', () => {
  const dir = project({ 'r/RALPH.md': RALPH, 'agent.sh': AGENT, 'vendor/kept.txt': 'committed\n' }, true)
  mkdirSync(path.join(dir, 'vendor', 'lib'), { recursive: true })
  writeFileSync(path.join(dir, 'vendor', 'lib', 'mine.js'), 'not yet committed\n')
  const r = cli(dir, 'run', 'r', '-n', '2', '--record-dir', recordOf(dir))
  expect(readFileSync(path.join(dir, 'vendor', 'lib', 'mine.js'), 'utf8')).toBe('not yet committed\n')
  expect(existsSync(path.join(dir, 'agent-ran'))).toBe(false)
  expect(r.code).not.toBe(0)
  const line =
    'the work tree already differs from the start commit where paths are protected, and the put-back before each gate run would undo it (a new file deleted, an edit reverted): vendor/lib/mine.js (added where paths are protected (protected: vendor/**)). Nothing was changed: commit these files (or move them out of the protected paths) and start again, or set protected (protected-paths) to none.'
  expect(r.stdout + r.stderr).toContain(line)
  // The record is written all the same, with the refusal as its error.
  const status = JSON.parse(readFileSync(path.join(recordOf(dir), 'status.json'), 'utf8')) as {
    stopReason: string
    error?: string
    iterations: unknown[]
  }
  expect(status).toMatchObject({ stopReason: 'agent_error', error: line, iterations: [] })
})

test('an uncommitted edit of a protected file is refused too, and kept; once committed, the run goes on', () => {
  const dir = project({ 'r/RALPH.md': RALPH, 'agent.sh': AGENT, 'vendor/kept.txt': 'committed\n' }, true)
  writeFileSync(path.join(dir, 'vendor', 'kept.txt'), 'edited, not yet committed\n')
  const refused = cli(dir, 'run', 'r', '-n', '1', '--record-dir', recordOf(dir))
  expect(refused.code).not.toBe(0)
  expect(refused.stdout + refused.stderr).toContain('vendor/kept.txt (changed)')
  expect(readFileSync(path.join(dir, 'vendor', 'kept.txt'), 'utf8')).toBe('edited, not yet committed\n')
  expect(existsSync(path.join(dir, 'agent-ran'))).toBe(false)
  // Committed, the edit is the start commit's: the loop starts, and the file is still there after the gate.
  for (const args of [
    ['add', 'vendor'],
    ['commit', '-qm', 'vendor edit']
  ])
    spawnSync('git', args, { cwd: dir, env: gitEnv() })
  const ran = cli(dir, 'run', 'r', '-n', '1', '--completion-tag', '', '--record-dir', recordOf(dir))
  expect(ran.code).toBe(0)
  expect(existsSync(path.join(dir, 'agent-ran'))).toBe(true)
  expect(readFileSync(path.join(dir, 'vendor', 'kept.txt'), 'utf8')).toBe('edited, not yet committed\n')
})
