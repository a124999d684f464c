// A loop that runs out of max-time goes on in another workflow run (issue #30), through dist as the workflow
// runs it: job 1 pushes its branch, opens no pull request and dispatches the workflow with `resume: <its run>`;
// job 2, on a fresh runner in that run, goes on from the branch and the record (iterations, cost, the record
// of the whole chain). The caps (max-iterations over the chain, continue-jobs), the resumes refused before any
// agent runs, and the one tracking comment of a chain started by `/ralph`.
import { expect, test, beforeAll, describe } from '@jest/globals'
import { chain, chainFiles, COST_PER_ITERATION, slowAgent, WORKFLOW, type SlowAgent } from './chain.js'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { FAULT_TIMING, writesOf } from './fixtures.js'
import { GITHUB_TOKEN, jobBackendId, waitFor, waitForFile, type ActionRun, type Project } from './harness.js'
import { writeZip } from '../support/artifacts/index.js'
import { e2eSuite } from './suite.js'
import type { WorkflowRunRecord } from '../support/github-api/index.js'

const e2e = e2eSuite()
const { expectClean, recordOf } = e2e
const { addRun, firstJob, dispatched, resumedJob } = chain(e2e, 7_400_000_000)

/**
 * Seconds: a loaded machine starts the agent well inside them, and the agent sleeps minutes. Job 2 gets
 * minutes where it must not run out (max-time is per job), so load cannot make it. The gates alone decide
 * (the agent never says it is done).
 */
const CHAINED = { 'continue-jobs': '3', 'max-time': '20s', 'completion-tag': 'none' }
const UNHURRIED = { 'max-time': '3m' }

/** A project whose GitHub stand-in serves the runs' artifacts from the artifact service. */
const project = (agent: string, fixes: number) =>
  e2e.project(chainFiles(agent, fixes), { api: { artifacts: e2e.stand().artifacts } })

const text = (files: Map<string, Buffer>, name: string): string => {
  const file = files.get(name)
  if (!file) throw new Error(`the record holds no ${name}: ${[...files.keys()].join(', ')}`)
  return file.toString('utf8')
}

/** The record a run's job uploaded, found by its name (a cancelled job's main sets no artifact-id). */
const recordOfRun = (run: WorkflowRunRecord) =>
  e2e.stand().artifacts.downloadArtifact(`ralph-fix-tests-${run.id}-${run.runAttempt}`)

/** What a refused job must leave as it was. */
const before = (p: Project, agent: SlowAgent) => ({
  saw: agent.saw().length,
  pushes: p.gitServer.pushAttemptsBy(GITHUB_TOKEN).length,
  dispatches: p.api.state.dispatches.length
})

/** The step failed in one line naming why, before any agent ran, any push or any dispatch. */
function expectRefused(
  job: ActionRun,
  p: Project,
  agent: SlowAgent,
  was: ReturnType<typeof before>,
  why: RegExp
): void {
  expect(job.main.exitCode).toBe(1)
  const errors = job.main.errors.map(e => e.message)
  expect(errors).toEqual([expect.stringMatching(why)])
  expect(errors[0]).not.toContain('\n')
  expect(agent.saw()).toHaveLength(was.saw)
  expect(p.gitServer.pushAttemptsBy(GITHUB_TOKEN)).toHaveLength(was.pushes)
  expect(p.api.state.dispatches).toHaveLength(was.dispatches)
  expect(job.outputs.continued ?? 'false').toBe('false')
}

/** Someone dispatches the workflow by hand with resume = `a`, a run GitHub reports cancelled: refused. */
async function expectCancelledRunRefused(p: Project, agent: SlowAgent, a: WorkflowRunRecord): Promise<void> {
  const was = before(p, agent)
  const { job } = await resumedJob(p, addRun(p), { resume: a.id }, { inputs: CHAINED })
  expectRefused(
    job,
    p,
    agent,
    was,
    /^Cannot resume run \d+: it was cancelled: its chain ends there\. No agent ran\.$/
  )
  expectClean(p)
}

