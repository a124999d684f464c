// The two jobs of a two-job run (issue #28) as the e2e files run them: job `agent` (mode: agent) with the
// read-only job token, then job `deliver` (mode: deliver) of the same run on a fresh checkout with the write
// token. Both run the ralph `fix-tests` unless the test's inputs say otherwise.
import {
  AGENT_JOB_TOKEN,
  GITHUB_TOKEN,
  runAction,
  type ActionRun,
  type Project,
  type RunOptions
} from './harness.js'
import type { E2eSuite } from './suite.js'

export interface TwoJobs {
  /** A run id of its own for each run of the file (both jobs of a run share it). */
  newRunId(): string
  agentJob(p: Project, runId: string, extra?: RunOptions): Promise<ActionRun>
  deliverJob(p: Project, runId: string, delivery: string, extra?: RunOptions): Promise<ActionRun>
}

/** `firstRunId`: where the file's run ids start (each file its own range, as they share no stand). */
export function twoJobs(e2e: E2eSuite, firstRunId: number): TwoJobs {
  let runs = 0
  return {
    newRunId: () => String(firstRunId + process.pid * 100 + ++runs),
    agentJob: (p, runId, extra = {}) =>
      runAction(p, e2e.stand(), {
        ...extra,
        runId,
        job: 'agent',
        token: AGENT_JOB_TOKEN,
        inputs: { ralph: 'fix-tests', mode: 'agent', ...extra.inputs }
      }),
    async deliverJob(p, runId, delivery, extra = {}) {
      const job = await e2e.checkoutAgain(p)
      return runAction(job, e2e.stand(), {
        ...extra,
        runId,
        job: 'deliver',
        token: GITHUB_TOKEN,
        inputs: { ralph: 'fix-tests', mode: 'deliver', delivery, ...extra.inputs }
      })
    }
  }
}
