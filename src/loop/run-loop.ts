// runLoop: iterations until a stop reason, with budgets enforced by force and the record written as it goes.
import { ended } from '../text/ended.js'
import { costFix, priceFromTable } from '../agents/index.js'
import { keepHeapSmall, runProcess } from '../proc/index.js'
import { fileProblem, RalphError } from '../ralph/index.js'
import { StagnationBreaker } from './breaker.js'
import { ModelProxyError, startAgentProxy, withoutModelKeys, type AgentBehindProxy } from '../proxy/agent.js'
import { egressPrefix, egressUnavailable, restrictEgress, type EgressRules } from '../proxy/egress.js'
import { startRefusalListener, type RefusalListener } from '../proxy/refusals.js'
import { HOST_PORT, hostAllowed, MOST_REFUSALS_NAMED } from '../proxy/server.js'
import { createCostMeter } from '../agents/cost-meter.js'
import { LoopGuard, systemClock, type Trip } from './guard.js'
import { decideStop, missingSetupHint, type Budgets, type IterationEnd, type Stop } from './stop.js'
import {
  runBaseline,
  runIteration,
  type IterationMemory,
  type LoopEnvironment,
  type LoopPhase,
  pinRalphFiles,
  recentHistory
} from './iteration.js'
import { DEFAULT_KILL_GRACE_MS } from './defaults.js'
import { protectionOf } from './protect/index.js'
import { protectedWorkBeforeTheLoop } from './protected-at-start.js'
import { RunRecord } from './record.js'
import { agentPresetFor, costWarningBefore, openWorkTree } from './setup.js'
import { startingStatus } from './status.js'
import { recogniseGates, startPackageJson } from './test-count.js'
import { usageLimitWait } from './usage-limit.js'
import { runSetup, verifyCommit, verifyMode } from './verify.js'
import type { CostMeter } from '../agents/cost-meter.js'
import type {
  ChainJob,
  CostSource,
  IterationRecord,
  LoopConfig,
  LoopEvent,
  LoopPorts,
  LoopResult,
  LoopStatus,
  StopReason
} from './types.js'

/** An iteration still running after this long is named in status.json (`inFlight`). */
const IN_FLIGHT_STATUS_DELAY_MS = 200
/** Refused destinations warned one by one; the rest in one line (the record names up to MOST_REFUSALS_NAMED). */
const REFUSALS_WARNED = 10

const iso = (ms: number): string => new Date(ms).toISOString()
/** The stop reasons that mean the loop reached its goal. */
const SUCCESS: StopReason[] = ['all_checks_passed', 'completed', 'already_green']

/**
 * One refused destination, with what would let it through: allowed-hosts for TCP, nothing short of open for
 * UDP. A host allowed-hosts already names was refused because the agent went there directly, not through the
 * proxy: adding it again would not help. Plain HTTP is never forwarded.
 */
function refusalWarning(network: string, target: string, allowedHosts: string[]): string {
  if (target.startsWith('http://'))
    return `agent-network ${network} refused the agent a plain-HTTP request to ${target} through the proxy: it forwards HTTPS (CONNECT) to allowed-hosts, never plain HTTP`
  if (target.startsWith('udp '))
    return `agent-network ${network} refused the agent a datagram to ${target.slice(4)}: only agent-network open lets UDP out (hosts in allowed-hosts need no DNS lookup: the proxy resolves them)`
  const host = HOST_PORT.exec(target)?.[1]
  return host !== undefined && hostAllowed(host, allowedHosts)
    ? `agent-network ${network} refused the agent a direct connection to ${target}: ${host} is in allowed-hosts, reached only through the proxy's CONNECT (the HTTPS_PROXY in the agent's environment)`
    : `agent-network ${network} refused the agent a connection to ${target}: add it to allowed-hosts (agent-network allow-list) if the agent needs it`
}

