// A loop that spans workflow runs (issue #30) as the e2e files run it: job 1 in run A (a workflow_dispatch or
// a `/ralph` comment) runs out of max-time with the gates failing and dispatches the workflow with
// `resume: A`; the run that dispatch queued (B) runs job 2 on a fresh runner (checkoutAgain) as a
// workflow_dispatch. Each job uploads its record under its own run's artifact backend id (a runtime token of
// that run), so job 2 can read run A's record only through the REST API, as on GitHub.
//
// The project's gate needs `fixes` fixes (files fixed-1, fixed-2, …). The scripted agent makes one fix an
// agent run, and the run after a fix sleeps past max-time instead (once in the chain, or after every fix):
// max-time is enforced by force, so the sleeping agent is killed and the job stops `timeout` with the gate
// failing, the fixes of its finished iterations committed (a run cut short commits nothing). Every run logs
// what it saw and reports a cent.
import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { projectFiles, ralph } from './fixtures.js'
import {
  jobBackendId,
  runAction,
  type ActionRun,
  type Files,
  type Project,
  type RunOptions
} from './harness.js'
import type { E2eSuite } from './suite.js'
import type { DispatchRecord, WorkflowRunRecord } from '../support/github-api/index.js'

/** The workflow file every run of a chain belongs to. */
export const WORKFLOW = '.github/workflows/ralph.yml'

/** What the agent costs per iteration (a `ralph-cost:` line). */
export const COST_PER_ITERATION = 0.01

/** A line of the agent's log: the iteration its prompt named, the fixes it found, what it did. */
export interface AgentSaw {
  iteration: number
  seen: string[]
  /** The fix it made (`fixed-N`), or `slept`. */
  did: string
}

export interface SlowAgent {
  script: string
  /** What the agent saw and did, one per agent run. */
  saw(): AgentSaw[]
  /** Written each time the agent starts sleeping (to cancel a job during its loop). */
  sleeping: string
}

