// Held-out gates (#37) through dist/index.js: a hard-coding agent passes the visible tests and fails the held-out
// ones (no pull request, and the run tells only "a held-out gate failed"), an honest agent gets a pull request
// that names the held-out gate, the agent's own user cannot read the held-out folder while it runs, and in
// two-job mode the deliver job runs them (the agent job never holds them).
import { execFileSync } from 'node:child_process'
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, expect, test } from '@jest/globals'
import { edit, js } from './projects.js'
import { PROJECTS, runCorpus } from './verdict-corpus.js'
import { OWNER, REPO, type ActionRun, type Files, type Project } from './harness.js'
import { e2eSuite } from './suite.js'
import { twoJobs } from './two-jobs.js'

const e2e = e2eSuite()
const { newRunId, agentJob, deliverJob } = twoJobs(e2e, 7_370_000)

const SECRET = 'HELD-OUT-5d2b7'
const HELD_OUT_GATE = 'node --test holdout/'
const folders: string[] = []
afterAll(() => {
  for (const dir of folders) rmSync(dir, { recursive: true, force: true })
})

/** The held-out folder as an earlier step makes it: the job's user's, 0700, outside the workspace. */
function heldOutFolder(): string {
  const parent = mkdtempSync(path.join(tmpdir(), 'ralph-holdout-e2e-'))
  folders.push(parent)
  const dir = path.join(parent, 'holdout')
  mkdirSync(path.join(dir, 'holdout'), { recursive: true })
  chmodSync(dir, 0o700)
  writeFileSync(
    path.join(dir, 'holdout', 'add.test.js'),
    [
      "import { test } from 'node:test'",
      "import assert from 'node:assert/strict'",
      "import { add } from '../calc.js'",
      `test('adds more', () => assert.equal(add(10, 5), 15, ${js(SECRET)}))`,
      ''
    ].join('\n')
  )
  return dir
}

/** The agent's look at the held-out folder: what reading it gave (`read`, or the error's code), in the scratch folder. */
function probe(dir: string, marker: string): string {
  return `{ let seen; try { seen = 'read ' + fs.readdirSync(${js(dir)}).join(',') } catch (e) { seen = e.code }
    fs.writeFileSync(${js(marker)}, seen + ' ' + process.getuid()) }`
}

const HARD_CODE = edit('calc.js', 'a - b', '(a === 1 && b === 2 ? 3 : a - b)')

/** Every text the run left where people (or a later run) read it: its log, outputs, record, pull requests. */
async function everythingTold(run: ActionRun, pulls: unknown): Promise<string> {
  const record = [...(await e2e.recordOf(run)).values()].map(b => b.toString('utf8'))
  return [
    run.main.stdout,
    run.main.stderr,
    run.post?.stdout ?? '',
    run.summary,
    JSON.stringify(run.outputs),
    ...record,
    JSON.stringify(pulls)
  ].join('\n')
}

test('a hard-coding agent passes the visible tests and fails the held-out one: no pull request, told only that a held-out gate failed; its user cannot read the folder', async () => {
  const dir = heldOutFolder()
  const marker = path.join(e2e.scratch(), 'holdout-probe-1')
  const { p, run, status } = await runCorpus(e2e, {
    project: 'node --test',
    move: `${probe(dir, marker)}\n${HARD_CODE}`,
    inputs: { holdout: HELD_OUT_GATE, 'holdout-path': dir }
  })
  expect(run.main.stderr).toBe('')
  expect(run.outputs).toMatchObject({
    success: 'false',
    'stop-reason': 'verify_failed',
    'pr-operation': 'none'
  })
  expect(status.stopDetail).toMatch(
    /^every gate passed on a clean checkout of [0-9a-f]{12} in iteration 1, but a held-out gate failed; held-out gates run once, so the loop stopped there$/
  )
  expect(p.api.state.pulls).toEqual([])
  // The agent ran as its own user, and could not list the held-out folder.
  const [seen, uid] = readFileSync(marker, 'utf8').split(' ')
  expect(seen).toBe('EACCES')
  expect(Number(uid)).not.toBe(process.getuid!())
  const told = await everythingTold(run, p.api.state.pulls)
  expect(told).toContain('a held-out gate failed')
  expect(told).not.toContain(SECRET)
  expect(told).not.toContain('adds more')
  expect(told).not.toContain('add.test.js')
  e2e.expectClean(p)
}, 240_000)