/**
 * Runs the loop to a stop reason and answers the whole result (also in `<recordDir>/status.json`).
 * Throws RalphError only for settings that cannot work (nothing has run then); everything that goes
 * wrong once the loop has started ends it with a stop reason and a finished record.
 */
export async function runLoop(config: LoopConfig, ports: LoopPorts = {}): Promise<LoopResult> {
  const clock = ports.clock ?? systemClock
  const emit = (event: LoopEvent): void => {
    try {
      ports.emit?.(event)
    } catch {
      // A front-end's rendering problem must not stop the loop.
    }
  }
  const startedAt = clock.now()
  // Each iteration forks programs: a heap that grew with the loop made its RSS, and every fork, grow too.
  keepHeapSmall()
  // A loop that goes on from an earlier job: what it did counts here (iterations, dollars, the breaker).
  const carry = config.carry
  const carried = carry?.status
  const carriedUsd = carried?.cost.totalUsd ?? 0

  const preset = agentPresetFor(config)
  const { workspace, isRepo, workTree, ralph, worktree } = await openWorkTree(config, ports, startedAt)
  // Pinned before anything else starts: a ralph file that leads out of the work tree ends the run here.
  let ralphFiles: ReturnType<typeof pinRalphFiles>
  try {
    ralphFiles = pinRalphFiles(ralph, workTree)
  } catch (error) {
    await workspace.dispose().catch(() => undefined)
    throw error
  }

  // Behind the model proxy the agent holds a placeholder key and the meter counts what crossed the wire.
  let proxied: AgentBehindProxy | undefined
  if (config.modelProxy) {
    try {
      proxied = await startAgentProxy(config.ralph.agentArgv, process.env, config.modelProxy, {
        // The proxy's own cap is what the chain has left.
        maxCostUsd: config.maxCostUsd === undefined ? undefined : Math.max(0, config.maxCostUsd - carriedUsd)
      })
    } catch (error) {
      await workspace.dispose().catch(() => undefined)
      if (error instanceof ModelProxyError) throw new RalphError(error.message)
      throw error
    }
    const agentEnv = config.agentEnv ?? {}
    config = {
      ...config,
      agentEnv: {
        ...agentEnv,
        set: { ...agentEnv.set, ...proxied.agentEnv.set },
        remove: [...(agentEnv.remove ?? []), ...(proxied.agentEnv.remove ?? [])]
      }
    }
  }
  const meter = withCarriedCost(
    proxied?.meter ?? ports.costMeter ?? createCostMeter(priceFromTable),
    carriedUsd,
    carried?.cost.source
  )
  const deadline = config.maxTimeSeconds !== undefined ? startedAt + config.maxTimeSeconds * 1000 : undefined
  const guard = new LoopGuard({ clock, signal: ports.signal, deadline, meter, maxCostUsd: config.maxCostUsd })
  const stopWatchingCost = meter.onChange(() =>
    emit({
      type: 'cost_update',
      spentUsd: meter.spentUsd(),
      runningUsd: meter.runningUsd(),
      source: meter.source(),
      ...(config.maxCostUsd !== undefined ? { maxUsd: config.maxCostUsd } : {})
    })
  )

  const status = startingStatus({
    ralph: { name: config.ralph.name, file: config.ralph.file, dir: config.ralph.dir },
    projectRoot: config.projectRoot,
    workTree,
    recordDir: config.recordDir,
    startedAt: iso(startedAt),
    budgets: {
      ...(config.maxIterations !== undefined ? { maxIterations: config.maxIterations } : {}),
      ...(config.maxTimeSeconds !== undefined ? { maxTimeSeconds: config.maxTimeSeconds } : {}),
      ...(config.maxCostUsd !== undefined ? { maxCostUsd: config.maxCostUsd } : {}),
      ...(config.agentTimeoutSeconds !== undefined ? { agentTimeoutSeconds: config.agentTimeoutSeconds } : {})
    }
  })
  if (worktree) status.worktree = worktree
  if (carry && carried) {
    status.iterations = [...carried.iterations]
    if (carried.baseline) status.baseline = carried.baseline
    status.chain = { jobs: carry.jobs }
    const { maxUsd: _earlierCap, ...cost } = carried.cost
    status.cost = { ...cost, ...(config.maxCostUsd !== undefined ? { maxUsd: config.maxCostUsd } : {}) }
    if (!carried.cost.enforced) status.cost.enforced = false
  }
  if (proxied) status.modelProxy = { upstream: proxied.upstream, requests: 0, refused: [] }
  const tally = new TokenTally(carried?.iterations)
  let record: RunRecord
  try {
    record = RunRecord.create(
      config.recordDir,
      status,
      carry?.recordDir !== undefined
        ? {
            dir: carry.recordDir,
            jobs: carry.jobs,
            run: carry.run,
            sectionsAt: carry.status.progressSectionsAt
          }
        : undefined
    )
  } catch (error) {
    guard.dispose()
    stopWatchingCost()
    await proxied?.close()
    await workspace.dispose().catch(() => undefined)
    throw new RalphError(`The record folder ${config.recordDir} cannot be written: ${fileProblem(error)}.`)
  }

  const warn = (message: string): void => {
    if (status.warnings.includes(message)) return
    status.warnings.push(message)
    emit({ type: 'warning', message })
  }
  // What the work tree held that is never delivered (a nested repository, .gitmodules, a large file): once each.
  const warnRefused = (): void => {
    for (const line of workspace.refused?.() ?? []) {
      if (status.notDelivered?.includes(line)) continue
      ;(status.notDelivered ??= []).push(line)
      warn(line)
    }
  }

  // The agent's uid may reach only the proxy (model-only, allow-list): iptables, where the agent is its own user.
  let egress: EgressRules | undefined
  let refusals: RefusalListener | undefined
  const network = config.modelProxy?.network ?? 'model-only'
  if (proxied && network !== 'open') {
    const { agentUid: uid, agentPrivilege: privilege } = config.modelProxy ?? {}
    const why =
      uid === undefined ? 'the agent does not run as its own user' : egressUnavailable(uid, privilege)
    if (why === undefined && uid !== undefined) {
      try {
        // The agent's other TCP and UDP (v4, v6) is named (from conntrack) as it is refused.
        refusals = await startRefusalListener(proxied.proxy, egressPrefix(privilege))
        egress = await restrictEgress({
          uid,
          proxyPort: proxied.proxy.port,
          refusalPort: refusals.port,
          prefix: egressPrefix(privilege)
        })
        if (egress.ipv6Unnamed)
          warn(
            `the agent's IPv6 connections are refused but not named (this kernel has no IPv6 nat: ${egress.ipv6Unnamed})`
          )
      } catch (error) {
        warn(`egress is not enforced: the rules could not be set (${(error as Error).message})`)
      }
    } else
      warn(
        `egress is not enforced (agent-network ${network}): ${why}; the proxy still holds the model key and meters every token`
      )
  }

  const gated = config.checks.length > 0
  const verify = verifyMode(config, isRepo)
  if (verify) status.verify = verify
  let phase: LoopPhase | undefined
  let env: LoopEnvironment = {
    config,
    ralph,
    workTree,
    workspace,
    ralphFiles,
    isRepo,
    preset,
    guard,
    meter,
    record,
    clock,
    emit,
    runProcess: proxied
      ? withoutModelKeys(ports.runProcess ?? runProcess, proxied.proxy.placeholderKey, proxied.proxyEnv)
      : (ports.runProcess ?? runProcess),
    ...(ports.agentEnvironment ? { agentEnvironment: ports.agentEnvironment } : {}),
    ...(ports.outputRoom ? { outputRoom: ports.outputRoom } : {}),
    killGraceMs: config.killGraceMs ?? DEFAULT_KILL_GRACE_MS,
    onPhase: now => (phase = now),
    ...(verify ? { verify } : {}),
    ...(ports.verify ? { verifyPorts: ports.verify } : {})
  }
  let memory: IterationMemory = { history: recentHistory(carried?.iterations ?? []), trackTree: gated }
  // Without gates the loop keeps the reference's semantics: no stagnation rules, only the agent's denied
  // permissions (a loop whose agent may not use its tools can only burn money).
  const breaker = new StagnationBreaker(
    gated
      ? config.breaker
      : {
          noProgress: 0,
          sameFailure: 0,
          agentFailures: 0,
          ...(config.breaker.permissionDenials !== undefined
            ? { permissionDenials: config.breaker.permissionDenials }
            : {})
        }
  )
  // The breaker's counts carry over: the earlier iterations are told to it again, as the loop told them.
  for (const earlier of carried?.iterations ?? []) {
    const signals = breakerSignals(earlier)
    if (signals) breaker.record(signals)
  }
  if (!isRepo && gated)
    warn('the work tree is not a git repository: progress cannot be seen, the no-progress rule is off')
  const costUnknown = costWarningBefore(config, preset, proxied !== undefined)
  if (costUnknown) warn(costUnknown)

  let stop: Stop | undefined
  // The iterations themselves are the record's (a file): the loop keeps the last one.
  let last = carried?.iterations.at(-1)
  /** Where the budgets stand now, after `ran` iterations. */
  const budgets = (ran: number): Budgets => ({
    maxIterations: config.maxIterations,
    maxCostUsd: config.maxCostUsd,
    ran,
    last,
    trip: guard.trip,
    timeSpent: guard.timeSpent(),
    costSpent: guard.costSpent(),
    finishAsked: ports.finishSignal?.aborted === true,
    gated,
    stopOnError: config.stopOnError
  })
  // What was running when the guard fired: what its enforcement killed.
  let killedPhase: LoopPhase | undefined
  guard.signal.addEventListener('abort', () => (killedPhase = phase), { once: true })
  /** How fast the guard's kill was: from the crossing to the killed tree being gone. */
  const noteEnforcement = (trip: Trip): void => {
    status.enforcement = {
      cause: trip.cause,
      crossedAt: iso(trip.at),
      latencyMs: Math.max(0, Math.round(clock.now() - trip.at))
    }
    if (killedPhase) status.enforcement.killed = killedPhase
  }

  emit({ type: 'loop_started', status })
  try {
    if (isRepo) {
      const head = await workspace.headSha()
      const tree = await workspace.treeHash()
      // A continued loop starts where the chain started: the change, the protected paths and the clean
      // checkout's base are the chain's, and its progress is measured from the tree it was handed.
      const commit = carried ? carried.start.commit : head
      status.start.tree = carried?.start.tree ?? tree
      if (commit !== undefined) status.start.commit = commit
      warnRefused()
      memory = {
        ...memory,
        startTree: status.start.tree,
        previousTree: tree,
        ...(commit !== undefined ? { startCommit: commit } : {})
      }
      if (config.protect && commit !== undefined) {
        const protection = await protectionOf(config, workTree, commit)
        if (protection) {
          env = { ...env, protection }
          status.protected = {
            setting: config.protect,
            rules: protection.rules,
            paths: protection.paths.size,
            ...(protection.guardrails !== undefined ? { guardrails: protection.guardrails } : {})
          }
          // Only where the put-back will run (before gates), and on the tree a person handed it, not a chain's.
          const refusal =
            gated && !carried && !ports.verifyOnly ? await protectedWorkBeforeTheLoop(protection) : undefined
          if (refusal) {
            status.error = refusal
            stop = { reason: 'agent_error', detail: refusal }
          }
        }
      }
      record.writeStatus(status)
    }
    if (gated) {
      const packageJson = await startPackageJson(workspace, workTree, status.start.commit)
      const testRunners = recogniseGates(
        config.checks.map(check => check.run),
        packageJson
      )
      memory = { ...memory, testRunners }
      const uncounted = config.checks.flatMap((check, i) => {
        const found = testRunners[i]
        return found.runner === undefined ? [{ check: check.name, why: found.why }] : []
      })
      if (uncounted.length > 0) status.uncounted = uncounted
    }
    // What a fresh clone needs before its gates can pass (npm ci): before the baseline, as in the clean checkout.
    if (!stop && (config.setup ?? []).length > 0 && !ports.verifyOnly) {
      // A continued loop's checkout is fresh: setup runs again, its logs beside the earlier job's.
      const setupDir = carry
        ? record.logsDir(`job-${String(carry.jobs.length + 1).padStart(3, '0')}`)
        : record.iterationDir(0)
      const setup = await runSetup(env, workTree, setupDir)
      status.setup = setup.runs
      record.appendSetup(setup.runs)
      record.writeStatus(status)
      emit({ type: 'setup_finished', setup: setup.runs })
      const failed = setup.runs.find(run => !run.passed)
      if (setup.interrupted) {
        if (guard.trip) noteEnforcement(guard.trip)
      } else if (failed) {
        status.error = `the setup command ${failed.run} failed`
        stop = {
          reason: 'agent_error',
          detail: `the setup command \`${failed.run}\` failed (${failed.timedOut ? 'timed out' : ended(failed)}) before any agent ran: its output is in ${failed.log}`
        }
      }
    }
    if (!stop && ports.verifyOnly)
      stop = await verifyAlone(env, memory, status, ports.verifyOnly, () => budgets(0))
    if (carried?.baseline) {
      // The baseline is the chain's: not run again; the last gates the agent saw are the earlier job's.
      const lastChecks = carried.iterations.at(-1)?.checks ?? carried.baseline.checks
      memory = { ...memory, baseline: carried.baseline, previousChecks: lastChecks }
    } else if (carried && carried.iterations.length > 0)
      memory = { ...memory, previousChecks: carried.iterations.at(-1)?.checks ?? [] }
    if (!stop && gated && config.baseline !== false && !carried) {
      const gates = await runBaseline(env, memory)
      const baseline = gates.baseline
      memory = gates.memory
      status.baseline = baseline
      record.appendBaseline(baseline)
      record.writeStatus(status)
      emit({ type: 'baseline_finished', baseline })
      // Interrupted, the baseline's enforcement is noted here; the check before iteration 1 stops the loop.
      if (baseline.verdict === 'interrupted' && guard.trip) noteEnforcement(guard.trip)
      else if (baseline.verdict === 'green' && config.skipIfGreen)
        stop = {
          reason: 'already_green',
          detail: 'every check passed before any agent ran (skip-if-green), so no agent ran'
        }
    }
    for (let iteration = (carried?.iterations.length ?? 0) + 1; !stop; iteration++) {
      stop = decideStop(undefined, budgets(iteration - 1))
      if (stop) break

      status.inFlight = iteration
      // Only iterations that last get an "in flight" status.json: fast loops skip the extra write.
      const cancelInFlight = clock.setTimeout(() => record.writeStatus(status), IN_FLIGHT_STATUS_DELAY_MS)
      emit({
        type: 'iteration_started',
        iteration,
        ...(config.maxIterations !== undefined ? { maxIterations: config.maxIterations } : {})
      })
      const outcome = await runIteration(env, memory, iteration).finally(cancelInFlight)
      memory = { ...outcome.memory, history: recentHistory(outcome.memory.history, outcome.record) }
      const trip = guard.trip
      if (outcome.interrupted && trip) noteEnforcement(trip)

      last = outcome.record
      tally.add(outcome.record)
      if (outcome.record.verification) status.verification = outcome.record.verification
      warnRefused()
      delete status.inFlight
      updateCost(status, meter, tally)
      const agent = outcome.record.agent
      const limit = agent?.failure?.kind === 'usage_limit' && !agent.killedBy ? agent.failure : undefined
      const limitWait = limit ? usageLimitWait(limit, clock.now(), deadline) : undefined
      // Behind the proxy the cap fails closed: what it cannot read is charged its worst case, and said.
      for (const line of proxied?.warnings() ?? []) warn(line)
      if (!proxied && agent?.usage.cost_source === 'unknown' && config.maxCostUsd !== undefined) {
        status.cost.enforced = false
        warn(
          `the agent's cost is unknown (preset ${agent.preset} saw no cost in its output): ` +
            `the $${config.maxCostUsd} budget cannot be enforced; time and iteration limits still apply; to enforce it, ${costFix(agent.preset)}`
        )
      }
      record.appendIteration(outcome.record)
      record.writeStatus(status)
      emit({ type: 'iteration_finished', record: outcome.record })

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
      stop = decideStop(end, budgets(iteration), tripped)
      if (outcome.crash !== undefined) status.error = outcome.crash
      if (stop?.reason === 'circuit_open' && tripped) status.breaker = tripped
      if (stop) break
      if (limitWait && 'waitMs' in limitWait) {
        warn(limitWait.detail)
        emit({ type: 'waiting', seconds: Math.round(limitWait.waitMs / 1000) })
        await guard.sleep(limitWait.waitMs, ports.finishSignal)
      } else if (config.delaySeconds > 0) {
        emit({ type: 'waiting', seconds: config.delaySeconds })
        await guard.sleep(config.delaySeconds * 1000, ports.finishSignal)
      }
    }
  } catch (error) {
    // A bug or an environment failure (git broke, the disk is full): finish the record all the same.
    status.error = (error as Error).message
    stop = { reason: 'agent_error', detail: `Run crashed: ${(error as Error).message}` }
  } finally {
    guard.dispose()
    stopWatchingCost()
    await workspace.dispose().catch(() => undefined)
    for (const problem of (await egress?.remove()) ?? [])
      warn(`the egress rules were not all removed: ${problem}`)
    await refusals?.close()
    if (proxied) {
      await proxied.close()
      status.modelProxy = {
        upstream: proxied.upstream,
        requests: proxied.proxy.requests.length,
        refused: [...proxied.proxy.refused],
        ...(proxied.proxy.refusedUnnamed > 0 ? { refusedUnnamed: proxied.proxy.refusedUnnamed } : {}),
        ...(proxied.proxy.refusedRequests.length > 0
          ? { refusedRequests: [...proxied.proxy.refusedRequests] }
          : {})
      }
      for (const line of proxied.warnings()) warn(line)
      for (const target of proxied.proxy.refused.slice(0, REFUSALS_WARNED))
        warn(refusalWarning(network, target, config.modelProxy?.allowedHosts ?? []))
      const more = [
        ...(proxied.proxy.refused.length > REFUSALS_WARNED
          ? [
              `${proxied.proxy.refused.length - REFUSALS_WARNED} more destination(s), named in status.json (modelProxy.refused)`
            ]
          : []),
        ...(proxied.proxy.refusedUnnamed > 0
          ? [
              `${proxied.proxy.refusedUnnamed} connection(s) or datagram(s) counted only, not named (past the first ${MOST_REFUSALS_NAMED}, or more at once than the lookups kept up with) (modelProxy.refusedUnnamed)`
            ]
          : [])
      ]
      if (more.length > 0) warn(`agent-network ${network} refused the agent ${more.join(' and ')}`)
    }
  }

  const finishedAt = clock.now()
  const final: Stop = stop ?? { reason: 'agent_error', detail: 'the loop ended without a stop reason' }
  const result: LoopResult = {
    ...status,
    iterations: record.iterations(),
    state: 'finished',
    stopReason: final.reason,
    stopDetail: final.detail,
    finishedAt: iso(finishedAt),
    durationMs: Math.round(finishedAt - startedAt),
    success: SUCCESS.includes(final.reason)
  }
  delete result.inFlight
  updateCost(result, meter, tally)
  if (carry) {
    const own: ChainJob = {
      run: carry.run,
      iterations: result.iterations.length - (carried?.iterations.length ?? 0),
      costUsd: Math.max(0, result.cost.totalUsd - carriedUsd),
      durationMs: result.durationMs,
      stopReason: result.stopReason
    }
    result.chain = { jobs: [...carry.jobs, own] }
  }
  await record.finish(result)
  emit({ type: 'stop', reason: result.stopReason, detail: result.stopDetail, result })
  return result
}