test("the handover: job 1 runs out of time and dispatches its successor; job 2 goes on from job 1's branch to the pull request", async () => {
  const agent = slowAgent(e2e.scratch(), 'handover', 'once')
  const p = await project(agent.script, 2)
  // The workflow has a dispatch input of its own besides resume: the successor gets it as this run had it.
  const workflow = p.api.state.addWorkflow({ path: WORKFLOW, dispatchInputs: { resume: {}, note: {} } })
  const { job: first, run: a } = await firstJob(p, {
    inputs: CHAINED,
    event: p.api.events.workflowDispatch({ resume: '', note: 'keep me' })
  })

  // Job 1: out of time with the gate failing; it ends green, having handed the loop on.
  expect(first.main.exitCode).toBe(0)
  expect(first.outputs).toMatchObject({
    'stop-reason': 'timeout',
    iterations: '2',
    continued: 'true',
    'pr-operation': 'none',
    branch: 'ralph/fix-tests'
  })
  expect(Number(first.outputs.cost)).toBeCloseTo(2 * COST_PER_ITERATION, 6)
  expect(p.api.state.pulls).toEqual([])
  const handedOver = p.remoteGit('rev-parse', 'refs/heads/ralph/fix-tests').trim()
  expect(p.remoteGit('show', `${handedOver}:fixed-1`)).toBe('made in iteration 1\n')
  expect(() => p.remoteGit('show', `${handedOver}:fixed-2`)).toThrow()

  // Exactly one dispatch: the same workflow, on the same ref, with this run's inputs and resume = run A.
  const { dispatch, run: b } = dispatched(p)
  expect(dispatch).toMatchObject({
    workflowId: workflow.id,
    ref: expect.stringMatching(/^(refs\/heads\/)?main$/),
    inputs: { resume: String(a.id), note: 'keep me' },
    token: GITHUB_TOKEN
  })
  expect(b.id).not.toBe(a.id)
  expect(first.outputs['continued-run']).toBe(String(b.id))
  expect(first.summary).toContain(String(b.id))
  const handover = await recordOf(first)
  const continuation = JSON.parse(text(handover, 'continuation.json'))
  expect(continuation.jobs).toHaveLength(1)
  expect(JSON.stringify(continuation)).toContain(handedOver)

  // Job 2: a fresh runner, run B, dispatched with resume = A.
  const { job: second } = await resumedJob(p, b, dispatch.inputs, { inputs: { ...CHAINED, ...UNHURRIED } })
  expect(second.main.exitCode).toBe(0)
  expect(second.outputs).toMatchObject({
    'stop-reason': 'all_checks_passed',
    success: 'true',
    continued: 'false',
    'continued-run': '',
    'pr-operation': 'created',
    branch: 'ralph/fix-tests',
    // The whole chain's.
    iterations: '3'
  })
  expect(Number(second.outputs.cost)).toBeCloseTo(3 * COST_PER_ITERATION, 6)
  expect(p.api.state.dispatches).toHaveLength(1)

  // Its first iteration is numbered after job 1's last, and it found job 1's fix rather than redoing it.
  expect(agent.saw()).toEqual([
    { iteration: 1, seen: [], did: 'fixed-1' },
    { iteration: 2, seen: ['fixed-1'], did: 'slept' },
    { iteration: 3, seen: ['fixed-1'], did: 'fixed-2' }
  ])

  // The pull request holds both jobs' fixes, on top of what job 1 pushed.
  expect(p.api.state.pulls).toHaveLength(1)
  expect(p.api.state.pulls[0]).toMatchObject({ head: 'ralph/fix-tests', base: 'main', draft: false })
  const tip = p.remoteGit('rev-parse', 'refs/heads/ralph/fix-tests').trim()
  expect(second.outputs.commit).toBe(tip)
  p.remoteGit('merge-base', '--is-ancestor', handedOver, tip)
  expect(p.remoteGit('show', `${tip}:fixed-1`)).toBe('made in iteration 1\n')
  expect(p.remoteGit('show', `${tip}:fixed-2`)).toBe('made in iteration 3\n')

  // The last record describes the whole chain: both jobs, both iterations, both logs, a section per job.
  const record = await recordOf(second)
  const status = JSON.parse(text(record, 'status.json'))
  expect(status.chain.jobs.map((job: { run: { id: string } }) => String(job.run.id))).toEqual([
    String(a.id),
    String(b.id)
  ])
  expect(status.chain.jobs[0]).toMatchObject({ iterations: 2, stopReason: 'timeout', head: handedOver })
  expect(status.chain.jobs[1]).toMatchObject({ iterations: 1, stopReason: 'all_checks_passed' })
  expect(status.iterations.map((i: { iteration: number }) => i.iteration)).toEqual([1, 2, 3])
  expect(status.stopReason).toBe('all_checks_passed')
  const progress = text(record, 'progress.md')
  expect(progress).toMatch(new RegExp(`^## Job 1: run ${a.id}\\b`, 'm'))
  expect(progress).toMatch(new RegExp(`^## Job 2: run ${b.id}\\b`, 'm'))
  expect(progress.indexOf(`## Job 1: run ${a.id}`)).toBeLessThan(progress.indexOf(`## Job 2: run ${b.id}`))
  expect([...record.keys()]).toEqual(
    expect.arrayContaining([
      'logs/iteration-001/agent.log',
      'logs/iteration-002/agent.log',
      'logs/iteration-003/agent.log'
    ])
  )

  expectClean(p)
})

