// Step: setup — what a fresh clone needs before its gates can pass (npm ci), run in the work tree before the
// baseline, as it is in the clean checkout.
import { exitWords } from '../../text/exit-words.js'
import type { Stop } from '../stop.js'
import { runSetup } from '../verify.js'
import type { LoopRun } from './run.js'
import type { Resumed } from './resume.js'

/** A stop when a setup command failed before any agent ran. */
export async function setupStep(run: LoopRun, resumed: Resumed): Promise<Stop | undefined> {
  const { env, status, record, config } = run
  if ((config.setup ?? []).length === 0) return undefined
  // A resumed loop's checkout is fresh: setup runs again, its logs beside the earlier job's.
  const setupDir = resumed.chain ? record.logsDir(resumed.chain.setupLogs) : record.iterationDir(0)
  const setup = await runSetup(env, env.workTree, setupDir)
  status.setup = setup.runs
  record.appendSetup(setup.runs)
  record.writeStatus(status)
  run.emit({ type: 'setup_finished', setup: setup.runs })
  const failed = setup.runs.find(r => !r.passed)
  if (setup.interrupted) {
    if (env.guard.trip) run.noteEnforcement(env.guard.trip)
    return undefined
  }
  if (!failed) return undefined
  status.error = `the setup command ${failed.run} failed`
  return {
    reason: 'agent_error',
    detail: `the setup command \`${failed.run}\` failed (${failed.timedOut ? 'timed out' : exitWords(failed)}) before any agent ran: its output is in ${failed.log}`
  }
}
