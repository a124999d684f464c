// The checkout's credential never appears in an argv (#25): any process on the runner (the agent's, under
// isolation none) reads every other's /proc/<pid>/cmdline. A `git` first on the job's PATH records the argv of
// every git the action starts, through a whole run: the removal of the persisted credential before the agent,
// the loop's commits, its restore, the push and the pull request's branch.
import { rmSync } from 'node:fs'
import { afterAll, expect, test } from '@jest/globals'
import { agentScript, DONE, FIX, projectFiles } from './fixtures.js'
import { GITHUB_TOKEN, runAction } from './harness.js'
import { e2eSuite } from './suite.js'
import { gitArgvLog, type GitArgvLog } from '../support/git-argv.js'

const e2e = e2eSuite()
const logs: GitArgvLog[] = []
afterAll(() => {
  for (const log of logs) rmSync(log.bin, { recursive: true, force: true })
})

test.each(['v6', 'v5'] as const)(
  'actions/checkout %s: no git the action runs is started with the token or its base64 in argv',
  async credentials => {
    const p = await e2e.project(projectFiles(agentScript({ 1: `${FIX}\n${DONE}`, any: '' })), { credentials })
    const argv = gitArgvLog()
    logs.push(argv)
    const run = await runAction(p, e2e.stand(), {
      inputs: { ralph: 'fix-tests', isolation: 'none' },
      env: { PATH: `${argv.bin}:${process.env.PATH ?? ''}` }
    })
    expect(run.outputs['stop-reason']).toBe('all_checks_passed')
    expect(run.outputs['pr-operation']).toBe('created')
    const calls = argv.argvs()
    // The wrapper saw the action's git: the credential's removal, the loop's commits and the push.
    expect(calls.some(a => a.includes('config') && a.includes('--unset-all'))).toBe(true)
    expect(calls.some(a => a[0] === 'commit-tree' || a.includes('commit'))).toBe(true)
    expect(calls.some(a => a.includes('push'))).toBe(true)
    const all = calls.map(a => a.join(' ')).join('\n')
    const base64 = Buffer.from(`x-access-token:${GITHUB_TOKEN}`).toString('base64')
    expect(all).not.toContain(GITHUB_TOKEN)
    expect(all).not.toContain(base64)
  },
  240_000
)
