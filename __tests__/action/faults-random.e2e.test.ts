// The randomised run: seeded runs of the action (dist/index.js, a /ralph comment, a cheap agent), 10 by default
// and 50 in .ci/run (RALPH_FAULT_RUNS), each with 1–5 faults drawn from the seed over the requests a fault-free run makes (API, fetch, push, artifact upload).
// Every run must deliver exactly once: one pull request, one tracking comment, one 👀, the branch on the
// remote, the record uploaded or its absence stated. It prints how many delivered, the duplicates (0), the
// p50 and max time the faults added, and each failure with its seed.
// RALPH_FAULT_SEEDS=7,31 runs those seeds only (to reproduce one); RALPH_FAULT_RUNS=50 runs seeds 1 to 50.
import { writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { beforeAll, expect, test } from '@jest/globals'
import { FAULT_KINDS, seededRandom, type FaultKind, type FaultSchedule } from '../support/faults.js'
import { DONE, FAULT_TIMING, FIX, agentScript, projectFiles, ralph } from './fixtures.js'
import { runAction, type ActionRun, type Project } from './harness.js'
import { e2eSuite } from './suite.js'

const SEEDS = process.env.RALPH_FAULT_SEEDS
  ? process.env.RALPH_FAULT_SEEDS.split(',').map(Number)
  : Array.from({ length: faultRuns(process.env.RALPH_FAULT_RUNS) }, (_, i) => i + 1)
const BASELINE_RUNS = 3

function faultRuns(given: string | undefined): number {
  if (given === undefined || given === '') return 10
  if (!/^[1-9]\d*$/.test(given))
    throw new Error(`RALPH_FAULT_RUNS must be a positive whole number, got '${given}'`)
  return Number(given)
}

const e2e = e2eSuite()
let project: Project

beforeAll(async () => {
  project = await e2e.project(
    projectFiles(agentScript({ any: `${FIX}\n${DONE}` }), ralph({ checks: ["grep -q 'a + b' calc.js"] }))
  )
  project.api.state.addUser('maintainer', { role: 'write' })
}, 120_000)

type Server = 'api' | 'git' | 'artifacts'
interface Slot {
  server: Server
  route: string
  call: number
}
interface PlannedFault extends Slot {
  kind: FaultKind
}

const schedules = (): Record<Server, FaultSchedule> => ({
  api: project.api.faults,
  git: project.gitServer.faults,
  artifacts: e2e.stand().artifacts.faults
})

/** The kinds each server can meaningfully produce (git and the artifact service have no GitHub rate limits). */
const KINDS: Record<Server, readonly FaultKind[]> = {
  api: FAULT_KINDS,
  git: ['502', '503', '429', 'reset', 'empty-reply', 'stall', 'drop-response'],
  artifacts: ['502', '503', '429', 'reset', 'stall', 'drop-response']
}

/** One run from a /ralph comment on a fresh issue (its own branch, ralph/issue-<N>), with `faults` planned. */
async function ralphRun(
  faults: PlannedFault[]
): Promise<{ run: ActionRun; issue: number; commentId: number }> {
  const servers = schedules()
  for (const schedule of Object.values(servers)) schedule.clear()
  for (const f of faults) servers[f.server].add(f.route, f.call, f.kind)
  const issue = project.api.state.addIssue({
    title: 'add() subtracts',
    body: 'It should add.',
    user: 'maintainer'
  })
  const comment = project.api.state.addComment(issue.number, { body: '/ralph fix-tests', user: 'maintainer' })
  const run = await runAction(project, e2e.stand(), {
    inputs: { ralph: 'fix-tests', 'max-iterations': '2' },
    eventName: 'issue_comment',
    event: project.api.events.issueComment(comment.id),
    env: FAULT_TIMING,
    // Main finishes in every run here; post would only say so.
    noPost: true
  })
  return { run, issue: issue.number, commentId: comment.id }
}

/** The requests a fault-free run makes, as slots a fault can take. */
function slotsOf(): Slot[] {
  const slots: Slot[] = []
  for (const [server, schedule] of Object.entries(schedules()) as [Server, FaultSchedule][])
    for (const [route, calls] of schedule.calls)
      for (let call = 1; call <= calls; call++) slots.push({ server, route, call })
  return slots
}

function plan(seed: number, slots: Slot[]): PlannedFault[] {
  const random = seededRandom(seed)
  const count = 1 + Math.floor(random() * 5)
  const faults: PlannedFault[] = []
  while (faults.length < count) {
    const slot = slots[Math.floor(random() * slots.length)]
    const kinds = KINDS[slot.server]
    const kind = kinds[Math.floor(random() * kinds.length)]
    if (faults.some(f => f.server === slot.server && f.route === slot.route && f.call === slot.call)) continue
    faults.push({ ...slot, kind })
  }
  return faults
}

interface Outcome {
  seed: number
  faults: PlannedFault[]
  delivered: boolean
  duplicates: string[]
  problems: string[]
  /** Faults met (a planned one is not when an earlier fault changed the requests made). */
  injected: number
  ms: number
}

/** What one run left behind, checked against what a delivered run must leave. */
function judge(seed: number, faults: PlannedFault[], r: Awaited<ReturnType<typeof ralphRun>>): Outcome {
  const { run, issue, commentId } = r
  const { state } = project.api
  const branch = `ralph/issue-${issue}`
  const problems: string[] = []
  const duplicates: string[] = []
  const pulls = state.pulls.filter(p => p.head === branch)
  const tracking = state.comments.filter(
    c => c.issueNumber === issue && c.body.includes('ralph-action:tracking')
  )
  const eyes = state.reactionsOn('comment', commentId)
  if (pulls.length > 1) duplicates.push(`${pulls.length} pull requests for ${branch}`)
  if (tracking.length > 1) duplicates.push(`${tracking.length} tracking comments on #${issue}`)
  if (eyes.length > 1) duplicates.push(`${eyes.length} reactions on the comment`)
  let remote: string | undefined
  try {
    remote = project.remoteGit('rev-parse', `refs/heads/${branch}`).trim()
  } catch {
    remote = undefined
  }
  const delivered =
    run.main.exitCode === 0 &&
    pulls.length === 1 &&
    run.outputs['pr-operation'] === 'created' &&
    run.outputs['pr-number'] === String(pulls[0]?.number) &&
    remote === run.outputs.commit
  if (!delivered) {
    const said =
      run.main.errors.at(-1)?.message ??
      `exit ${run.main.exitCode}: ${run.main.stderr.trim().split('\n').slice(-3).join(' | ')}`
    // The whole log, for the failure's report.
    const log = path.join(tmpdir(), `ralph-fault-seed-${seed}.log`)
    writeFileSync(log, `${run.main.stdout}\n--- stderr\n${run.main.stderr}`)
    problems.push(`not delivered: ${said} (log: ${log})`)
  }
  // The exit code is the loop's verdict (it passed) unless delivery failed, and then the step says why.
  if (run.outputs.success !== 'true') problems.push(`success output ${run.outputs.success}`)
  const record = run.outputs['artifact-id']
  if (
    record
      ? !e2e
          .stand()
          .artifacts.listArtifacts()
          .some(a => String(a.id) === record)
      : !/could not be uploaded/.test(run.summary)
  )
    problems.push('the record is neither uploaded nor stated missing')
  if (tracking.length === 1 && delivered && !tracking[0].body.includes('state=final'))
    problems.push('the tracking comment was not finalised')
  if (project.api.violations.length > 0)
    problems.push(`API violations: ${JSON.stringify(project.api.violations)}`)
  const injected = Object.values(schedules()).reduce((n, s) => n + s.injected.length, 0)
  return {
    seed,
    faults,
    delivered,
    duplicates,
    problems: [...problems, ...duplicates],
    injected,
    ms: run.main.durationMs
  }
}

const percentile = (values: number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]
}

