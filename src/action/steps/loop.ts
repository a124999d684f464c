// Step 4, loop: the loop runs contained (contain.ts), its events rendered into the log and followed by the
// tracking comment; its failing gates become annotations.
import { closeSync, openSync, readFileSync, readSync, statSync } from 'node:fs'
import path from 'node:path'
import * as core from '@actions/core'
import { outputRoomOf, runLoop, verifyDelivered, type LoopResult, type LoopStart } from '../../loop/index.js'
import { annotationsFor, type CheckOutput } from '../../report/annotations.js'
import { formatDuration } from '../../report/run-report.js'
import { runLoopContained } from '../contain.js'
import { actionLogger } from '../log.js'
import { deliveryMarginSeconds, type RunPlan } from '../plan.js'
import type { Looped, Prepared } from './types.js'

/** Bytes of a failing gate's log read for annotations (its end, where the failures are summed up). */
const ANNOTATION_LOG_BYTES = 2 * 1024 * 1024

function readTail(file: string, bytes: number): string {
  const size = statSync(file).size
  if (size <= bytes) return readFileSync(file, 'utf8')
  const fd = openSync(file, 'r')
  try {
    const buffer = Buffer.alloc(bytes)
    readSync(fd, buffer, 0, bytes, size - bytes)
    return buffer.toString('utf8')
  } finally {
    closeSync(fd)
  }
}

/** Annotations for the gates that failed in the last iteration. */
function annotateFailures(result: LoopResult, plan: RunPlan): void {
  const last = result.iterations.at(-1)
  if (!last) return
  const failing: CheckOutput[] = []
  for (const check of last.checks.filter(c => !c.passed)) {
    let output = check.tail
    try {
      output = readTail(path.join(result.recordDir, check.log), ANNOTATION_LOG_BYTES)
    } catch {
      // The tail in the result is enough to annotate from.
    }
    failing.push({ name: check.name, output, cwd: plan.projectRoot })
  }
  for (const a of annotationsFor(failing, plan.workspace))
    core.error(a.message, {
      ...(a.title !== undefined ? { title: a.title } : {}),
      file: a.file,
      startLine: a.line,
      ...(a.column !== undefined ? { startColumn: a.column } : {})
    })
}

/** What a job starts its loop from: nothing (a fresh loop), a chain's carried state, or a commit to verify. */
export interface LoopFrom {
  /** A resumed job: the loop goes on from the chain's earlier jobs (chain/resume.ts carryOf). */
  carry?: LoopStart
  /** The deliver job: no agent runs, only the gates on a clean checkout of `commit`. */
  verify?: { commit: string; base: string }
}

/**
 * Runs the loop contained. THE one call of the loop engine from a job (through contain.ts): what a job starts
 * from is an argument here, never a field written into the plan.
 */
export async function loop(prepared: Prepared, signal: AbortSignal, from: LoopFrom = {}): Promise<Looped> {
  const { plan, workTree, isolated, tracking, clients } = prepared
  const verifyOnly = from.verify
  const follow = tracking?.follow()
  const logger = actionLogger(plan.config, undefined, {
    artifactName: plan.artifactName,
    ...(verifyOnly ? { verifyOnly: verifyOnly.commit } : {})
  })
  const emit: typeof logger.emit = event => {
    follow?.emit(event)
    logger.emit(event)
  }
  // Delivery's retries end at max-time; the loop stops the delivery margin before it (plan.ts).
  const maxTime = plan.inputs.maxTimeSeconds
  if (maxTime !== undefined) {
    clients.budget.deadline = Date.now() + maxTime * 1000
    const kept = deliveryMarginSeconds(maxTime) * 1000
    core.info(
      `max-time is ${formatDuration(maxTime * 1000)}: the loop stops ${formatDuration(kept)} before it, to deliver in time (push, pull request, record, with their retries).`
    )
  }
  // The runner reads our stdout through a pipe: when it is behind, the agent waits instead of our memory.
  const outputRoom = outputRoomOf(process.stdout)
  const { result, warnings } = await runLoopContained(
    plan,
    workTree,
    isolated,
    { signal, emit, outputRoom },
    verifyOnly
      ? (config, ports) => verifyDelivered(config, ports, verifyOnly)
      : (config, ports) => runLoop(config, ports, from.carry)
  ).finally(logger.close)
  for (const warning of warnings) core.warning(warning)
  if (!result.success && result.stopReason !== 'cancelled') annotateFailures(result, plan)
  return { result, followed: async () => follow?.settled() }
}
