// The runner's file commands around the loop: closed to other users meanwhile, and cut back afterwards.
import { chmodSync, lstatSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { guardRunnerFiles } from '../../src/security/index.js'
import { tempDir } from '../git/temp-repo.js'

test("the runner's file commands: what the loop appended is cut back, a rewrite is undone, the modes come back", () => {
  const dir = tempDir('ralph-runner-files-')
  const file = (name: string, content: string): string => {
    const f = path.join(dir, name)
    writeFileSync(f, content)
    chmodSync(f, 0o644)
    return f
  }
  const env = {
    GITHUB_ENV: file('set_env', 'FROM_AN_EARLIER_STEP=1\n'),
    GITHUB_PATH: file('add_path', ''),
    GITHUB_OUTPUT: file('set_output', 'x=1\n')
  }
  const guard = guardRunnerFiles(env, { close: true })
  // Closed to other users (the agent's) while the loop runs.
  expect(lstatSync(env.GITHUB_ENV).mode & 0o777).toBe(0o600)
  writeFileSync(env.GITHUB_ENV, 'LD_PRELOAD=/tmp/evil.so\n', { flag: 'a' })
  writeFileSync(env.GITHUB_OUTPUT, 'success=pwned\n')
  expect(guard.restore()).toEqual([
    '24 bytes appended to GITHUB_ENV during the loop were cut back',
    'GITHUB_OUTPUT was changed during the loop and was put back as it was'
  ])
  expect(readFileSync(env.GITHUB_ENV, 'utf8')).toBe('FROM_AN_EARLIER_STEP=1\n')
  expect(readFileSync(env.GITHUB_OUTPUT, 'utf8')).toBe('x=1\n')
  expect(lstatSync(env.GITHUB_ENV).mode & 0o777).toBe(0o644)
  rmSync(dir, { recursive: true, force: true })
})
