// The action run as the runner runs it, when the loop does not end well: gates that never pass, no change,
// a time budget spent mid-agent, the runner cancelling (SIGINT then SIGTERM) or killing main, bad input and
// a dry run. In every case the record is uploaded and read back, and the step says why in one line.
import { execFileSync } from 'node:child_process'
import { chmodSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { expect, test } from '@jest/globals'
import { DONE, FIX, RALPH_DIR, WRONG_FIX, agentScript, projectFiles, ralph } from './fixtures.js'
import { alive, runAction, waitFor, waitForFile, inFlight, type ActionRun } from './harness.js'
import { e2eSuite } from './suite.js'
import { smallFileSystem, whyNoSmallFileSystem } from '../support/full-disk.js'

const e2e = e2eSuite()
const { project, expectClean } = e2e

async function artifactOf(run: ActionRun, step: 'main' | 'post' = 'main'): Promise<Map<string, Buffer>> {
  const id = step === 'main' ? run.outputs['artifact-id'] : undefined
  const all = e2e.stand().artifacts.listArtifacts()
  const artifact = id ? all.find(a => String(a.id) === id) : all.at(-1)
  if (!artifact) throw new Error('no artifact was uploaded')
  return e2e.stand().artifacts.downloadArtifact(artifact.name)
}

const json = (files: Map<string, Buffer>, name: string) => JSON.parse(files.get(name)!.toString('utf8'))

/** An agent that says it runs (its pid and a child's pid in `marker`), then sleeps far past any test. */
function sleepingAgent(marker: string): string {
  return agentScript({
    any: [
      "import { spawn } from 'node:child_process'",
      "const child = spawn('sleep', ['120'], { stdio: 'ignore' })",
      `fs.writeFileSync(${JSON.stringify(marker)}, JSON.stringify({ pid: process.pid, child: child.pid }))`,
      "say('working on it…')",
      'await new Promise(resolve => setTimeout(resolve, 120_000))'
    ].join('\n')
  })
    .replace("import { spawn } from 'node:child_process'\n", '')
    .replace(
      "import fs from 'node:fs'",
      "import fs from 'node:fs'\nimport { spawn } from 'node:child_process'"
    )
}

test('gates that never pass: no branch, no pull request, the record uploaded, the step failed with the reason', async () => {
  const p = await project(projectFiles(agentScript({ any: WRONG_FIX })))
  const run = await runAction(p, e2e.stand(), { inputs: { ralph: 'fix-tests', 'max-iterations': '2' } })
  expect(run.main.exitCode).toBe(1)
  const failed = run.main.errors.find(e => !e.properties.file)
  expect(failed?.message).toMatch(
    /^The gates never passed \(max_iterations\): reached the cap of 2 iterations\. The run record is the artifact ralph-fix-tests-\d+-1\.$/
  )
  expect(run.outputs).toMatchObject({
    'stop-reason': 'max_iterations',
    success: 'false',
    iterations: '2',
    branch: 'ralph/fix-tests',
    'pr-number': '',
    'pr-operation': 'none'
  })
  expect(p.remoteGit('branch', '--list', 'ralph/*').trim()).toBe('')
  expect(p.api.state.pulls).toEqual([])

  // The failing test, annotated where node's test runner says it failed.
  const annotations = run.main.errors.filter(e => e.properties.file)
  expect(annotations).toEqual([
    expect.objectContaining({
      properties: expect.objectContaining({ file: 'calc.test.js', line: '6', col: '10' }),
      message: expect.stringContaining('Expected values to be strictly equal')
    })
  ])

  // The record, file by file.
  const files = await artifactOf(run)
  expect(json(files, 'status.json')).toMatchObject({
    state: 'finished',
    stopReason: 'max_iterations',
    success: false
  })
  for (const n of ['001', '002']) {
    expect(files.get(`logs/iteration-${n}/prompt.md`)?.toString('utf8')).toContain('Fix the failing tests')
    expect(files.get(`logs/iteration-${n}/checks/tests.log`)?.toString('utf8')).toContain(
      '✖ add returns the sum'
    )
    expect(files.has(`logs/iteration-${n}/agent.log`)).toBe(true)
  }
  expect(files.get('progress.md')?.toString('utf8')).toContain('## Stopped: max_iterations')
  expect(run.summary).toContain('❌ **fix-tests** used all 2 iterations without passing its gates')
  expect(run.post?.exitCode).toBe(0)
  expectClean(p)
})

test('no change against the base: gates pass, nothing is pushed and no pull request is opened', async () => {
  const p = await project(projectFiles(agentScript({ any: DONE }), ralph({ checks: ['test -f calc.js'] })))
  // An agent that runs and changes nothing is what is tested: a green start must not stop it first.
  const run = await runAction(p, e2e.stand(), { inputs: { ralph: 'fix-tests', 'skip-if-green': 'false' } })
  expect(run.main.exitCode).toBe(0)
  expect(run.outputs).toMatchObject({
    'stop-reason': 'all_checks_passed',
    success: 'true',
    'pr-operation': 'none'
  })
  expect(p.remoteGit('branch', '--list', 'ralph/*').trim()).toBe('')
  expect(p.api.state.pulls).toEqual([])
  expect(run.summary).toContain(
    'the loop left no change against main, so there is nothing to push and no pull request'
  )
  expectClean(p)
})

test('the time budget runs out mid-agent: the agent tree is killed, the step fails, the record is uploaded', async () => {
  const marker = path.join(e2e.scratch(), 'timeout.json')
  const p = await project(projectFiles(sleepingAgent(marker)))
  // Seconds enough for a loaded machine to start the agent inside the budget; it would sleep two minutes.
  // No baseline: the budget must run out while the agent runs, not while the gates run before it.
  const run = await runAction(p, e2e.stand(), {
    inputs: { ralph: 'fix-tests', 'max-time': '15s', baseline: 'false' }
  })
  const agent = JSON.parse(readFileSync(marker, 'utf8')) as { pid: number; child: number }
  expect(alive(agent.pid)).toBe(false)
  expect(alive(agent.child)).toBe(false)
  expect(run.main.exitCode).toBe(1)
  // The agent sleeps 120 s: a step well under that was not waiting for it (a loaded machine takes 20 s+).
  expect(run.main.durationMs).toBeLessThan(60_000)
  expect(run.outputs).toMatchObject({ 'stop-reason': 'timeout', success: 'false', iterations: '1' })
  expect(run.main.errors.at(-1)?.message).toMatch(
    /^The time budget ran out before the gates passed \(timeout\): /
  )
  const status = json(await artifactOf(run), 'status.json')
  expect(status).toMatchObject({ stopReason: 'timeout', enforcement: { cause: 'timeout', killed: 'agent' } })
  expect(run.summary).toContain('⏱️ **fix-tests** ran out of time after 1 iteration')
  expect(p.api.state.pulls).toEqual([])
  expectClean(p)
})

test('cancelled mid-agent (SIGINT, then SIGTERM): the agent is killed, main exits, post uploads the whole record', async () => {
  const marker = path.join(e2e.scratch(), 'cancel.json')
  const p = await project(projectFiles(sleepingAgent(marker)))
  let sigterm = false
  const run = await runAction(p, e2e.stand(), {
    inputs: { ralph: 'fix-tests' },
    duringMain: async child => {
      await waitForFile(marker)
      child.kill('SIGINT')
      // The runner's grace period: SIGTERM after ~7.5 s if main is still there.
      const exited = await new Promise<boolean>(resolve => {
        const timer = setTimeout(() => resolve(false), 7_500)
        child.once('exit', () => {
          clearTimeout(timer)
          resolve(true)
        })
      })
      if (!exited) {
        sigterm = true
        child.kill('SIGTERM')
      }
    }
  })
  expect(sigterm).toBe(false)
  const agent = JSON.parse(readFileSync(marker, 'utf8')) as { pid: number; child: number }
  expect(alive(agent.pid)).toBe(false)
  expect(alive(agent.child)).toBe(false)
  expect(run.main.exitCode).toBe(1)
  expect(run.main.errors.at(-1)?.message).toMatch(/^The loop was cancelled/)
  expect(run.main.state.finished).toBe('false')
  expect(run.outputs['stop-reason']).toBe('cancelled')

  // Post: uploaded the record (finished by the loop as cancelled) and wrote the summary.
  expect(run.post?.exitCode).toBe(0)
  expect(run.post?.stdout).toContain('Uploaded the run record as artifact')
  const files = await artifactOf(run, 'post')
  expect(json(files, 'status.json')).toMatchObject({ state: 'finished', stopReason: 'cancelled' })
  expect(files.get('progress.md')?.toString('utf8')).toContain('## Stopped: cancelled')
  expect(files.has('logs/iteration-001/prompt.md')).toBe(true)
  expect(files.get('logs/iteration-001/agent.log')?.toString('utf8')).toContain('working on it')
  expect(run.post?.summary).toContain('⏹️ **fix-tests** was cancelled after 1 iteration')
  expect(p.remoteGit('branch', '--list', 'ralph/*').trim()).toBe('')
  // The checkout's credential was put back before main exited, and the checkout is main again.
  expect(p.git('config', '--includes', '--get-regexp', 'extraheader')).toContain('AUTHORIZATION: basic')
  expect(p.git('symbolic-ref', '--short', 'HEAD').trim()).toBe('main')
  expectClean(p)
})

test('cancelled during the push (SIGTERM): the push ends, then main leaves the comment, upload and summary to post', async () => {
  const p = await project(projectFiles(agentScript({ any: `${FIX}\n${DONE}` })))
  // The remote holds the loop's push until the test has cancelled main and main has said it saw the signal.
  const reached = path.join(e2e.scratch(), 'push-reached')
  const go = path.join(e2e.scratch(), 'push-go')
  const hook = path.join(p.remote, 'hooks', 'pre-receive')
  writeFileSync(
    hook,
    [
      '#!/bin/sh',
      `touch '${reached}'`,
      'i=0',
      `while [ ! -e '${go}' ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i+1)); done`,
      ''
    ].join('\n')
  )
  chmodSync(hook, 0o755)
  const run = await runAction(p, e2e.stand(), {
    inputs: { ralph: 'fix-tests' },
    duringMain: async child => {
      let said = ''
      child.stdout?.on('data', (chunk: Buffer) => (said += chunk.toString('utf8')))
      await waitForFile(reached, 60_000)
      child.kill('SIGTERM')
      await waitFor(() => said.includes('Received SIGTERM'), 'main to say it saw the SIGTERM')
      writeFileSync(go, '')
    }
  })
  expect(existsSync(go)).toBe(true)
  // The loop succeeded and the push went through: cancelled after the loop, main stops right after delivery.
  expect(run.outputs['stop-reason']).toBe('all_checks_passed')
  expect(p.remoteGit('branch', '--list', 'ralph/*').trim()).not.toBe('')
  expect(run.main.exitCode).toBe(1)
  expect(run.main.errors.at(-1)?.message).toBe('The loop was cancelled.')
  expect(run.main.state.finished).toBe('false')
  expect(run.main.state.uploaded).toBeUndefined()
  expect(run.main.state.summaryWritten).toBeUndefined()
  expect(run.main.summary).toBe('')
  // Post uploads the record and writes the summary main left.
  expect(run.post?.exitCode).toBe(0)
  expect(run.post?.stdout).toContain('Uploaded the run record as artifact')
  expect(run.post?.summary).not.toBe('')
  expect(json(await artifactOf(run, 'post'), 'status.json')).toMatchObject({
    state: 'finished',
    stopReason: 'all_checks_passed'
  })
  expectClean(p)
})

test('main killed outright mid-agent (a job timeout): post finishes the record as cancelled, uploads it and puts the checkout’s credential back', async () => {
  const marker = path.join(e2e.scratch(), 'killed.json')
  const p = await project(projectFiles(sleepingAgent(marker)))
  const config = path.join(p.workspace, '.git', 'config')
  // actions/checkout v6's lines: the includes of its credentials file.
  const credentialLines = (): string[] =>
    readFileSync(config, 'utf8')
      .split('\n')
      .filter(line => /includeIf|git-credentials-/.test(line))
  const linesBefore = credentialLines()
  const credentials = readdirSync(p.runnerTemp).filter(name => name.startsWith('git-credentials-'))
  try {
    const run = await runAction(p, e2e.stand(), {
      inputs: { ralph: 'fix-tests' },
      duringMain: async child => {
        await waitForFile(marker)
        // Once the loop has said in status.json that iteration 1 is in flight (it does 200 ms into it).
        await waitFor(() => inFlight(p.runnerTemp) === 1)
        child.kill('SIGKILL')
      }
    })
    expect(run.main.signal).toBe('SIGKILL')
    expect(run.post?.exitCode).toBe(0)
    expect(run.post?.stdout).toContain('The main step did not finish')
    const files = await artifactOf(run, 'post')
    const status = json(files, 'status.json')
    expect(status).toMatchObject({ state: 'finished', stopReason: 'cancelled', success: false })
    expect(status.stopDetail).toContain('during iteration 1')
    expect(files.get('progress.md')?.toString('utf8')).toContain('## Stopped: cancelled')
    expect(files.has('logs/iteration-001/prompt.md')).toBe(true)
    expect(run.post?.summary).toContain('was cancelled')
    // Post killed the orphaned agent (every process of its user) and gave the work tree back.
    const agent = JSON.parse(readFileSync(marker, 'utf8')) as { pid: number; child: number }
    expect([agent.pid, agent.child].filter(alive)).toEqual([])
    expect(run.post?.stdout).toMatch(/Killed what the loop left running: pid \d+/)
    expect(statSync(path.join(p.workspace, 'calc.js')).uid).toBe(statSync(p.workspace).uid)
    // The credential main took away for the agent's run: back from what main kept for post (kept only where
    // the agent runs as a user of its own: under isolation none it could read that file).
    if (/started with (setpriv|sudo)/.test(run.main.stdout)) {
      expect(linesBefore).toHaveLength(4)
      expect(credentialLines()).toEqual(linesBefore)
      expect(readdirSync(p.runnerTemp).filter(name => name.startsWith('git-credentials-'))).toEqual(
        credentials
      )
      expect(run.post?.stdout).toMatch(/Put back the checkout's credential, which main could not: /)
      expect(
        readdirSync(p.runnerTemp).filter(name => /^ralph-credentials-|^\.ralph-credentials-/.test(name))
      ).toEqual([])
    }
    expectClean(p)
  } finally {
    // With isolation none nothing would kill the orphaned agent: the runner does that at the end of a real job.
    try {
      const agent = JSON.parse(readFileSync(marker, 'utf8')) as { pid: number; child: number }
      for (const pid of [agent.pid, agent.child]) if (alive(pid)) process.kill(pid, 'SIGKILL')
    } catch {
      // no marker: nothing started
    }
  }
})

const onSmallDisk = whyNoSmallFileSystem() ? test.skip : test
if (whyNoSmallFileSystem()) process.stderr.write(`SKIPPED the full-disk run: ${whyNoSmallFileSystem()}\n`)

onSmallDisk(
  'a disk the agent fills up (a real tmpfs, written until ENOSPC): main still puts the checkout’s credential back',
  async () => {
    // What fills it: the fix first, then zeros until the disk takes no byte more.
    const filler = agentScript({
      1: [
        FIX,
        'const block = Buffer.alloc(1 << 16, 7)',
        "try { for (;;) fs.appendFileSync('filler.bin', block) } catch (e) { say('the disk is full: ' + e.code) }",
        DONE
      ].join('\n')
    })
    const p = await project(projectFiles(filler))
    // The work tree on a tmpfs of its own: what checkout made, copied onto it at the same path.
    const work = path.join(p.dir, 'runner', 'work')
    const disk = smallFileSystem(p.dir, '24m')
    execFileSync('cp', ['-a', `${work}/.`, disk.dir])
    execFileSync('mount', ['--move', disk.dir, work])
    const config = path.join(p.workspace, '.git', 'config')
    const before = readFileSync(config, 'utf8')
    try {
      const run = await runAction(p, e2e.stand(), { inputs: { ralph: 'fix-tests', 'max-iterations': '1' } })
      expect(run.main.stdout).toContain('the disk is full: ENOSPC')
      // Whatever became of the run on a full disk, the credential is in .git/config again, and no room kept
      // for it is left.
      expect(readFileSync(config, 'utf8')).toContain(before.slice(before.indexOf('[includeIf')))
      expect(
        readdirSync(path.dirname(config)).filter(name => name.startsWith('.ralph-credentials-'))
      ).toEqual([])
      expect(run.main.stdout).not.toMatch(/credentials were not fully restored/)
    } finally {
      execFileSync('umount', ['-l', work])
    }
  },
  240_000
)

test('bad input fails the step with one line before any agent runs: a ralph problem at its file and line, a bad input by name', async () => {
  const marker = path.join(e2e.scratch(), 'bad-input.json')
  const agent = agentScript({ any: `fs.writeFileSync(${JSON.stringify(marker)}, 'ran')` })
  const p = await project({
    ...projectFiles(agent, ralph({ agent: 'no-such-agent-xyz --flag' })),
    '.agents/ralphs/good/RALPH.md': ralph(),
    '.agents/ralphs/good/agent.mjs': agent,
    '.agents/ralphs/no-command/RALPH.md': ralph({
      agent: 'node .agents/ralphs/good/agent.mjs',
      extra: 'commands:\n  - name: notes\n    run: no-such-notes-xyz'
    })
  })
  const badRalph = await runAction(p, e2e.stand(), { inputs: { ralph: 'fix-tests' } })
  expect(badRalph.main.exitCode).toBe(1)
  expect(badRalph.main.errors).toEqual([
    expect.objectContaining({
      properties: expect.objectContaining({ file: `${RALPH_DIR}/RALPH.md`, line: '2', col: '8' }),
      message: `${RALPH_DIR}/RALPH.md:2:8: Agent command 'no-such-agent-xyz' not found on PATH.`
    })
  ])

  const badInput = await runAction(p, e2e.stand(), { inputs: { ralph: 'good', 'max-iterations': 'ten' } })
  expect(badInput.main.exitCode).toBe(1)
  expect(badInput.main.errors.map(e => e.message)).toEqual([
    'Input \'max-iterations\' must be a whole number of at least 1, got "ten".'
  ])
  // Every program is looked for before the branch is prepared: a gate's, a command's.
  const badCheck = await runAction(p, e2e.stand(), {
    inputs: { ralph: 'good', checks: 'npm --version\nno-such-tool-xyz --run' }
  })
  expect(badCheck.main.exitCode).toBe(1)
  expect(badCheck.main.errors.map(e => e.message)).toEqual([
    "Input 'checks': Check 'no-such-tool-xyz --run' cannot run: 'no-such-tool-xyz' is not on PATH. Install it, or fix the check."
  ])
  const badCommand = await runAction(p, e2e.stand(), { inputs: { ralph: 'no-command' } })
  expect(badCommand.main.exitCode).toBe(1)
  expect(badCommand.main.errors[0]).toMatchObject({
    properties: expect.objectContaining({ file: '.agents/ralphs/no-command/RALPH.md', line: '8' }),
    message:
      ".agents/ralphs/no-command/RALPH.md:8:10: Command 'notes' binary not found: 'no-such-notes-xyz'. Check the 'commands' field in your RALPH.md frontmatter."
  })
  expect(badCommand.main.errors).toHaveLength(1)
  expect(p.remoteGit('branch', '--list', 'ralph/*').trim()).toBe('')

  const missing = await runAction(p, e2e.stand(), { inputs: {} })
  expect(missing.main.errors.map(e => e.message)).toEqual([
    expect.stringMatching(/^Input 'ralph' is required: /)
  ])
  expect(() => readFileSync(marker)).toThrow()
  for (const run of [badRalph, badInput, badCheck, badCommand, missing]) {
    expect(run.post?.exitCode).toBe(0)
    expect(run.outputs).toEqual({})
    // The job summary says it too: the one line, not an empty page under a red step.
    expect(run.main.summary).toBe(`❌ ${run.main.errors[0]?.message}\n`)
  }
  expect(
    e2e
      .stand()
      .artifacts.listArtifacts()
      .filter(a => a.name.includes('good'))
  ).toEqual([])
  expectClean(p)
})

test('dry run: the first prompt is printed, no agent runs, nothing is pushed or uploaded', async () => {
  const marker = path.join(e2e.scratch(), 'dry-run.json')
  const p = await project(
    projectFiles(agentScript({ any: `fs.writeFileSync(${JSON.stringify(marker)}, 'ran')` }))
  )
  const before = e2e.stand().artifacts.listArtifacts().length
  const run = await runAction(p, e2e.stand(), { inputs: { ralph: 'fix-tests', 'dry-run': 'true' } })
  expect(run.main.exitCode).toBe(0)
  expect(run.main.stdout).toContain('Fix the failing tests in calc.js.\n\nThis is iteration 1.')
  expect(run.outputs).toMatchObject({ iterations: '0', branch: 'ralph/fix-tests', 'pr-operation': 'none' })
  // The summary is not empty: what was checked, the gates, the first prompt.
  expect(run.summary).toContain('🔎 Dry run of **fix-tests**')
  expect(run.summary).toContain('every program it starts was found; no agent ran')
  expect(run.summary).toContain('Fix the failing tests in calc.js.\n\nThis is iteration 1.')
  expect(() => readFileSync(marker)).toThrow()
  expect(p.remoteGit('branch', '--list', 'ralph/*').trim()).toBe('')
  expect(e2e.stand().artifacts.listArtifacts()).toHaveLength(before)
  expectClean(p)
})

void FIX
