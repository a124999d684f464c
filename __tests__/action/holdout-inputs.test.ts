// Held-out gates as inputs (#37): `holdout`, `holdout-path`, `holdout-feedback`, read as the runner hands them
// over; where they run (not in the agent job of two); what refuses them before any agent runs.
import { chmodSync, mkdirSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, test } from '@jest/globals'
import { holdoutSetting } from '../../src/action/holdout-inputs.js'
import { InputError, readInputs } from '../../src/action/inputs.js'
import { jobKind } from '../../src/action/jobs/kind.js'
import { tempDir } from '../git/temp-repo.js'
import { inputEnv } from './harness.js'

const read = (given: Record<string, string>) => readInputs(inputEnv(given))
const problem = (given: Record<string, string>): string => {
  try {
    read(given)
  } catch (error) {
    expect(error).toBeInstanceOf(InputError)
    return (error as Error).message
  }
  throw new Error('expected an InputError')
}

test('holdout, holdout-path and holdout-feedback are read: commands one a line, feedback none by default', () => {
  expect(
    read({ ralph: 'r', holdout: 'node --test holdout/\nmake hidden', 'holdout-path': '/srv/h/' }).holdout
  ).toEqual({
    commands: ['node --test holdout/', 'make hidden'],
    path: '/srv/h/',
    feedback: 'none'
  })
  expect(
    read({ ralph: 'r', holdout: 'x', 'holdout-path': '/srv/h', 'holdout-feedback': 'full' }).holdout?.feedback
  ).toBe('full')
  expect(read({ ralph: 'r' }).holdout).toBeUndefined()
})

test('a held-out setting that cannot work is one line naming the input and the fix', () => {
  expect(problem({ ralph: 'r', holdout: 'x' })).toBe(
    "Input 'holdout' needs 'holdout-path': a folder outside the workspace that only the action’s user can read, filled by an earlier step (e.g. mkdir -m 700 \"$RUNNER_TEMP/holdout\")."
  )
  expect(problem({ ralph: 'r', holdout: 'x', 'holdout-path': 'rel/h' })).toMatch(
    /^Input 'holdout-path' must be an absolute path, got 'rel\/h': /
  )
  expect(problem({ ralph: 'r', 'holdout-path': '/srv/h' })).toBe(
    "Input 'holdout-path' is set but 'holdout' is empty: give the held-out gate commands, one a line."
  )
  expect(problem({ ralph: 'r', holdout: 'x', 'holdout-path': '/srv/h', 'holdout-feedback': 'some' })).toBe(
    "Input 'holdout-feedback' must be none or full, got 'some'."
  )
})

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