test(
  `${SEEDS.length} seeded runs with 1–5 random faults each deliver exactly once`,
  async () => {
    const baseline: number[] = []
    let slots: Slot[] = []
    for (let i = 0; i < BASELINE_RUNS; i++) {
      const r = await ralphRun([])
      const outcome = judge(0, [], r)
      expect(outcome.problems).toEqual([])
      baseline.push(outcome.ms)
      slots = slotsOf()
    }
    const usual = percentile(baseline, 50)

    const outcomes: Outcome[] = []
    for (const seed of SEEDS) {
      const faults = plan(seed, slots)
      outcomes.push(judge(seed, faults, await ralphRun(faults)))
    }

    const added = outcomes.map(o => o.ms - usual)
    const worst = outcomes[added.indexOf(Math.max(...added))]
    const failures = outcomes.filter(o => o.problems.length > 0)
    const describe = (f: PlannedFault) => `${f.server} ${f.route}#${f.call} ${f.kind}`
    const lines = [
      `Randomised fault run: ${outcomes.length} seeded runs, ${outcomes.reduce((n, o) => n + o.faults.length, 0)} faults planned (1–5 each) over ${slots.length} request slots, ${outcomes.reduce((n, o) => n + o.injected, 0)} met.`,
      `Delivered: ${outcomes.filter(o => o.delivered).length} of ${outcomes.length}. Duplicates: ${outcomes.reduce((n, o) => n + o.duplicates.length, 0)}.`,
      `A fault-free run takes ${(usual / 1000).toFixed(1)} s (median of ${BASELINE_RUNS}); added by the faults: p50 ${(percentile(added, 50) / 1000).toFixed(1)} s, max ${(Math.max(...added) / 1000).toFixed(1)} s (seed ${worst.seed}: ${worst.faults.map(describe).join(', ')}).`,
      failures.length === 0
        ? 'Failures: none.'
        : `Failures:\n${failures.map(o => `  seed ${o.seed} (${o.faults.map(describe).join(', ')}): ${o.problems.join('; ')}`).join('\n')}`
    ]
    process.stdout.write(`\n${lines.join('\n')}\n\n`)
    expect(failures.map(o => ({ seed: o.seed, problems: o.problems }))).toEqual([])
  },
  60 * 60_000
)
