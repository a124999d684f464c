// runLoop: iterations until a stop reason, with budgets enforced by force and the record written as it goes;
// verifyDelivered: the same run opened and closed around one clean verification, no agent. Each step is a
// function of its own file (steps/).
import { recentHistory, type IterationMemory } from './environment.js'
import { systemClock } from './guard.js'
import { costWarningBefore } from './setup.js'
import type { Stop } from './stop.js'
import type { LoopConfig, LoopEvent, LoopPorts, LoopResult, LoopStart } from './types.js'
import { baselineStep } from './steps/baseline.js'
import { closeRun } from './steps/close.js'
import { disposeQuietly } from './steps/dispose.js'
import { limitEgress } from './steps/egress.js'
import { iterate } from './steps/iterate.js'
import { startMeter, type Metered } from './steps/meter.js'
import { openRun } from './steps/open.js'
import { openRecord } from './steps/record.js'
import { finishRun } from './steps/result.js'
import { fromStart, type Resumed } from './steps/resume.js'
import { loopRun, type LoopRun } from './steps/run.js'
import { recogniseRunners } from './steps/runners.js'
import { setupStep } from './steps/setup.js'
import { recordStart } from './steps/start.js'
import { TokenTally } from './steps/tally.js'
import { cleanVerification, type Delivered } from './steps/verification.js'
import { workBeforeTheLoop } from './steps/work-before.js'

/**
 * Runs the loop to a stop reason and answers the whole result (also in `<recordDir>/status.json`). `start`:
 * where the chain stands when this job resumes it (its iterations, cost, breaker and baseline count here).
 * Throws RalphError only for settings that cannot work (nothing has run then); everything that goes
 * wrong once the loop has started ends it with a stop reason and a finished record.
 */
export async function runLoop(
  config: LoopConfig,
  ports: LoopPorts = {},
  start?: LoopStart
): Promise<LoopResult> {
  const resumed = fromStart(start)
  return inRun(config, ports, resumed, async (run, memory, tally) => {
    const refused = await workBeforeTheLoop(run, resumed)
    if (refused) return refused
    const setupStop = await setupStep(run, resumed)
    const baseline = await baselineStep(run, memory, resumed, setupStop !== undefined)
    return setupStop ?? baseline.stop ?? (await iterate(run, baseline.memory, resumed, tally))
  })
}

/**
 * The deliver job's own verdict on what an agent's job delivers: no agent runs; once the start is recorded,
 * the gates run on a clean checkout of `commit` alone (setup first), its protected paths put back from
 * `base`, and the run stops all_checks_passed or verify_failed.
 */
export async function verifyDelivered(
  config: LoopConfig,
  ports: LoopPorts,
  delivered: Delivered
): Promise<LoopResult> {
  return inRun(config, ports, fromStart(undefined), (run, memory) =>
    cleanVerification(run, memory, delivered)
  )
}

/** What runs between the opening and the closing steps; its stop ends the run. */
type Body = (run: LoopRun, memory: IterationMemory, tally: TokenTally) => Promise<Stop>

/** Opens the run (work tree, meter, record, egress, start, runners), runs `body`, closes it, answers the result. */
async function inRun(
  config: LoopConfig,
  ports: LoopPorts,
  resumed: Resumed,
  body: Body
): Promise<LoopResult> {
  const clock = ports.clock ?? systemClock
  const emit = (event: LoopEvent): void => {
    try {
      ports.emit?.(event)
    } catch {
      // A front-end's rendering problem must not stop the loop.
    }
  }
  const startedAt = clock.now()
  const opened = await openRun(config, ports, startedAt)
  let metered: Metered
  try {
    metered = await startMeter(config, ports, resumed, { clock, startedAt, emit })
  } catch (error) {
    await disposeQuietly(opened.workspace)
    throw error
  }
  let run: LoopRun
  try {
    run = loopRun(ports, opened, metered, openRecord(metered.config, opened, metered, resumed, startedAt), {
      clock,
      emit
    })
  } catch (error) {
    metered.stop()
    await metered.proxied?.close()
    await disposeQuietly(opened.workspace)
    throw error
  }
  const egress = await limitEgress(run.config, metered, message => run.warn(message))
  if (!opened.isRepo && run.gated)
    run.warn('the work tree is not a git repository: progress cannot be seen, the no-progress rule is off')
  const costUnknown = costWarningBefore(run.config, opened.preset, metered.proxied !== undefined)
  if (costUnknown) run.warn(costUnknown)
  const tally = new TokenTally(resumed.iterations)
  let memory: IterationMemory = { history: recentHistory(resumed.iterations), trackTree: run.gated }

  emit({ type: 'loop_started', status: run.status })
  let stop: Stop | undefined
  try {
    memory = await recordStart(run, memory, resumed)
    memory = await recogniseRunners(run, memory)
    stop = await body(run, memory, tally)
  } catch (error) {
    // A bug or an environment failure (git broke, the disk is full): finish the record all the same.
    run.status.error = (error as Error).message
    stop = { reason: 'agent_error', detail: `Run crashed: ${(error as Error).message}` }
  } finally {
    await closeRun(run, metered, egress)
  }
  return finishRun(run, stop, { resumed, tally, startedAt })
}