/** `verifyOnly`: the gates on a clean checkout of the commit, and the stop that verdict makes. */
async function verifyAlone(
  env: LoopEnvironment,
  memory: IterationMemory,
  status: LoopStatus,
  { commit, base }: { commit: string; base: string },
  budgets: () => Budgets
): Promise<Stop> {
  const { verification, failures } = await verifyCommit(env, 1, commit, base, env.verifyPorts, memory)
  status.verification = verification
  env.record.writeStatus(status)
  const short = commit.slice(0, 12)
  if (verification.verdict === 'passed')
    return { reason: 'all_checks_passed', detail: `every gate passed on a clean checkout of ${short}` }
  if (verification.verdict === 'interrupted')
    return (
      decideStop(undefined, budgets()) ?? {
        reason: 'cancelled',
        detail: `the clean checkout of ${short} was interrupted`
      }
    )
  return {
    reason: 'verify_failed',
    detail: `on a clean checkout of ${short}, ${failures.map(f => f.name).join(', ')} failed${missingSetupHint(verification)}`
  }
}

/**
 * What an iteration tells the breaker; undefined for one it skips: a crash, or a usage limit (which says
 * nothing about the agent or the work). The loop and a continued loop's replay read records the same way.
 */
function breakerSignals(record: IterationRecord): Parameters<StagnationBreaker['record']>[0] | undefined {
  const agent = record.agent
  if (record.error !== undefined) return undefined
  if (agent?.failure?.kind === 'usage_limit' && !agent.killedBy) return undefined
  return {
    progressed: record.progressed,
    failureFingerprint: record.failureFingerprint,
    agentFailed: agent !== undefined && !agent.success,
    deniedTools: agent?.permissionDenials?.map(denial => denial.tool) ?? []
  }
}

