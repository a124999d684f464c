// Step 4, loop: the loop runs contained (contain.ts), its events rendered into the log and followed by the
// tracking comment; its failing gates become annotations.
import { closeSync, openSync, readFileSync, readSync, statSync } from 'node:fs'
import path from 'node:path'
import * as core from '@actions/core'
import { outputRoomOf, runLoop, verifyDelivered, type Delivered, type LoopResult } from '../loop/index.js'
import { chainRun } from './chain.js'
import { annotationsFor, type CheckOutput } from '../report/annotations.js'
import { formatDuration } from '../report/run-report.js'
import { runLoopContained } from './contain.js'
import { actionLogger } from './log.js'
import { deliveryMarginSeconds, type RunPlan } from './plan.js'
import type { Prepared } from './prepare.js'

/** Bytes of a failing gate's log read for annotations (its end, where the failures are summed up). */
const ANNOTATION_LOG_BYTES = 2 * 1024 * 1024

export interface Looped {
  result: LoopResult
  /** The tracking comment's follower has seen every event of the loop. */
  followed: () => Promise<void>
}

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

/** Runs the loop; `verifyOnly` (the deliver job) runs no agent, only the gates on a clean checkout of a commit. */
export async function loop(prepared: Prepared, signal: AbortSignal, verifyOnly?: Delivered): Promise<Looped> {
  const { plan, workTree, isolated, tracking, clients } = prepared
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
  // A resumed run goes on from where the chain stands.
  const { resumed, context } = prepared
  const start = resumed && {
    status: resumed.status,
    jobs: resumed.continuation.jobs,
    run: chainRun(context),
    recordDir: resumed.dir
  }
  const { result, warnings } = await runLoopContained(
    plan,
    workTree,
    isolated,
    { signal, emit, outputRoom },
    verifyOnly
      ? (config, ports) => verifyDelivered(config, ports, verifyOnly)
      : (config, ports) => runLoop(config, ports, start)
  ).finally(logger.close)
  for (const warning of warnings) core.warning(warning)
  if (!result.success && result.stopReason !== 'cancelled') annotateFailures(result, plan)
  return { result, followed: async () => follow?.settled() }
}
