// The action run as the runner runs it, on the path that works: gates pass in iteration 2, the branch is
// pushed, the pull request is created (then updated by a re-run, never duplicated), outputs, summary and
// the uploaded record are right.
import { expect, test } from '@jest/globals'
import { DONE, FIX, WRONG_FIX, agentScript, projectFiles } from './fixtures.js'
import { actionYaml, runAction } from './harness.js'
import { e2eSuite } from './suite.js'

const e2e = e2eSuite()
const { project, expectClean } = e2e

const fixInTwo = agentScript(
  {
    1: `${WRONG_FIX}\nsay('Tried multiplying.')`,
    2: `${FIX}\n${DONE}`
  },
  // Workflow commands in the agent's output must stay text.
  "say('::error file=calc.js,line=1::injected by the agent')\nsay('::add-mask::calc')"
)

test('gates pass in iteration 2: branch pushed, pull request created, outputs, summary and record right', async () => {
  const p = await project(projectFiles(fixInTwo))
  const run = await runAction(p, e2e.stand(), { inputs: { ralph: 'fix-tests' } })
  expect(run.main.stderr).toBe('')
  expect(run.main.exitCode).toBe(0)

  // Outputs: every output action.yml declares.
  expect(run.outputs).toMatchObject({
    'stop-reason': 'all_checks_passed',
    success: 'true',
    iterations: '2',
    'cost-source': 'unknown',
    branch: 'ralph/fix-tests',
    'pr-number': '1',
    'pr-operation': 'created'
  })
  expect(Object.keys(run.outputs).sort()).toEqual(Object.keys(actionYaml().outputs).sort())
  expect(run.outputs['pr-url']).toMatch(/\/octo-org\/octo-repo\/pull\/1$/)
  expect(Number(run.outputs.duration)).toBeGreaterThanOrEqual(0)

  // The branch on the remote holds the fix, committed by the loop on top of main.
  const pushed = p.remoteGit('rev-parse', 'refs/heads/ralph/fix-tests').trim()
  expect(run.outputs.commit).toBe(pushed)
  expect(p.remoteGit('show', `${pushed}:calc.js`)).toContain('a + b')
  expect(p.remoteGit('log', '--format=%an', 'main..ralph/fix-tests').trim().split('\n')).toEqual([
    'github-actions[bot]',
    'github-actions[bot]'
  ])

  // One pull request, from the branch to main, with the table and the gates in its body.
  expect(p.api.state.pulls).toHaveLength(1)
  const [pr] = p.api.state.pulls
  expect(pr).toMatchObject({
    head: 'ralph/fix-tests',
    base: 'main',
    draft: false,
    user: 'github-actions[bot]'
  })
  expect(pr.title).toBe('ralph fix-tests: tests green after 2 iterations')
  expect(pr.body).toContain('### What was asked')
  expect(pr.body).toContain('Every gate passed in iteration 2.')
  expect(pr.body).toMatch(/\| 2 \| ✅ passed \| ✓ \d+\.\ds \|/)
  expect(pr.body).toContain(`run record is the artifact`)
  expect(pr.body).not.toContain('Closes #')

  // The record, uploaded and read back file by file.
  const artifact = e2e
    .stand()
    .artifacts.listArtifacts()
    .find(a => String(a.id) === run.outputs['artifact-id'])
  expect(artifact?.name).toMatch(/^ralph-fix-tests-\d+-1$/)
  if (!artifact) return
  const files = await e2e.stand().artifacts.downloadArtifact(artifact.name)
  expect([...files.keys()].sort()).toEqual(
    expect.arrayContaining([
      'progress.md',
      'status.json',
      'logs/iteration-001/prompt.md',
      'logs/iteration-001/agent.log',
      'logs/iteration-001/checks/tests.log',
      'logs/iteration-002/prompt.md',
      'logs/iteration-002/agent.log',
      'logs/iteration-002/checks/tests.log'
    ])
  )
  const status = JSON.parse(files.get('status.json')!.toString('utf8'))
  expect(status).toMatchObject({ state: 'finished', stopReason: 'all_checks_passed', success: true })
  expect(files.get('progress.md')!.toString('utf8')).toContain('## Iteration 2: passed')
  expect(files.get('logs/iteration-002/prompt.md')!.toString('utf8')).toContain('This is iteration 2.')
  // The ralph says nothing of credit: the action asks the agent to credit no one in its commits.
  expect(files.get('logs/iteration-002/prompt.md')!.toString('utf8')).not.toContain('Co-authored-by')
  // progress.md opens with the outcome and the overview, before the iterations' sections.
  const progress = files.get('progress.md')!.toString('utf8')
  expect(progress.indexOf('## Stopped: all_checks_passed')).toBeLessThan(progress.indexOf('## Overview'))
  expect(progress.indexOf('```mermaid')).toBeLessThan(progress.indexOf('## Iteration 1:'))

  // The summary: the sentence, the table, the chart, the links.
  expect(run.summary).toContain(
    '✅ **fix-tests** passed every gate in iteration 2 and opened pull request [#1]'
  )
  expect(run.summary).toMatch(/\| 1 \| ❌ gates failed \| ✗ \d+\.\ds \|/)
  expect(run.summary).toMatch(/\| 2 \| ✅ passed \| ✓ \d+\.\ds \|/)
  expect(run.summary).toContain('xychart-beta')
  expect(run.summary).toContain(`/actions/runs/`)
  expect(run.summary).toContain(`/artifacts/${artifact.id}`)

  // The log: a group per iteration, and the agent's workflow commands left as text.
  const groups = run.main.commands.filter(c => c.command === 'group').map(c => c.message)
  expect(groups).toEqual(expect.arrayContaining(['Iteration 1 of 10', 'Iteration 2 of 10']))
  // Defused (a zero-width space after the first colon): the text is there, the command is not.
  expect(run.main.stdout).toContain(':\u200b:error file=calc.js,line=1::injected by the agent')
  expect(run.main.stdout).not.toMatch(/^\s*::error file=calc\.js/m)
  expect(run.main.commands.filter(c => c.message.includes('injected'))).toEqual([])
  expect(run.main.commands.filter(c => c.command === 'add-mask' && c.message === 'calc')).toEqual([])

  // Post: main finished, nothing to do.
  expect(run.post?.exitCode).toBe(0)
  expect(run.post?.stdout).toContain('nothing left to do')

  // The checkout's credential is back where actions/checkout put it (its post step removes it).
  expect(p.git('config', '--get-regexp', '^includeif\\.')).toContain('git-credentials-')
  expectClean(p)
})