test("a chain starts on a branch of its own: a loop under the hunt's open pull request does not go on in another run", async () => {
  const agent = slowAgent(e2e.scratch(), 'under-a-pr', 'always')
  const p = await project(agent.script, 9)
  // The first night: out of time, no continuation (continue-jobs 1), a draft pull request (on-failure).
  const { job: first } = await firstJob(p, {
    inputs: { ...CHAINED, 'continue-jobs': '1', 'on-failure': 'draft-pr' }
  })
  expect(first.outputs).toMatchObject({
    'stop-reason': 'timeout',
    continued: 'false',
    'pr-operation': 'created'
  })
  // The next night asks for a chain: it continues the pull request's branch, so it must not push unverified
  // work under it between jobs; on-failure applies (the draft is updated), and nothing is dispatched.
  const { job: second } = await firstJob(p, { inputs: { ...CHAINED, 'on-failure': 'draft-pr' } })
  expect(second.main.stdout).toContain('Continuing ralph/fix-tests')
  expect(second.outputs).toMatchObject({
    'stop-reason': 'timeout',
    continued: 'false',
    'pr-operation': 'updated'
  })
  expect(second.main.stdout).toContain(
    'The loop does not go on in another run: a chain starts on a branch of its own'
  )
  expect(p.api.state.dispatches).toEqual([])
  expect(p.api.state.pulls).toHaveLength(1)
  expect(p.api.state.pulls[0].draft).toBe(true)
  expectClean(p)
})

test('a chain that reaches max-iterations in job 2 stops there, whatever continue-jobs says', async () => {
  const agent = slowAgent(e2e.scratch(), 'max-iterations', 'once')
  const p = await project(agent.script, 9)
  const inputs = { ...CHAINED, 'continue-jobs': '5', 'max-iterations': '4' }
  const { job: first } = await firstJob(p, { inputs })
  expect(first.outputs).toMatchObject({ 'stop-reason': 'timeout', continued: 'true', iterations: '2' })
  const { dispatch, run: b } = dispatched(p)

  const { job: second } = await resumedJob(p, b, dispatch.inputs, { inputs: { ...inputs, ...UNHURRIED } })
  // Iterations 3 and 4 make max-iterations over the chain: on-failure (none) applies, no third job.
  expect(second.main.exitCode).toBe(1)
  expect(second.outputs).toMatchObject({
    'stop-reason': 'max_iterations',
    iterations: '4',
    continued: 'false',
    'continued-run': '',
    'pr-operation': 'none'
  })
  expect(agent.saw().map(s => s.iteration)).toEqual([1, 2, 3, 4])
  expect(p.api.state.dispatches).toHaveLength(1)
  expect(p.api.state.pulls).toEqual([])
  expectClean(p)
})