test('an honest agent passes the held-out gate: its pull request names it', async () => {
  const dir = heldOutFolder()
  const { p, run } = await runCorpus(e2e, {
    project: 'node --test',
    move: PROJECTS['node --test'].honest,
    inputs: { holdout: HELD_OUT_GATE, 'holdout-path': dir }
  })
  expect(run.main.stderr).toBe('')
  expect(run.outputs).toMatchObject({ success: 'true', 'pr-operation': 'created', verified: 'true' })
  expect(p.api.state.pulls).toHaveLength(1)
  expect(p.api.state.pulls[0].body).toContain(
    `**Held-out gates passed** there too (gates the agent never saw): \`${HELD_OUT_GATE}\`.`
  )
  // Nothing of the held-out file went into the delivered branch.
  expect(p.remoteGit('ls-tree', '-r', '--name-only', run.outputs.commit)).not.toContain('holdout/')
  e2e.expectClean(p)
}, 240_000)

test('two-job mode: the agent job never holds the held-out gates, the deliver job runs them and refuses the hard-coded fix', async () => {
  const dir = heldOutFolder()
  const inputs = { holdout: HELD_OUT_GATE, 'holdout-path': dir, 'max-iterations': '1' }
  const runId = newRunId()
  const marker = path.join(e2e.scratch(), 'holdout-probe-2')
  const { RALPH_DIR, agentScript, ralph, DONE } = await import('./fixtures.js')
  const kind = PROJECTS['node --test']
  const p = await e2e.project({
    ...kind.files,
    [`${RALPH_DIR}/RALPH.md`]: ralph({ checks: [kind.gate], body: 'Make the tests pass.' }),
    [`${RALPH_DIR}/agent.mjs`]: agentScript(
      { 1: `${probe(dir, marker)}\n${HARD_CODE}\n${DONE}` },
      "const require_dirname = f => f.includes('/') ? f.slice(0, f.lastIndexOf('/')) : '.'"
    )
  })
  const agent = await agentJob(p, runId, { inputs })
  expect(agent.main.exitCode).toBe(0)
  // Its own clean verification runs the visible gates only: the hard-coded fix passes them.
  expect(agent.outputs).toMatchObject({ 'stop-reason': 'all_checks_passed', 'pr-operation': 'none' })
  expect(agent.main.stdout).toContain(
    'holdout: the held-out gates run in the deliver job; this job never holds them'
  )
  expect(readFileSync(marker, 'utf8').split(' ')[0]).toBe('EACCES')
  const deliver = await deliverJob(p, runId, agent.outputs.delivery, { inputs })
  expect(deliver.outputs).toMatchObject({
    success: 'false',
    'stop-reason': 'verify_failed',
    'pr-operation': 'none'
  })
  expect(p.api.state.pulls).toEqual([])
  const told = await everythingTold(deliver, p.api.state.pulls)
  expect(told).toContain('a held-out gate failed')
  expect(told).not.toContain(SECRET)
  e2e.expectClean(p)
}, 360_000)

/** Held-out tests pushed to `ref` of the remote, as a maintainer pushes them from a private clone. */
function pushHeldOut(p: Project, ref: string): void {
  const clone = mkdtempSync(path.join(tmpdir(), 'ralph-holdout-ref-'))
  folders.push(clone)
  const git = (...args: string[]): string =>
    execFileSync('git', args, {
      cwd: clone,
      encoding: 'utf8',
      env: {
        ...process.env,
        GIT_CONFIG_NOSYSTEM: '1',
        HOME: clone,
        GIT_AUTHOR_NAME: 'Maintainer',
        GIT_AUTHOR_EMAIL: 'm@example.com',
        GIT_COMMITTER_NAME: 'Maintainer',
        GIT_COMMITTER_EMAIL: 'm@example.com'
      }
    })
  git('init', '--quiet')
  mkdirSync(path.join(clone, 'holdout'))
  writeFileSync(
    path.join(clone, 'holdout', 'add.test.js'),
    readFileSync(path.join(heldOutFolder(), 'holdout', 'add.test.js'))
  )
  git('add', 'holdout')
  git('commit', '--quiet', '-m', 'held-out tests')
  git('push', '--quiet', p.remote, `HEAD:${ref}`)
}

/** The agent's look for the held-out ref: over git without a token, and in the workspace's own repository. */
function refProbe(marker: string): string {
  return `{ const { spawnSync } = await import('node:child_process')
    const env = { ...process.env, GIT_TERMINAL_PROMPT: '0', GIT_ASKPASS: '/bin/false' }
    const git = (...args) => spawnSync('git', ['-c', 'safe.directory=*', ...args], { env, encoding: 'utf8' })
    const url = git('remote', 'get-url', 'origin').stdout.trim()
    const remote = git('ls-remote', url, ${js(HELD_OUT_REF)})
    const local = git('for-each-ref', ${js(HELD_OUT_REF)})
    fs.writeFileSync(${js(marker)}, JSON.stringify({ url, remote: remote.status, listed: remote.stdout,
      local: local.status, localListed: local.stdout, uid: process.getuid() })) }`
}