const SOURCE_RANK = { metered: 0, reported: 1, estimated: 2, unknown: 3 } as const

/** The meter with an earlier job's dollars already spent: the caps and the totals count the whole chain. */
function withCarriedCost(meter: CostMeter, usd: number, source: CostSource | undefined): CostMeter {
  if (usd <= 0 && source === undefined) return meter
  return {
    spentUsd: () => usd + meter.spentUsd(),
    runningUsd: () => meter.runningUsd(),
    source: () => {
      const own = meter.source()
      return source !== undefined && SOURCE_RANK[source] > SOURCE_RANK[own] ? source : own
    },
    beginRun: () => meter.beginRun(),
    observe: usage => meter.observe(usage),
    endRun: final => meter.endRun(final),
    onChange: listener => meter.onChange(listener),
    ...(meter.budgetRefusal ? { budgetRefusal: () => meter.budgetRefusal?.() } : {})
  }
}

/** The iterations' tokens, added up as each finishes: summing them all after every iteration grew with the loop. */
class TokenTally {
  readonly tokens = { input: 0, output: 0, cache_read: 0, cache_write: 0 }
  agentRan = false

  constructor(earlier: readonly IterationRecord[] = []) {
    for (const record of earlier) this.add(record)
  }

  add(record: IterationRecord): void {
    const usage = record.agent?.usage
    if (!usage) return
    this.agentRan = true
    this.tokens.input += usage.input
    this.tokens.output += usage.output
    this.tokens.cache_read += usage.cache_read
    this.tokens.cache_write += usage.cache_write
  }
}

function updateCost(status: LoopStatus, meter: CostMeter, tally: TokenTally): void {
  status.cost.totalUsd = meter.spentUsd()
  status.cost.source = tally.agentRan ? meter.source() : 'unknown'
  status.cost.tokens = { ...tally.tokens }
}
