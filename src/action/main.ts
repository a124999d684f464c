// The main step: the inputs read once, the job kind decided once (jobs/kind.ts), that kind's pipeline run, and
// how it ended written. Each pipeline (jobs/) is a straight sequence of steps (steps/); a step answers its typed
// result, or the StepEnd that stops the run there (bad input fails with one line before any agent runs).
import * as core from '@actions/core'
import { agentJob } from './jobs/agent-job.js'
import { deliverJob } from './jobs/deliver-job.js'
import { dryRunJob } from './jobs/dry-run.js'
import { jobKind, type JobKind, type JobKindName } from './jobs/kind.js'
import { listJob } from './jobs/list.js'
import { oneJob } from './jobs/one-job.js'
import { reserveJob } from './jobs/reserve-job.js'
import { resumedJob } from './jobs/resumed-job.js'
import { readRun } from './steps/admit.js'
import { endsHere, writeEnding, type StepEnd } from './steps/ending.js'
import type { ReadRun } from './steps/types.js'

type Pipeline = (read: ReadRun, kind: JobKind, signal: AbortSignal) => Promise<StepEnd> | StepEnd

const PIPELINES: Record<JobKindName, Pipeline> = {
  one: oneJob,
  agent: agentJob,
  deliver: deliverJob,
  resumed: resumedJob,
  list: listJob,
  'dry-run': dryRunJob,
  reserve: reserveJob
}

async function pipeline(signal: AbortSignal): Promise<StepEnd> {
  const read = readRun()
  if (endsHere(read)) return read.end
  const kind = jobKind(read.inputs)
  return PIPELINES[kind.kind](read, kind, signal)
}

/** The runner sends SIGINT, then SIGTERM ~7.5 s later: either one cancels the loop (the agent's tree is killed). */
function cancellation(): { signal: AbortSignal; dispose: () => void } {
  const controller = new AbortController()
  const onSignal = (name: NodeJS.Signals): void => {
    if (!controller.signal.aborted) core.info(`Received ${name}: stopping the loop and its agent.`)
    controller.abort()
  }
  process.on('SIGINT', onSignal)
  process.on('SIGTERM', onSignal)
  return {
    signal: controller.signal,
    dispose: () => {
      process.off('SIGINT', onSignal)
      process.off('SIGTERM', onSignal)
    }
  }
}

export async function run(): Promise<void> {
  const cancel = cancellation()
  try {
    await writeEnding(await pipeline(cancel.signal))
  } catch (error) {
    // Our own bug: the stack for the debug log; `finished` stays unset, so post saves the record.
    core.debug((error as Error).stack ?? String(error))
    core.setFailed(`ralph-action failed: ${(error as Error).message}`)
  } finally {
    cancel.dispose()
  }
}