test('continue-jobs: 2 never starts a third job: job 2 runs out of time too, dispatches nothing, and on-failure applies', async () => {
  const agent = slowAgent(e2e.scratch(), 'two-jobs', 'always')
  const p = await project(agent.script, 9)
  const inputs = { ...CHAINED, 'continue-jobs': '2', 'on-failure': 'draft-pr' }
  const { job: first } = await firstJob(p, { inputs })
  // Job 1 hands on instead of on-failure: no draft yet.
  expect(first.outputs).toMatchObject({ 'stop-reason': 'timeout', continued: 'true', 'pr-operation': 'none' })
  expect(p.api.state.pulls).toEqual([])
  const { dispatch, run: b } = dispatched(p)

  const { job: second } = await resumedJob(p, b, dispatch.inputs, { inputs })
  expect(second.outputs).toMatchObject({
    'stop-reason': 'timeout',
    iterations: '4',
    continued: 'false',
    'continued-run': '',
    'pr-operation': 'created'
  })
  expect(agent.saw().map(s => [s.iteration, s.did])).toEqual([
    [1, 'fixed-1'],
    [2, 'slept'],
    [3, 'fixed-2'],
    [4, 'slept']
  ])
  expect(p.api.state.dispatches).toHaveLength(1)
  // on-failure: draft-pr, with both jobs' work.
  expect(p.api.state.pulls).toMatchObject([{ head: 'ralph/fix-tests', draft: true }])
  const tip = p.remoteGit('rev-parse', 'refs/heads/ralph/fix-tests').trim()
  expect(p.remoteGit('show', `${tip}:fixed-2`)).toBe('made in iteration 3\n')
  expectClean(p)
})

