// The workflows that use the action: CI's self-test (run here through the harness with the very inputs
// ci.yml gives it) and the example workflows (inputs the action knows, least permissions, no token left for
// the agent, no expression pasted into a shell script; in two-job form, no write token beside the agent and
// no model key beside the write token).
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals'
import { parse } from 'yaml'
import {
  REPO_ROOT,
  actionYaml,
  createProject,
  runAction,
  startStand,
  type Files,
  type Stand
} from './harness.js'

type Json = Record<string, unknown>
const load = (file: string): Json => parse(readFileSync(path.join(REPO_ROOT, file), 'utf8')) as Json
const jobsOf = (wf: Json) => Object.entries(wf.jobs as Record<string, Json>)
const stepsOf = (job: Json) => (job.steps as Json[] | undefined) ?? []

/** The most jobs a job's ralph-action step lets its loop span (continue-jobs; 1 when not given). */
const continueJobs = (job: Json): number =>
  Math.max(
    1,
    ...stepsOf(job)
      .filter(s => s.uses === 'org/ralph-action@v1')
      .map(s => Number((s.with as Json | undefined)?.['continue-jobs'] ?? 1))
  )

const EXAMPLES = [
  'examples/workflows/manual-claude.yml',
  'examples/workflows/fix-failing-tests.yml',
  'examples/workflows/long-loop.yml'
]

describe.each(EXAMPLES)('%s', file => {
  const wf = load(file)
  const uses = jobsOf(wf).flatMap(([, job]) => stepsOf(job).filter(s => s.uses === 'org/ralph-action@v1'))

  test('uses the action with inputs action.yml declares', () => {
    expect(uses.length).toBeGreaterThan(0)
    const known = Object.keys(actionYaml().inputs)
    for (const step of uses)
      for (const input of Object.keys(step.with as Json)) expect(known).toContain(input)
  })

  test('checks out without persisting a token, and asks for no more than contents and pull-requests (and actions: write to continue a loop, issues: write to label the pull request)', () => {
    for (const [, job] of jobsOf(wf)) {
      for (const step of stepsOf(job).filter(s => String(s.uses).startsWith('actions/checkout@')))
        expect(step.with).toMatchObject({ 'persist-credentials': false })
      const permissions = (job.permissions ?? wf.permissions) as Json
      // GitHub sets a pull request's labels through the Issues API.
      const labels = stepsOf(job).some(s => s.uses === 'org/ralph-action@v1' && (s.with as Json)?.labels)
      for (const [scope, level] of Object.entries(permissions)) {
        expect([
          'contents',
          'pull-requests',
          ...(continueJobs(job) > 1 ? ['actions'] : []),
          ...(labels ? ['issues'] : [])
        ]).toContain(scope)
        expect(['read', 'write']).toContain(level)
      }
    }
  })

  test('no expression is pasted into a run: script, and no concurrency group cancels a loop', () => {
    for (const [, job] of jobsOf(wf)) {
      for (const step of stepsOf(job)) if (typeof step.run === 'string') expect(step.run).not.toContain('${{')
      const group = (job.concurrency ?? wf.concurrency) as Json | undefined
      if (group) expect(group['cancel-in-progress']).toBe(false)
    }
  })
})

// Two-job mode: the agent job runs the loop with a read-only token, the deliver job delivers with no model key.
const TWO_JOB_EXAMPLES = [
  'examples/workflows/manual-claude-two-jobs.yml',
  'examples/workflows/ralph-on-comment-two-jobs.yml',
  'examples/workflows/nightly-bug-hunt-two-jobs.yml'
]
const actionStep = (job: Json): Json =>
  stepsOf(job).find(s => s.uses === 'org/ralph-action@v1') ?? { with: {} }
const without = (inputs: Json, ...names: string[]): Json =>
  Object.fromEntries(Object.entries(inputs).filter(([name]) => !names.includes(name)))

