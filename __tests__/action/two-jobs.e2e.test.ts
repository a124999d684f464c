// Two-job mode as a workflow runs it (issue #28): job `agent` (mode: agent) with the read-only job token and
// the agent, then job `deliver` (mode: deliver) of the same run on a fresh checkout with the write token and no
// agent. The agent job makes no write request; the deliver job checks what it is handed, verifies it again on a
// clean checkout, and delivers it. Each tampered delivery is refused in one line and nothing is pushed.
import { execFileSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { beforeAll, expect, test } from '@jest/globals'
import { agentScript, DONE, FIX, projectFiles, writesOf } from './fixtures.js'
import { AGENT_JOB_TOKEN, GITHUB_TOKEN, type ActionRun, type Project, type RunOptions } from './harness.js'
import { writeZip } from '../support/artifacts/index.js'
import { e2eSuite } from './suite.js'
import { twoJobs } from './two-jobs.js'

const e2e = e2eSuite()
const { project, expectClean } = e2e

const { newRunId, agentJob, deliverJob } = twoJobs(e2e, 7_200_000_000)

/** The agent writes its marker on every run of it: the deliver job must never add one. */
function markedAgent(marker: string): string {
  return agentScript({ any: `fs.appendFileSync(${JSON.stringify(marker)}, 'ran\\n')`, 1: `${FIX}\n${DONE}` })
}

test('the agent job writes nothing to GitHub; the deliver job runs no agent, pushes exactly its commits and answers the issue', async () => {
  const marker = path.join(e2e.scratch(), `two-jobs-agent-${process.pid}`)
  const p = await project(projectFiles(markedAgent(marker)), { token: AGENT_JOB_TOKEN })
  p.api.state.addUser('maintainer', { role: 'write' })
  const issue = p.api.state.addIssue({ title: 'add() subtracts', body: 'It should add.', user: 'maintainer' })
  const comment = p.api.state.addComment(issue.number, { body: '/ralph fix-tests', user: 'maintainer' })
  const trigger = { eventName: 'issue_comment', event: p.api.events.issueComment(comment.id) }
  const runId = newRunId()

  const agent = await agentJob(p, runId, trigger)
  expect(agent.main.exitCode).toBe(0)
  expect(agent.outputs).toMatchObject({
    'stop-reason': 'all_checks_passed',
    success: 'true',
    'pr-operation': 'none'
  })
  expect(agent.outputs.delivery).toBe(`ralph-delivery-fix-tests-${runId}-1`)
  // No write was even attempted with the agent job's token: no 👀, no comment, no push.
  expect(p.api.writesBy(AGENT_JOB_TOKEN)).toEqual([])
  expect(p.gitServer.pushAttemptsBy(AGENT_JOB_TOKEN)).toEqual([])
  expect(p.api.requests.filter(r => r.token !== AGENT_JOB_TOKEN)).toEqual([])
  expect(p.remoteGit('for-each-ref', 'refs/heads/ralph/').trim()).toBe('')
  expect(readFileSync(marker, 'utf8')).toBe('ran\n')

  const deliver = await deliverJob(p, runId, agent.outputs.delivery, trigger)
  expect(deliver.main.stderr).toBe('')
  expect(deliver.main.exitCode).toBe(0)
  // No agent ran in the deliver job.
  expect(readFileSync(marker, 'utf8')).toBe('ran\n')
  expect(deliver.outputs).toMatchObject({
    'stop-reason': 'all_checks_passed',
    success: 'true',
    iterations: '1',
    branch: `ralph/issue-${issue.number}`,
    verified: 'true',
    'pr-operation': 'created',
    delivery: ''
  })
  // The branch holds exactly the agent job's commits, on the run's commit.
  const tip = p.remoteGit('rev-parse', `refs/heads/ralph/issue-${issue.number}`).trim()
  expect(tip).toBe(agent.outputs.commit)
  expect(deliver.outputs.commit).toBe(tip)
  expect(p.remoteGit('rev-parse', `${tip}~1`).trim()).toBe(p.sha)
  // The deliver job answered the request: 👀, the finished tracking comment, the pull request closing the issue.
  expect(p.api.writesBy(GITHUB_TOKEN).length).toBeGreaterThan(0)
  expect(p.api.state.reactions.map(r => r.content)).toContain('eyes')
  const [pr] = p.api.state.pulls
  expect(pr).toMatchObject({ head: `ralph/issue-${issue.number}`, base: 'main' })
  expect(pr.body).toContain(`Closes #${issue.number}`)
  const tracking = p.api.state.comments.filter(c => c.id !== comment.id)
  expect(tracking).toHaveLength(1)
  expect(tracking[0].body).toContain(`#${pr.number}`)
  expect(deliver.summary).toContain('Verified on a clean checkout')
  // Each job's record is its own artifact.
  const names = e2e
    .stand()
    .artifacts.listArtifacts()
    .map(a => a.name)
  expect(names).toEqual(
    expect.arrayContaining([
      `ralph-fix-tests-${runId}-1`,
      `ralph-fix-tests-${runId}-1-deliver`,
      agent.outputs.delivery
    ])
  )
  expectClean(p)
})

// ---------------------------------------------------------------------------------------------------
// Tampered deliveries: one honest agent job, then a delivery rebuilt from its artifact and changed.

let honest: { p: Project; runId: string; agent: ActionRun } | undefined
beforeAll(async () => {
  const p = await project(
    projectFiles(markedAgent(path.join(e2e.scratch(), `tamper-agent-${process.pid}`))),
    {
      token: AGENT_JOB_TOKEN
    }
  )
  const runId = newRunId()
  const agent = await agentJob(p, runId)
  if (agent.main.exitCode !== 0 || !agent.outputs.delivery)
    throw new Error(
      `the honest agent job failed (exit ${agent.main.exitCode}):\n${agent.main.stdout}\n${agent.main.stderr}`
    )
  honest = { p, runId, agent }
}, 120_000)

const BRANCH = 'ralph/fix-tests'

interface Tamper {
  /** git in a clone holding the delivered branch, checked out. */
  git: (...args: string[]) => string
  dir: string
  manifest: Record<string, unknown>
  /** Extra refs for the bundle (a tag). */
  refs: string[]
}

let tampered = 0

/** Uploads files as an artifact of the run (job 1's runtime token), or of another run; `raw`: a zip made by hand. */
const upload = (name: string, dir: string, files: string[], env: Record<string, string>, raw = false) =>
  e2e.uploadArtifact(name, dir, files, { env, raw })

/**
 * The honest delivery, rebuilt after `edit` (commits, refs, manifest fields) and uploaded under a new name in
 * the same run; answers that name.
 */
async function tamper(edit: (t: Tamper) => void, env: Record<string, string> = {}): Promise<string> {
  if (!honest) throw new Error('the honest agent job did not run')
  const files = await e2e.stand().artifacts.downloadArtifact(honest.agent.outputs.delivery)
  const work = mkdtempSync(path.join(tmpdir(), 'ralph-tamper-'))
  try {
    const out = path.join(work, 'out')
    const clone = path.join(work, 'clone')
    execFileSync('mkdir', ['-p', out])
    writeFileSync(path.join(work, 'in.bundle'), files.get('delivery.bundle') as Buffer)
    const gitEnv = {
      ...process.env,
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_AUTHOR_NAME: 'Mallory',
      GIT_AUTHOR_EMAIL: 'mallory@example.com',
      GIT_COMMITTER_NAME: 'Mallory',
      GIT_COMMITTER_EMAIL: 'mallory@example.com'
    }
    const git = (...args: string[]): string =>
      execFileSync('git', args, {
        cwd: clone,
        env: gitEnv,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe']
      })
    execFileSync('git', ['clone', '--quiet', honest.p.remote, clone], { env: gitEnv })
    git('fetch', '--quiet', path.join(work, 'in.bundle'), `${BRANCH}:${BRANCH}`)
    git('checkout', '--quiet', BRANCH)
    const manifest = JSON.parse((files.get('delivery.json') as Buffer).toString('utf8')) as Record<
      string,
      unknown
    >
    const t: Tamper = { git, dir: clone, manifest, refs: [] }
    edit(t)
    const head = git('rev-parse', 'HEAD').trim()
    git('update-ref', `refs/heads/${BRANCH}`, head)
    manifest.head = head
    git(
      'bundle',
      'create',
      '--quiet',
      path.join(out, 'delivery.bundle'),
      BRANCH,
      ...t.refs,
      `^${String(manifest.start)}`
    )
    writeFileSync(path.join(out, 'delivery.json'), JSON.stringify(manifest))
    const name = `tampered-${++tampered}`
    await upload(name, out, ['delivery.json', 'delivery.bundle'], env)
    return name
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
}

/** The deliver job refuses `name` in one line matching `why`: the step fails, nothing is pushed or opened. */
async function expectRefused(name: string, why: RegExp, extra: RunOptions = {}): Promise<ActionRun> {
  if (!honest) throw new Error('the honest agent job did not run')
  const { p, runId } = honest
  const run = await deliverJob(p, runId, name, extra)
  expect(run.main.stderr).toBe('')
  expect(run.main.exitCode).toBe(1)
  const errors = run.main.errors.map(e => e.message)
  expect(errors).toHaveLength(1)
  expect(errors[0]).toMatch(why)
  expect(errors[0]).not.toContain('\n')
  expect(p.remoteGit('for-each-ref', 'refs/heads/ralph/').trim()).toBe('')
  expect(p.api.state.pulls).toEqual([])
  return run
}

const commitFile = (t: Tamper, file: string, content: string, message = 'tamper'): void => {
  execFileSync('mkdir', ['-p', path.dirname(path.join(t.dir, file))])
  writeFileSync(path.join(t.dir, file), content)
  t.git('add', '--', file)
  t.git('commit', '--quiet', '-m', message)
}

test('a bundle built on a commit that is not on the base is refused', async () => {
  const name = await tamper(t => {
    // The same work, rebuilt on a side commit the base never had.
    const start = String(t.manifest.start)
    t.git('checkout', '--quiet', '-b', 'side', start)
    commitFile(t, 'side.txt', 'a commit main never had\n')
    t.git('cherry-pick', '--quiet', `${start}..${BRANCH}`)
    t.manifest.start = t.git('rev-parse', 'side~1').trim()
  })
  await expectRefused(
    name,
    /delivery was refused: the delivery is built on [0-9a-f]{12}, which is not on main/
  )
})

test('a bundle that changes .github/workflows is refused', async () => {
  const name = await tamper(t => commitFile(t, '.github/workflows/evil.yml', 'on: push\n'))
  await expectRefused(name, /changes \.github\/workflows\/evil\.yml: \.github\/ is never delivered/)
})

test('a bundle that changes a protected path (a test file of the start commit) is refused', async () => {
  const name = await tamper(t =>
    commitFile(t, 'calc.test.js', "import test from 'node:test'\ntest('ok', () => {})\n")
  )
  await expectRefused(name, /changes protected paths \(.*calc\.test\.js/)
})

test('a bundle that carries a tag is refused', async () => {
  const name = await tamper(t => {
    t.git('tag', 'v9.9.9')
    t.refs.push('refs/tags/v9.9.9')
  })
  await expectRefused(name, /bundle carries refs\/tags\/v9\.9\.9: a delivery holds the one branch/)
})

test('a bundle that adds a gitlink is refused', async () => {
  const name = await tamper(t => {
    t.git('update-index', '--add', '--cacheinfo', `160000,${String(t.manifest.start)},vendor/lib`)
    t.git('commit', '--quiet', '-m', 'a submodule')
  })
  await expectRefused(name, /adds a gitlink \(a submodule\) at vendor\/lib/)
})

test('a bundle holding a 60 MB file is refused (max-file-size 50 MB)', async () => {
  const name = await tamper(t => {
    writeFileSync(path.join(t.dir, 'big.bin'), Buffer.alloc(60 * 1024 * 1024))
    t.git('add', 'big.bin')
    t.git('commit', '--quiet', '-m', 'large')
    // A later commit removing it does not make the pushed history smaller.
    t.git('rm', '--quiet', 'big.bin')
    t.git('commit', '--quiet', '-m', 'gone again')
  })
  await expectRefused(name, /holds big\.bin \(60 MB\), over max-file-size \(50 MB\)/)
})

test("a manifest of another run is refused, and another run's artifact is not found", async () => {
  const other = await tamper(t => (t.manifest.runId = '1234'))
  await expectRefused(other, /was made by run 1234, not by this run/)
  const later = await tamper(t => (t.manifest.runAttempt = '2'))
  await expectRefused(later, /was made by attempt 2 of this run, not by this run/)
  const elsewhere = await tamper(() => undefined, {
    ACTIONS_RUNTIME_TOKEN: e2e
      .stand()
      .artifacts.tokenForRun('c0ffee00-0000-4000-8000-0000000000ff', 'c0ffee00-0000-4000-8000-0000000000fe')
  })
  await expectRefused(elsewhere, /could not be downloaded from this workflow run/)
})

test('a delivery made for another trigger (an issue this run is not about) is refused', async () => {
  const name = await tamper(
    t => (t.manifest.trigger = { event: 'issue_comment', issue: 99, comment: 7, hunt: false })
  )
  await expectRefused(
    name,
    /the delivery was made for issue_comment, #99, comment 7, but this run is for workflow_dispatch, a hunt/
  )
})

test('a verdict that says the gates passed is checked: the clean re-run in the deliver job fails, nothing is pushed', async () => {
  if (!honest) throw new Error('the honest agent job did not run')
  const name = await tamper(t => commitFile(t, 'calc.js', 'export function add(a, b) {\n  return a * b\n}\n'))
  const run = await deliverJob(honest.p, honest.runId, name)
  expect(run.main.exitCode).toBe(1)
  expect(run.outputs).toMatchObject({ 'stop-reason': 'verify_failed', success: 'false', verified: 'false' })
  expect(run.main.errors.map(e => e.message).join('\n')).toMatch(
    /in the deliver job on a clean checkout of [0-9a-f]{12}, tests failed/
  )
  expect(honest.p.remoteGit('for-each-ref', 'refs/heads/ralph/').trim()).toBe('')
  expect(honest.p.api.state.pulls).toEqual([])
})

test('without isolation the deliver job runs none of the delivered code: the work is unverified, nothing is pushed', async () => {
  if (!honest) throw new Error('the honest agent job did not run')
  const ran = path.join(e2e.scratch(), `two-jobs-ran-as-token-user-${process.pid}`)
  // A new test file (new tests are the agent's to add): run by the gates, it would run as this job's user.
  const name = await tamper(t =>
    commitFile(
      t,
      'steal.test.js',
      `import { writeFileSync } from 'node:fs'\nwriteFileSync(${JSON.stringify(ran)}, String(process.getuid()))\n`
    )
  )
  const run = await deliverJob(honest.p, honest.runId, name, { inputs: { isolation: 'none' } })
  expect(existsSync(ran)).toBe(false)
  expect(run.main.exitCode).toBe(1)
  expect(run.outputs).toMatchObject({ 'stop-reason': 'verify_failed', success: 'false', verified: 'false' })
  expect(run.main.errors.map(e => e.message).join('\n')).toMatch(/the deliver job ran no gate/)
  expect(honest.p.remoteGit('for-each-ref', 'refs/heads/ralph/').trim()).toBe('')
})

/** The honest delivery's manifest, as its text. */
async function honestManifest(): Promise<string> {
  if (!honest) throw new Error('the honest agent job did not run')
  const files = await e2e.stand().artifacts.downloadArtifact(honest.agent.outputs.delivery)
  return (files.get('delivery.json') as Buffer).toString('utf8')
}

const MiB = 1024 * 1024

test('a 1 MiB delivery zip holding a 1 GiB bundle is refused in one line, having written at most its bound', async () => {
  // The honest manifest, and a bundle of a gibibyte of zeros whose sizes hide in a data descriptor.
  const zip = await writeZip([
    { path: 'delivery.json', data: Buffer.from(await honestManifest()) },
    { path: 'delivery.bundle', data: { zeros: 1024 * MiB }, descriptor: true }
  ])
  expect(zip.length).toBeLessThan(1.5 * MiB)
  const dir = mkdtempSync(path.join(tmpdir(), 'ralph-bomb-'))
  try {
    writeFileSync(path.join(dir, 'zip-bomb'), zip)
    await upload('zip-bomb', dir, ['zip-bomb'], {}, true)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
  const writes = writesOf(path.join(e2e.scratch(), `bomb-writes-${process.pid}`))
  await expectRefused(
    'zip-bomb',
    /^The delivery artifact zip-bomb was refused: "delivery\.bundle" unpacks to more than 256 MB\. Nothing was pushed\.$/,
    { wrap: writes.wrap }
  )
  // The bound (256 MiB), and the step's own writes besides: never the gibibyte.
  const wrote = writes.main()
  process.stdout.write(
    `\nThe deliver job refused a 1 GiB zip bomb having written ${(wrote / MiB).toFixed(1)} MiB in all.\n`
  )
  expect(wrote).toBeGreaterThan(0)
  expect(wrote).toBeLessThan(256 * MiB + 32 * MiB)
})

test('a manifest nested 200,000 levels deep is refused in one line, no stack overflow', async () => {
  if (!honest) throw new Error('the honest agent job did not run')
  const files = await e2e.stand().artifacts.downloadArtifact(honest.agent.outputs.delivery)
  const manifest = JSON.parse(await honestManifest()) as Record<string, unknown>
  const deep = JSON.stringify({ ...manifest, notes: 'DEEP' }).replace(
    '"DEEP"',
    `${'['.repeat(200_000)}${']'.repeat(200_000)}`
  )
  const dir = mkdtempSync(path.join(tmpdir(), 'ralph-deep-'))
  try {
    writeFileSync(path.join(dir, 'delivery.json'), deep)
    writeFileSync(path.join(dir, 'delivery.bundle'), files.get('delivery.bundle') as Buffer)
    await upload('deep-manifest', dir, ['delivery.json', 'delivery.bundle'], {})
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
  await expectRefused(
    'deep-manifest',
    /^The delivery artifact deep-manifest holds no readable delivery\.json \(it is nested deeper than 64 levels\)\. Nothing was pushed\.$/
  )
})

test('without a delivery the deliver job pushes nothing and says why', async () => {
  if (!honest) throw new Error('the honest agent job did not run')
  const run = await deliverJob(honest.p, honest.runId, '')
  expect(run.main.exitCode).toBe(1)
  expect(run.main.errors.map(e => e.message)).toEqual([
    expect.stringMatching(/^There is no delivery to deliver: the agent job set no delivery output/)
  ])
  expect(existsSync(honest.p.remote)).toBe(true)
  expect(honest.p.remoteGit('for-each-ref', 'refs/heads/ralph/').trim()).toBe('')
})
