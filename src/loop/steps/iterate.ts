// Step: iterate — iterations until a stop reason: each one run, recorded, told to the breaker, and the stop
// decided after it.
import { costFix } from '../../agents/index.js'
import { recentHistory, type IterationMemory } from '../environment.js'
import { runIteration } from '../iteration.js'
import { decideStop, type IterationEnd, type Stop } from '../stop.js'
import { usageLimitWait } from '../usage-limit.js'
import type { IterationRecord } from '../types.js'
import { breakerSignals, runBreaker } from './breaker.js'
import type { Resumed } from './resume.js'
import type { LoopRun } from './run.js'
import { updateCost, type TokenTally } from './tally.js'

/** An iteration still running after this long is named in status.json (`inFlight`). */
const IN_FLIGHT_STATUS_DELAY_MS = 200

export async function iterate(
  run: LoopRun,
  memory: IterationMemory,
  resumed: Resumed,
  tally: TokenTally
): Promise<Stop> {
  const { env, status, record, config, ports, proxied } = run
  const { guard, clock, meter } = env
  const breaker = runBreaker(config, resumed.iterations)
  // The iterations themselves are the record's (a file): the loop keeps the last one.
  let last: IterationRecord | undefined = resumed.iterations.at(-1)
  for (let iteration = resumed.iterations.length + 1; ; iteration++) {
    const before = decideStop(undefined, run.budgets(iteration - 1, last))
    if (before) return before

    status.inFlight = iteration
    // Only iterations that last get an "in flight" status.json: fast loops skip the extra write.
    const cancelInFlight = clock.setTimeout(() => record.writeStatus(status), IN_FLIGHT_STATUS_DELAY_MS)
    run.emit({
      type: 'iteration_started',
      iteration,
      ...(config.maxIterations !== undefined ? { maxIterations: config.maxIterations } : {})
    })
    const outcome = await runIteration(run.env, memory, iteration).finally(cancelInFlight)
    memory = { ...outcome.memory, history: recentHistory(outcome.memory.history, outcome.record) }
    const trip = guard.trip
    if (outcome.interrupted && trip) run.noteEnforcement(trip)

    last = outcome.record
    tally.add(outcome.record)
    if (outcome.record.verification) status.verification = outcome.record.verification
    run.warnRefused()
    delete status.inFlight
    updateCost(status, meter, tally)
    const agent = outcome.record.agent
    const limit = agent?.failure?.kind === 'usage_limit' && !agent.killedBy ? agent.failure : undefined
    const limitWait = limit ? usageLimitWait(limit, clock.now(), run.deadline) : undefined
    // Behind the proxy the cap fails closed: what it cannot read is charged its worst case, and said.
    for (const line of proxied?.warnings() ?? []) run.warn(line)
    if (!proxied && agent?.usage.cost_source === 'unknown' && config.maxCostUsd !== undefined) {
      status.cost.enforced = false
      run.warn(
        `the agent's cost is unknown (preset ${agent.preset} saw no cost in its output): ` +
          `the $${config.maxCostUsd} budget cannot be enforced; time and iteration limits still apply; to enforce it, ${costFix(agent.preset)}`
      )
    }
    record.appendIteration(outcome.record)
    record.writeStatus(status)
    run.emit({ type: 'iteration_finished', record: outcome.record })

    // An iteration lost to a usage limit says nothing about the agent or the work: the breaker skips it.
    const end: IterationEnd = {
      iteration,
      record: outcome.record,
      success: outcome.success,
      interrupted: outcome.interrupted,
      ...(outcome.crash !== undefined ? { crash: outcome.crash } : {}),
      ...(limitWait && 'stop' in limitWait ? { limitStop: limitWait.stop } : {}),
      limitWaited: limitWait !== undefined && 'waitMs' in limitWait
    }
    const signals = limitWait || outcome.success ? undefined : breakerSignals(outcome.record)
    const tripped = signals ? breaker.record(signals) : undefined
    const stop = decideStop(end, run.budgets(iteration, last), tripped)
    if (outcome.crash !== undefined) status.error = outcome.crash
    if (stop?.reason === 'circuit_open' && tripped) status.breaker = tripped
    if (stop) return stop
    if (limitWait && 'waitMs' in limitWait) {
      run.warn(limitWait.detail)
      run.emit({ type: 'waiting', seconds: Math.round(limitWait.waitMs / 1000) })
      await guard.sleep(limitWait.waitMs, ports.finishSignal)
    } else if (config.delaySeconds > 0) {
      run.emit({ type: 'waiting', seconds: config.delaySeconds })
      await guard.sleep(config.delaySeconds * 1000, ports.finishSignal)
    }
  }
}