describe.each(TWO_JOB_EXAMPLES)('%s', file => {
  const wf = load(file)
  const jobs = wf.jobs as Record<string, Json>
  const [agentName, agent] = jobsOf(wf).find(([, job]) => (actionStep(job).with as Json).mode === 'agent')!
  const [, deliver] = jobsOf(wf).find(([, job]) => (actionStep(job).with as Json).mode === 'deliver')!
  const agentWith = actionStep(agent).with as Json
  const deliverWith = actionStep(deliver).with as Json

  test('has two jobs, each using the action once, with inputs action.yml declares', () => {
    expect(Object.keys(jobs)).toHaveLength(2)
    for (const [, job] of jobsOf(wf))
      expect(stepsOf(job).filter(s => s.uses === 'org/ralph-action@v1')).toHaveLength(1)
    const known = Object.keys(actionYaml().inputs)
    for (const input of [...Object.keys(agentWith), ...Object.keys(deliverWith)])
      expect(known).toContain(input)
  })

  test("the agent job's token is read-only: no scope of it is write, at the job or the workflow", () => {
    expect(wf.permissions).toEqual({})
    const permissions = agent.permissions as Json
    expect(permissions.contents).toBe('read')
    for (const [scope, level] of Object.entries(permissions)) {
      expect(['contents', 'issues', 'pull-requests']).toContain(scope)
      expect(level).toBe('read')
    }
    expect(agentWith['push-token']).toBeUndefined()
    expect(agentWith['github-token']).toBeUndefined()
  })

  test('the deliver job asks for no more than contents, pull-requests and issues, and holds no model key', () => {
    for (const [scope, level] of Object.entries(deliver.permissions as Json)) {
      expect(['contents', 'pull-requests', 'issues']).toContain(scope)
      expect(level).toBe('write')
    }
    expect((deliver.permissions as Json).contents).toBe('write')
    const envs = [wf.env, deliver.env, ...stepsOf(deliver).map(s => s.env)] as (Json | undefined)[]
    for (const env of envs) for (const name of Object.keys(env ?? {})) expect(name).not.toMatch(/KEY|TOKEN/)
    expect(JSON.stringify(deliver)).not.toMatch(/API_KEY/)
    // The agent job's key is where the agent runs, and nowhere else in the file.
    expect(actionStep(agent).env).toHaveProperty('ANTHROPIC_API_KEY')
    expect(deliverWith['install-agent']).toBeUndefined()
  })

  test('the deliver job needs the agent job, runs after its failure too, and delivers its output', () => {
    expect(deliver.needs).toBe(agentName)
    expect(String(deliver.if)).toMatch(/^\$\{\{ !cancelled\(\)/)
    expect(String(deliver.if)).not.toMatch(/always\(\)/)
    const step = stepsOf(agent).find(s => s.uses === 'org/ralph-action@v1')!
    expect(agent.outputs).toEqual({ delivery: `\${{ steps.${String(step.id)}.outputs.delivery }}` })
    expect(deliverWith.delivery).toBe(`\${{ needs.${agentName}.outputs.delivery }}`)
  })

  test('both jobs give the action the same inputs, but for mode, delivery, who installs or pushes, and the agent’s egress', () => {
    // The deliver job has no model proxy (no key): egress settings would ask for one there.
    expect(without(deliverWith, 'mode', 'delivery', 'push-token')).toEqual(
      without(agentWith, 'mode', 'install-agent', 'agent-network', 'allowed-hosts')
    )
  })

  test('checks out without a token, pastes no expression into a script, and holds both jobs in one group', () => {
    for (const [, job] of jobsOf(wf)) {
      for (const step of stepsOf(job).filter(s => String(s.uses).startsWith('actions/checkout@')))
        expect(step.with).toMatchObject({ 'persist-credentials': false })
      for (const step of stepsOf(job)) if (typeof step.run === 'string') expect(step.run).not.toContain('${{')
      expect(job.concurrency).toBeUndefined()
    }
    expect(wf.concurrency).toMatchObject({ 'cancel-in-progress': false })
  })
})

test('a two-job example for each trigger of the one-job ones: a manual run, a comment, a nightly hunt', () => {
  const triggers = TWO_JOB_EXAMPLES.map(file => Object.keys(load(file).on as Json).sort())
  expect(triggers).toEqual([
    ['workflow_dispatch'],
    ['issue_comment', 'issues'],
    ['schedule', 'workflow_dispatch']
  ])
  // The comment example's deliver job runs only for a request: an ordinary comment skips the agent job, and
  // `!cancelled()` alone would still start the deliver job for it.
  const comment = load('examples/workflows/ralph-on-comment-two-jobs.yml').jobs as Record<string, Json>
  expect(comment.deliver.if).toBe("${{ !cancelled() && needs.agent.result != 'skipped' }}")
  expect(String(comment.agent.if)).toContain("startsWith(github.event.comment.body, '/ralph')")
})

test('the on-push example costs nothing on a green push: skip-if-green, with the tests as its gate', () => {
  const [step] = jobsOf(load('examples/workflows/fix-failing-tests.yml')).flatMap(([, job]) =>
    stepsOf(job).filter(s => s.uses === 'org/ralph-action@v1')
  )
  expect(step.with).toMatchObject({ 'skip-if-green': true, checks: 'npm test' })
  expect((step.with as Json).baseline).toBeUndefined()
})

test('every example installs its agent with install-agent, not with a step of its own', () => {
  const dir = path.join(REPO_ROOT, 'examples', 'workflows')
  for (const file of readdirSync(dir).filter(name => name.endsWith('.yml'))) {
    const wf = load(path.join('examples', 'workflows', file))
    for (const [, job] of jobsOf(wf)) {
      const steps = stepsOf(job)
      for (const step of steps) expect(String(step.run ?? '')).not.toMatch(/npm (i|install) -g/)
      for (const step of steps.filter(s => s.uses === 'org/ralph-action@v1'))
        // list and deliver run no agent.
        if (!['list', 'deliver'].includes(String((step.with as Json).mode)))
          expect((step.with as Json)['install-agent']).toBe(true)
    }
  }
})

test('every example that runs npm ci before the action also gives setup: npm ci, and behind the model proxy lets it reach the registry', () => {
  // The clean checkout the gates are verified on never has node_modules: without setup, verify_failed each run.
  const dir = path.join(REPO_ROOT, 'examples', 'workflows')
  let checked = 0
  for (const file of readdirSync(dir).filter(name => name.endsWith('.yml'))) {
    const wf = load(path.join('examples', 'workflows', file))
    for (const [, job] of jobsOf(wf)) {
      const steps = stepsOf(job)
      const installs = steps.some(s => s.run === 'npm ci')
      for (const step of steps.filter(s => s.uses === 'org/ralph-action@v1')) {
        const given = step.with as Json
        if (given.mode === 'list' || !(installs || given.mode === 'deliver')) continue
        checked++
        expect([file, given.setup]).toEqual([file, 'npm ci'])
        // The model key (model-proxy auto) is where the agent runs: its user reaches only the proxy and these.
        if (step.env && 'ANTHROPIC_API_KEY' in (step.env as Json))
          expect([file, given['agent-network'], given['allowed-hosts']]).toEqual([
            file,
            'allow-list',
            'registry.npmjs.org'
          ])
      }
    }
  }
  expect(checked).toBe(12)
})

test("an example asks for actions: write only to dispatch the next run of a loop that continues, and then must; actions: read only to read a failing CI run's logs", () => {
  const dir = path.join(REPO_ROOT, 'examples', 'workflows')
  const found: string[] = []
  for (const file of readdirSync(dir).filter(name => name.endsWith('.yml'))) {
    const wf = load(path.join('examples', 'workflows', file))
    for (const [, job] of jobsOf(wf)) {
      const permissions = (job.permissions ?? wf.permissions ?? {}) as Json
      const continues = continueJobs(job) > 1
      // A CI round reads the failing run's jobs and logs (GET …/actions/jobs/{id}/logs): read, never write.
      const readsLogs = 'workflow_run' in ((wf.on ?? {}) as Json)
      expect([file, permissions.actions]).toEqual([
        file,
        continues ? 'write' : readsLogs ? 'read' : undefined
      ])
      if (!continues) continue
      found.push(file)
      // Continuation is one job's, hands over through the record, and needs the dispatch input it resumes from.
      const given = stepsOf(job).find(s => s.uses === 'org/ralph-action@v1')!.with as Json
      expect(given.mode ?? 'run').toBe('run')
      expect(given['upload-artifacts'] ?? true).not.toBe(false)
      expect(given.resume).toBe('${{ inputs.resume }}')
      expect((wf.on as Json).workflow_dispatch).toMatchObject({ inputs: { resume: { default: '' } } })
    }
  }
  expect(found).toEqual(['long-loop.yml'])
})

test('action.yml runs the one bundle on node24 as main and as a post step that always runs', () => {
  expect(actionYaml().runs).toEqual({
    using: 'node24',
    main: 'dist/index.js',
    post: 'dist/index.js',
    'post-if': 'always()'
  })
})

test('the fix-the-failing-tests loop never runs on its own branches', () => {
  expect(load('examples/workflows/fix-failing-tests.yml').on).toEqual({
    push: { 'branches-ignore': ['ralph/**'] }
  })
})

describe("CI's self-test", () => {
  let stand: Stand
  beforeAll(async () => {
    stand = await startStand()
  })
  afterAll(async () => stand?.close())

  test('runs the bundled example with the inputs ci.yml gives it, and ends as ci.yml expects', async () => {
    const job = (load('.github/workflows/ci.yml').jobs as Record<string, Json>)['self-test']
    const step = stepsOf(job).find(s => s.uses === './')
    expect(step).toBeDefined()
    const inputs = Object.fromEntries(Object.entries(step!.with as Json).map(([k, v]) => [k, String(v)]))

    const example = path.join(REPO_ROOT, 'examples', 'fix-failing-test')
    const files: Files = {}
    const add = (dir: string): void => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const full = path.join(dir, entry.name)
        if (entry.isDirectory()) add(full)
        else files[path.relative(REPO_ROOT, full)] = readFileSync(full, 'utf8')
      }
    }
    add(example)
    const p = await createProject(files)
    try {
      const run = await runAction(p, stand, { inputs })
      expect(run.main.exitCode).toBe(0)
      // What the workflow's next step checks.
      expect(run.outputs).toMatchObject({
        'stop-reason': 'all_checks_passed',
        iterations: '2',
        'pr-operation': 'none'
      })
      expect(run.outputs['artifact-id']).not.toBe('')
      expect(p.git('log', '--format=%s', 'ralph/fix-tests').split('\n').slice(0, 2)).toEqual([
        'ralph fix-tests: iteration 2',
        'ralph fix-tests: iteration 1'
      ])
      // Nothing left the runner.
      expect(p.remoteGit('branch', '--list', 'ralph/*').trim()).toBe('')
      expect(p.api.state.pulls).toEqual([])
      expect(run.summary).toContain('open-pr is false, so nothing was pushed')
      expect(p.api.violations).toEqual([])
      expect(stand.artifacts.violations).toEqual([])
    } finally {
      await p.cleanup()
    }
  })
})