const HELD_OUT_REF = 'refs/ralph/holdout'

/** A private repository: its event payload says so, and git over HTTP needs a token to read it. */
function privateRepository(p: Project): void {
  p.api.state.repo.private = true
  p.gitServer.private = true
}

test('holdout-ref: the held-out tests wait on a ref the agent cannot fetch; a hard-coding agent gets no pull request, an honest one gets its PR', async () => {
  const hardCoded = path.join(e2e.scratch(), 'holdout-ref-probe')
  const made = (files: Files): Promise<Project> =>
    e2e.project(files).then(p => {
      privateRepository(p)
      pushHeldOut(p, HELD_OUT_REF)
      return p
    })
  const inputs = { holdout: HELD_OUT_GATE, 'holdout-ref': HELD_OUT_REF }
  const cheat = await runCorpus(
    e2e,
    { project: 'node --test', move: `${refProbe(hardCoded)}\n${HARD_CODE}`, inputs },
    made
  )
  expect(cheat.run.main.stderr).toBe('')
  expect(cheat.run.outputs).toMatchObject({
    success: 'false',
    'stop-reason': 'verify_failed',
    'pr-operation': 'none'
  })
  expect(cheat.p.api.state.pulls).toEqual([])
  const told = await everythingTold(cheat.run, cheat.p.api.state.pulls)
  expect(told).toContain('a held-out gate failed')
  expect(told).not.toContain(SECRET)
  // As its own user, with no token, the agent could neither fetch the ref nor find it in the workspace.
  const seen = JSON.parse(readFileSync(hardCoded, 'utf8')) as Record<string, unknown>
  expect(seen.uid).not.toBe(process.getuid!())
  expect(seen.url).toBe(`${cheat.p.gitServer.url}/${OWNER}/${REPO}`)
  expect(seen.remote).not.toBe(0)
  expect(seen.listed).toBe('')
  expect(seen).toMatchObject({ local: 0, localListed: '' })
  e2e.expectClean(cheat.p)

  const honest = await runCorpus(
    e2e,
    { project: 'node --test', move: PROJECTS['node --test'].honest, inputs },
    made
  )
  expect(honest.run.main.stderr).toBe('')
  expect(honest.run.outputs).toMatchObject({ success: 'true', 'pr-operation': 'created', verified: 'true' })
  expect(honest.p.api.state.pulls[0].body).toContain(
    `**Held-out gates passed** there too (gates the agent never saw): \`${HELD_OUT_GATE}\`.`
  )
  e2e.expectClean(honest.p)
}, 360_000)

const REFUSALS: [string, (p: Project) => void, string][] = [
  [
    'that the workspace already holds',
    p => {
      privateRepository(p)
      pushHeldOut(p, HELD_OUT_REF)
      p.git('fetch', '--quiet', p.remote, `${HELD_OUT_REF}:${HELD_OUT_REF}`)
    },
    `holdout-ref ${HELD_OUT_REF} is in the workspace's repository, where the agent can read it`
  ],
  [
    'in a public repository whose agent reaches GitHub (no model proxy)',
    p => pushHeldOut(p, HELD_OUT_REF),
    `holdout-ref ${HELD_OUT_REF}: this repository is public and the agent's network reaches GitHub`
  ]
]

test.each(REFUSALS)(
  'holdout-ref %s is refused before any agent runs',
  async (_, arrange, line) => {
    const marker = path.join(e2e.scratch(), `holdout-ref-ran-${line.length}`)
    const { p, run } = await runCorpus(
      e2e,
      {
        project: 'node --test',
        move: `fs.writeFileSync(${js(marker)}, 'ran')\n${HARD_CODE}`,
        inputs: { holdout: HELD_OUT_GATE, 'holdout-ref': HELD_OUT_REF }
      },
      async files => {
        const p = await e2e.project(files)
        arrange(p)
        return p
      }
    )
    expect(run.main.exitCode).toBe(1)
    expect(run.main.stdout).toContain(`::error::${line}`)
    expect(() => readFileSync(marker)).toThrow()
    expect(p.api.state.pulls).toEqual([])
  },
  240_000
)