test('a re-run updates the pull request instead of opening a second one', async () => {
  const p = await project(projectFiles(fixInTwo))
  const first = await runAction(p, e2e.stand(), { inputs: { ralph: 'fix-tests' } })
  expect(first.outputs['pr-operation']).toBe('created')
  // A re-run that finds the branch green would stop at the baseline (a workflow_dispatch is a hunt): here it
  // must run again, to prove it updates.
  const second = await runAction(p, e2e.stand(), {
    inputs: { ralph: 'fix-tests', 'skip-if-green': 'false' },
    runAttempt: '2'
  })
  expect(second.main.exitCode).toBe(0)
  expect(second.outputs).toMatchObject({ 'pr-operation': 'updated', 'pr-number': first.outputs['pr-number'] })
  expect(p.api.state.pulls).toHaveLength(1)
  expect(second.summary).toContain('and updated pull request [#1]')
  // The branch was replaced by the new run's commits (a lease push onto the branch the action owns).
  expect(p.remoteGit('rev-parse', 'refs/heads/ralph/fix-tests').trim()).toBe(second.outputs.commit)
  expectClean(p)
})

test('a local trial without a remote: open-pr false starts the branch from the local base; otherwise one line says what to do', async () => {
  const p = await project(projectFiles(fixInTwo))
  p.git('remote', 'remove', 'origin')
  const pushing = await runAction(p, e2e.stand(), { inputs: { ralph: 'fix-tests' } })
  expect(pushing.main.exitCode).toBe(1)
  expect(pushing.main.stdout).toContain(
    "This repository has no remote 'origin' to push 'ralph/fix-tests' to: add one, or for a local trial set open-pr: false (and on-failure: none), which starts the branch from the local 'main'."
  )
  expect(pushing.main.stdout).not.toMatch(/does not appear to be a git repository/)

  const run = await runAction(p, e2e.stand(), { inputs: { ralph: 'fix-tests', 'open-pr': 'false' } })
  expect(run.main.exitCode).toBe(0)
  expect(run.outputs).toMatchObject({
    'stop-reason': 'all_checks_passed',
    success: 'true',
    branch: 'ralph/fix-tests'
  })
  expect(run.main.stdout).toContain("There is no remote 'origin': a local trial, so nothing will be pushed.")
  expect(p.git('rev-parse', 'ralph/fix-tests').trim()).toBe(run.outputs.commit)
  expect(p.git('show', `${run.outputs.commit}:calc.js`)).toContain('a + b')
  expect(p.api.state.pulls).toHaveLength(0)
})
