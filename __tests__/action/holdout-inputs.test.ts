// Held-out gates (#37): where they run (not in the agent job of two), and what refuses them before any agent
// runs. Their inputs' parsing is in inputs.test.ts.
import { chmodSync, mkdirSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, test } from '@jest/globals'
import { holdoutFallbackRefusal, holdoutSetting } from '../../src/action/holdout-inputs.js'
import { jobKind } from '../../src/action/jobs/kind.js'
import { tempDir } from '../git/temp-repo.js'

describe('where held-out gates run', () => {
  const folder = (): string => {
    const dir = path.join(tempDir('ralph-holdout-in-'), 'h')
    mkdirSync(dir, { mode: 0o700 })
    return dir
  }
  const checks = [{ name: 'npm test', run: 'npm test', timeout: 600 }]
  const input = (dir: string) => ({
    commands: ['npm test', 'node --test holdout/'],
    path: dir,
    feedback: 'none' as const
  })
  const here = (
    mode: 'run' | 'agent' | 'deliver',
    more: { isolation?: string; verify?: 'clean' | 'tree' } = {}
  ) => ({
    ...jobKind({ mode }),
    isolation: more.isolation ?? 'auto',
    verify: more.verify
  })

  test('the one job and the deliver job run them, named apart from the other gates; the agent job of two never holds them', () => {
    const dir = folder()
    expect(holdoutSetting(input(dir), here('run'), checks, ['/nowhere'])).toEqual({
      setting: {
        checks: [
          { name: 'npm test (2)', run: 'npm test', timeout: 600 },
          { name: 'node --test holdout/', run: 'node --test holdout/', timeout: 600 }
        ],
        path: dir,
        feedback: 'none'
      }
    })
    // No agent in the deliver job: isolation none there lets no agent read the folder.
    expect(holdoutSetting(input(dir), here('deliver', { isolation: 'none' }), checks, [])).toHaveProperty(
      'setting'
    )
    expect(holdoutSetting(input(dir), here('agent'), checks, [])).toEqual({
      notice: 'holdout: the held-out gates run in the deliver job; this job never holds them'
    })
  })

  test('an agent run as the job’s own user, no clean verification, or a folder others may open is refused', () => {
    const dir = folder()
    expect(holdoutSetting(input(dir), here('run', { isolation: 'none' }), checks, [])).toEqual({
      problem:
        "Input 'holdout' needs the agent to run as its own user (isolation: auto or user): with isolation: none it runs as the job's user and can read holdout-path."
    })
    expect(holdoutSetting(input(dir), here('run', { verify: 'tree' }), checks, [])).toHaveProperty(
      'problem',
      "Input 'holdout' needs the clean verification (gates, and verify: clean): held-out gates run there, after the other gates passed."
    )
    expect(holdoutSetting(input(dir), here('run'), [], [])).toHaveProperty('problem')
    chmodSync(dir, 0o750)
    expect(holdoutSetting(input(dir), here('run'), checks, [])).toEqual({
      problem: `Input 'holdout-path': holdout-path ${dir} has mode 750: other users may open it; chmod 700 it.`
    })
  })
})

test('where the agent cannot have its own user, a job that runs an agent and held-out gates refuses to fall back to the job’s user', () => {
  const setting = { checks: [], path: '/srv/h', feedback: 'none' as const }
  expect(holdoutFallbackRefusal(setting, true, 'sudo is not installed')).toBe(
    "holdout needs the agent to run as its own user, which is not possible here: sudo is not installed. As the job's user it could read holdout-path."
  )
  // The deliver job runs no agent; a job without held-out gates has nothing to hide.
  expect(holdoutFallbackRefusal(setting, false, 'x')).toBeUndefined()
  expect(holdoutFallbackRefusal(undefined, true, 'x')).toBeUndefined()
})