// One job 1 that handed on (run A), resumed in ways that must be refused; the branch moved last, for good.
describe('a resume that cannot go on is refused in one line, before any agent runs or anything is pushed', () => {
  let p: Project
  let agent: SlowAgent
  let a: WorkflowRunRecord
  beforeAll(async () => {
    agent = slowAgent(e2e.scratch(), 'refused', 'once')
    p = await project(agent.script, 2)
    const first = await firstJob(p, { inputs: CHAINED })
    expect(first.job.outputs.continued).toBe('true')
    a = first.run
  }, 300_000)

  test('resume of a run of another workflow', async () => {
    // Run A as another workflow's run would be: its record is there, GitHub's facts refuse it.
    const other = p.api.state.addWorkflow({
      path: '.github/workflows/other.yml',
      dispatchInputs: { resume: {} }
    })
    const own = a.workflowId
    a.workflowId = other.id
    try {
      const was = before(p, agent)
      const { job } = await resumedJob(p, addRun(p), { resume: a.id }, { inputs: CHAINED })
      expectRefused(job, p, agent, was, /^Cannot resume run \d+: it is a run of another workflow \(/)
    } finally {
      a.workflowId = own
    }
    expectClean(p)
  })

  test("resume by a matrix entry of another ralph: it takes no other loop's continuation", async () => {
    const was = before(p, agent)
    const { job } = await resumedJob(
      p,
      addRun(p),
      { resume: a.id },
      { inputs: { ...CHAINED, ralph: 'fix-docs' } }
    )
    expectRefused(
      job,
      p,
      agent,
      was,
      /^Cannot resume run \d+: it handed on no loop of the ralph fix-docs \(fix-tests\)/
    )
    expectClean(p)
  })

  test('resume of a run on another ref', async () => {
    const own = a.headBranch
    a.headBranch = 'release'
    try {
      const was = before(p, agent)
      const { job } = await resumedJob(p, addRun(p), { resume: a.id }, { inputs: CHAINED })
      expectRefused(job, p, agent, was, /^Cannot resume run \d+: it ran on release, and this run on main: /)
    } finally {
      a.headBranch = own
    }
    expectClean(p)
  })

  test('resume of a run whose head repository is a fork', async () => {
    // Run A as a fork's run would be: its record is there, GitHub's facts refuse it.
    a.headRepository = 'forker/octo-repo'
    try {
      const was = before(p, agent)
      const { job } = await resumedJob(p, addRun(p), { resume: a.id }, { inputs: CHAINED })
      expectRefused(
        job,
        p,
        agent,
        was,
        /^Cannot resume run \d+: it ran on a fork's code \(forker\/octo-repo\)/
      )
    } finally {
      a.headRepository = undefined
    }
    expectClean(p)
  })

  test('resume of a run whose record is missing (a run with no artifacts)', async () => {
    const bare = addRun(p, { status: 'completed', conclusion: 'success' })
    const was = before(p, agent)
    const { job } = await resumedJob(p, addRun(p), { resume: bare.id }, { inputs: CHAINED })
    expectRefused(job, p, agent, was, /^Cannot resume run \d+: its record holds no continuation /)
    expectClean(p)
  })

  test("a chain never forks: a second run going on from the same run is refused by the first one's claim", async () => {
    // A first successor claims run A and spends nothing: max-iterations is already reached over the chain.
    const claimer = await resumedJob(
      p,
      addRun(p),
      { resume: a.id },
      { inputs: { ...CHAINED, 'max-iterations': '2' } }
    )
    expect(claimer.job.outputs).toMatchObject({
      'stop-reason': 'max_iterations',
      iterations: '2',
      continued: 'false'
    })
    const handedOver = p.remoteGit('rev-parse', 'refs/heads/ralph/fix-tests').trim()
    // The second, on the branch just as run A left it, is refused: the claim holds the handed-over commit.
    const was = before(p, agent)
    const { job } = await resumedJob(p, addRun(p), { resume: a.id }, { inputs: CHAINED })
    const claim = new RegExp(
      `^Cannot resume run ${a.id}: another run has already gone on from it \\((refs/ralph-chain/${a.id}/1/fix-tests-[0-9a-f]{8}) exists.*git push origin :refs/ralph-chain/`
    )
    expectRefused(job, p, agent, was, claim)
    const claimed = claim.exec(job.main.errors[0].message)?.[1] as string
    expect(p.remoteGit('rev-parse', claimed).trim()).toBe(handedOver)
    expectClean(p)
  })

  test('resume of a run whose branch someone else moved since', async () => {
    const moved = p.pushToRemote('ralph/fix-tests', { 'OTHER.md': 'not the loop\n' }, 'Someone else')
    const { dispatch, run: b } = dispatched(p)
    const was = before(p, agent)
    const { job } = await resumedJob(p, b, dispatch.inputs, { inputs: CHAINED })
    expectRefused(
      job,
      p,
      agent,
      was,
      /^Preparing the branch failed: ralph\/fix-tests moved since run \d+ handed it over: its tip is [0-9a-f]+, not [0-9a-f]+, so the chain stops here \(no agent ran\)$/
    )
    expect(p.remoteGit('rev-parse', 'refs/heads/ralph/fix-tests').trim()).toBe(moved)
    expectClean(p)
  })
})

test('a cancelled job 1 hands nothing on: resuming its run is refused, it cannot resume', async () => {
  const agent = slowAgent(e2e.scratch(), 'cancelled', 'once')
  const p = await project(agent.script, 2)
  const { job: first, run: a } = await firstJob(p, {
    inputs: { ...CHAINED, ...UNHURRIED },
    duringMain: async child => {
      await waitForFile(agent.sleeping, 60_000)
      child.kill('SIGINT')
    }
  })
  a.conclusion = 'cancelled'
  expect(first.outputs).toMatchObject({ 'stop-reason': 'cancelled', continued: 'false' })
  expect(p.api.state.dispatches).toEqual([])
  // Its record is whole, and holds no continuation.
  const record = await recordOfRun(a)
  expect(JSON.parse(text(record, 'status.json'))).toMatchObject({ stopReason: 'cancelled' })
  expect(record.has('continuation.json')).toBe(false)

  await expectCancelledRunRefused(p, agent, a)
})

test("a job cancelled while it hands on (during its record's upload retries) dispatches nothing and says so; its run is refused as a resume", async () => {
  const agent = slowAgent(e2e.scratch(), 'cancelled-hand-on', 'once')
  const p = await project(agent.script, 2)
  const { artifacts } = e2e.stand()
  artifacts.faults.clear()
  // The record's upload meets a 503: @actions/artifact waits 3 s before it asks again, and the signal comes then.
  artifacts.faults.add('CreateArtifact', 1, '503')
  const { job: first, run: a } = await firstJob(p, {
    inputs: CHAINED,
    env: FAULT_TIMING,
    duringMain: async child => {
      await waitFor(() => artifacts.faults.injected.length > 0, "the upload's 503", 120_000)
      child.kill('SIGINT')
    }
  })
  artifacts.faults.clear()
  a.conclusion = 'cancelled'
  const log = first.main.stdout
  // The loop had run out of time and pushed its work; the signal came during the upload, before the dispatch.
  expect(log).toContain('Received SIGINT')
  expect(log.indexOf('Received SIGINT')).toBeLessThan(
    log.indexOf('The job was cancelled: it hands nothing on (no next run is dispatched).')
  )
  expect(log).not.toMatch(/The loop goes on in/)
  expect(p.api.state.dispatches).toEqual([])
  expect(first.outputs).toMatchObject({ 'stop-reason': 'timeout', continued: 'false', 'continued-run': '' })
  expect(first.main.errors.map(e => e.message)).toEqual([
    expect.stringMatching(
      /^The loop ran out of this job's time and could not go on in another run: the job was cancelled, so it hands nothing on \(no next run is dispatched\)\. The work is on branch ralph\/fix-tests\.$/
    )
  ])
  expect(p.remoteGit('rev-parse', 'refs/heads/ralph/fix-tests').trim()).toBe(first.outputs.commit)
  // Its record went up with its continuation (written before the upload): GitHub's word that the run was
  // cancelled is what ends the chain there.
  const record = await recordOf(first)
  expect(record.has('continuation.json')).toBe(true)
  await expectCancelledRunRefused(p, agent, a)
})

test("a resumed run's record that unpacks past its bounds (a 1 GiB log in a 1 MiB zip) is refused in one line, having written at most the bound", async () => {
  const MiB = 1024 * 1024
  const agent = slowAgent(e2e.scratch(), 'record-bomb', 'once')
  const p = await project(agent.script, 2)
  // Run A's record, as a job of run A would upload it (its runtime token): a zip made by hand.
  const a = addRun(p, { status: 'completed', conclusion: 'success' })
  const name = `ralph-fix-tests-${a.id}-1`
  const dir = mkdtempSync(path.join(tmpdir(), 'ralph-record-bomb-'))
  try {
    writeFileSync(
      path.join(dir, name),
      await writeZip([
        { path: 'logs/iteration-001/agent.log', data: { zeros: 1024 * MiB }, descriptor: true }
      ])
    )
    await e2e.uploadArtifact(name, dir, [name], {
      raw: true,
      env: {
        ACTIONS_RUNTIME_TOKEN: e2e
          .stand()
          .artifacts.tokenForRun(a.workflowRunBackendId, jobBackendId('ralph'))
      }
    })
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
  const writes = writesOf(path.join(e2e.scratch(), `record-bomb-writes-${process.pid}`))
  const was = before(p, agent)
  const { job } = await resumedJob(p, addRun(p), { resume: a.id }, { inputs: CHAINED, wrap: writes.wrap })
  expectRefused(
    job,
    p,
    agent,
    was,
    new RegExp(
      `^Cannot resume run ${a.id}: its record ${name} was refused: "logs/iteration-001/agent\\.log" unpacks to more than 512 MB\\. No agent ran\\.$`
    )
  )
  const wrote = writes.main()
  process.stdout.write(
    `\nThe resumed job refused a 1 GiB record bomb having written ${(wrote / MiB).toFixed(1)} MiB in all.\n`
  )
  expect(wrote).toBeLessThan(512 * MiB + 32 * MiB)
  expectClean(p)
})

test('a job in which no agent run finished (setup took all of max-time) ends the chain: nothing is dispatched, on-failure applies', async () => {
  const agent = slowAgent(e2e.scratch(), 'no-progress', 'once')
  const p = await project(agent.script, 2)
  const { job } = await firstJob(p, {
    inputs: { ...CHAINED, setup: 'sleep 120', 'on-failure': 'draft-pr' }
  })
  expect(agent.saw()).toEqual([])
  expect(job.outputs).toMatchObject({ 'stop-reason': 'timeout', continued: 'false', iterations: '0' })
  expect(job.main.stdout).toContain(
    'The loop does not go on in another run: no agent run finished in this job (setup, the baseline or the agent took its max-time), so another job would do the same.'
  )
  expect(p.api.state.dispatches).toEqual([])
  // on-failure (draft-pr) applied, and had nothing to push: the loop changed nothing.
  expect(job.main.exitCode).toBe(1)
  expect(p.api.state.pulls).toEqual([])
  expect(p.remoteGit('for-each-ref', 'refs/heads/ralph/').trim()).toBe('')
  expectClean(p)
})

test('a chain started by /ralph on an issue keeps one tracking comment, edited by both jobs', async () => {
  const agent = slowAgent(e2e.scratch(), 'tracking', 'once')
  const p = await project(agent.script, 2)
  p.api.state.addUser('maintainer', { role: 'write' })
  const issue = p.api.state.addIssue({ title: 'Two things to fix', body: 'Both.', user: 'maintainer' })
  const comment = p.api.state.addComment(issue.number, { body: '/ralph fix-tests', user: 'maintainer' })
  const tracking = () =>
    p.api.state.comments.filter(c => c.issueNumber === issue.number && c.id !== comment.id)

  const { job: first, run: a } = await firstJob(p, {
    inputs: CHAINED,
    eventName: 'issue_comment',
    event: p.api.events.issueComment(comment.id)
  })
  expect(first.main.exitCode).toBe(0)
  expect(first.outputs).toMatchObject({ continued: 'true', branch: `ralph/issue-${issue.number}` })
  const { dispatch, run: b } = dispatched(p)
  // An issue_comment run had no dispatch inputs: the successor gets resume alone.
  expect(dispatch.inputs).toEqual({ resume: String(a.id) })
  expect(tracking()).toHaveLength(1)
  const [{ id: trackingId, body: handedOn }] = tracking()
  expect(handedOn).toContain(String(b.id))

  const asked = p.api.requests.length
  const { job: second } = await resumedJob(p, b, dispatch.inputs, { inputs: { ...CHAINED, ...UNHURRIED } })
  expect(second.main.exitCode).toBe(0)
  expect(second.outputs).toMatchObject({
    'stop-reason': 'all_checks_passed',
    'pr-operation': 'created',
    branch: `ralph/issue-${issue.number}`,
    iterations: '3'
  })
  // The same comment, edited by job 2 and finalised with the pull request; no second comment, no second 👀.
  const later = p.api.requests.slice(asked)
  expect(later.filter(r => r.operationId === 'issues/create-comment')).toEqual([])
  expect(
    later.filter(r => r.method === 'PATCH' && r.path.endsWith(`/comments/${trackingId}`)).length
  ).toBeGreaterThan(0)
  expect(tracking().map(c => c.id)).toEqual([trackingId])
  expect(tracking()[0].body).toContain('state=final')
  expect(tracking()[0].body).toContain(second.outputs['pr-url'])
  expect(p.api.state.reactionsOn('comment', comment.id).map(r => r.content)).toEqual(['eyes'])
  expect(p.api.state.pulls[0].body).toContain(`Closes #${issue.number}`)
  expectClean(p)
})
