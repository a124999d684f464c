// The main step, as its pipeline: admit → plan → prepare → loop → deliver → report. Each step answers its
// typed result, or the Ending that stops the run there (bad input fails with one line before any agent runs).
import * as core from '@actions/core'
import { admit } from './admit.js'
import { deliver } from './deliver.js'
import { ended, writeEnding, type Ending } from './ending.js'
import { loop } from './loop.js'
import { planRun } from './plan-run.js'
import { prepare } from './prepare.js'
import { report } from './report.js'

async function pipeline(signal: AbortSignal): Promise<Ending> {
  const admitted = await admit()
  if (ended(admitted)) return admitted.end
  const planned = await planRun(admitted)
  if (ended(planned)) return planned.end
  const prepared = await prepare(planned)
  if (ended(prepared)) return prepared.end
  const looped = await loop(prepared, signal)
  // Cancellation is decided here alone, before the delivery (nothing is pushed) and after it: a SIGTERM during
  // the push or the pull request leaves the comment, the upload and the summary to post.
  const cancelled = (): boolean => signal.aborted || looped.result.stopReason === 'cancelled'
  const delivery = await deliver(prepared, looped.result, cancelled())
  return report(prepared, looped, delivery, cancelled())
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