/** The agent: one fix a run; the run after a fix sleeps past max-time, `once` in the chain or `always`. */
export function slowAgent(scratch: string, name: string, sleep: 'once' | 'always'): SlowAgent {
  const log = path.join(scratch, `${name}-${process.pid}.log`)
  const sleeping = path.join(scratch, `${name}-${process.pid}.sleeping`)
  const script = [
    "import fs from 'node:fs'",
    "const prompt = fs.readFileSync(0, 'utf8')",
    'const iteration = Number(/iteration (\\d+)/.exec(prompt)?.[1] ?? 0)',
    "const seen = fs.readdirSync('.').filter(name => /^fixed-\\d+$/.test(name)).sort()",
    `const log = ${JSON.stringify(log)}`,
    "const before = fs.existsSync(log) ? fs.readFileSync(log, 'utf8').split('\\n').filter(Boolean).map(l => JSON.parse(l)) : []",
    "const sleepNow = before.at(-1)?.did.startsWith('fixed-') &&",
    `  (${sleep === 'always'} || !before.some(run => run.did === 'slept'))`,
    "const did = sleepNow ? 'slept' : `fixed-${seen.length + 1}`",
    'if (!sleepNow) fs.writeFileSync(did, `made in iteration ${iteration}\\n`)',
    "fs.appendFileSync(log, JSON.stringify({ iteration, seen, did }) + '\\n')",
    `process.stdout.write(did + '\\nralph-cost: usd=${COST_PER_ITERATION}\\n')`,
    'if (sleepNow) {',
    `  fs.writeFileSync(${JSON.stringify(sleeping)}, String(iteration))`,
    '  await new Promise(resolve => setTimeout(resolve, 300_000))',
    '}',
    ''
  ].join('\n')
  const saw = (): AgentSaw[] =>
    existsSync(log)
      ? readFileSync(log, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map(line => JSON.parse(line) as AgentSaw)
      : []
  return { script, saw, sleeping }
}

/** The gate: every one of fixed-1 … fixed-N present; its output names what is still missing. */
const CHECK = [
  "import fs from 'node:fs'",
  'const needed = Number(process.argv[2])',
  'const missing = []',
  'for (let i = 1; i <= needed; i++) if (!fs.existsSync(`fixed-${i}`)) missing.push(`fixed-${i}`)',
  "if (missing.length > 0) { console.log(`still to fix: ${missing.join(', ')}`); process.exit(1) }",
  'console.log(`all ${needed} fixed`)',
  ''
].join('\n')

/** The project: the ralph fix-tests, whose one gate needs `fixes` fixes, and its agent. */
export function chainFiles(agent: string, fixes: number): Files {
  return { ...projectFiles(agent, ralph({ checks: [`node check.mjs ${fixes}`] })), 'check.mjs': CHECK }
}

export interface Chain {
  /** A run id of its own for each run of the file. */
  newRunId(): number
  /** A run of the chain's workflow (unless `workflowPath` says) as GitHub has it; the workflow, with input `resume`, registered if new. */
  addRun(
    p: Project,
    fields?: Partial<Omit<WorkflowRunRecord, 'workflowId'>> & { workflowPath?: string }
  ): WorkflowRunRecord
  /** Job 1: run A of the workflow (registered first), started by a workflow_dispatch unless `extra` says. */
  firstJob(p: Project, extra?: RunOptions): Promise<{ job: ActionRun; run: WorkflowRunRecord }>
  /** The one dispatch made since the `since`th and the run it queued; throws when there is not exactly one. */
  dispatched(p: Project, since?: number): { dispatch: DispatchRecord; run: WorkflowRunRecord }
  /**
   * A job of `run` on a fresh runner, dispatched with `inputs` (`resume` among them): the workflow passes
   * `resume: ${{ inputs.resume }}` beside `extra.inputs`.
   */
  resumedJob(
    p: Project,
    run: WorkflowRunRecord,
    inputs: Record<string, unknown>,
    extra?: RunOptions
  ): Promise<{ job: ActionRun; checkout: Project }>
}

/** `firstRunId`: where the file's run ids start. */
export function chain(e2e: E2eSuite, firstRunId: number): Chain {
  let runs = 0
  const newRunId = () => firstRunId + process.pid * 100 + ++runs
  const addRun: Chain['addRun'] = (p, fields = {}) => {
    if (!p.api.state.workflow('ralph.yml'))
      p.api.state.addWorkflow({ path: WORKFLOW, dispatchInputs: { resume: {} } })
    return p.api.state.addRun({
      id: newRunId(),
      event: 'workflow_dispatch',
      headBranch: 'main',
      headSha: p.sha,
      workflowPath: WORKFLOW,
      ...fields
    })
  }
  /** A job of `run`: its GITHUB_RUN_ID, and a runtime token of that run (its uploads are that run's artifacts). */
  const runJob = async (p: Project, run: WorkflowRunRecord, extra: RunOptions): Promise<ActionRun> => {
    run.status = 'in_progress'
    const job = await runAction(p, e2e.stand(), {
      ...extra,
      runId: String(run.id),
      runAttempt: String(run.runAttempt),
      env: {
        ACTIONS_RUNTIME_TOKEN: e2e
          .stand()
          .artifacts.tokenForRun(run.workflowRunBackendId, jobBackendId('ralph')),
        ...extra.env
      }
    })
    run.status = 'completed'
    run.conclusion = job.main.exitCode === 0 ? 'success' : 'failure'
    return job
  }
  return {
    newRunId,
    addRun,
    async firstJob(p, extra = {}) {
      const eventName = extra.eventName ?? 'workflow_dispatch'
      const run = addRun(p, { event: eventName })
      const job = await runJob(p, run, {
        ...extra,
        eventName,
        event: extra.event ?? p.api.events.workflowDispatch({ resume: '' }),
        inputs: { ralph: 'fix-tests', ...extra.inputs }
      })
      return { job, run }
    },
    dispatched(p, since = 0) {
      const made = p.api.state.dispatches.slice(since)
      if (made.length !== 1) throw new Error(`expected one dispatch, the job made ${made.length}`)
      const run = p.api.state.run(made[0].runId)
      if (!run) throw new Error(`the stand-in queued no run ${made[0].runId}`)
      // Each project's stand-in numbers its runs alike, but the file's projects share one artifact service:
      // a backend id of the file's own keeps their runs' artifacts apart, as two repositories' runs are.
      run.workflowRunBackendId = `c0ffee00-0000-4000-8000-${String(newRunId()).padStart(12, '0')}`
      return { dispatch: made[0], run }
    },
    async resumedJob(p, run, inputs, extra = {}) {
      const checkout = await e2e.checkoutAgain(p)
      const given = Object.fromEntries(Object.entries(inputs).map(([k, v]) => [k, String(v)]))
      const job = await runJob(checkout, run, {
        ...extra,
        eventName: 'workflow_dispatch',
        event: p.api.events.workflowDispatch(given),
        inputs: { ralph: 'fix-tests', ...extra.inputs, resume: given.resume ?? '' }
      })
      return { job, checkout }
    }
  }
}
