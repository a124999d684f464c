// Two-job mode: the agent's job (`mode: agent`, read permissions only) hands its work over as a delivery
// artifact, a git bundle of the loop's commits and the loop's result; the deliver job (`mode: deliver`, which
// runs no agent) takes it over. Everything in the artifact is data from a job the agent ran in: the deliver job
// decides the branch, the base, the trigger and what protects the repository itself, and checks the bundle
// against them before anything of it is pushed.
// This file is the manifest's format, read by both sides: pack.ts (the agent job's) and receive.ts (the deliver job's).
import { safeArtifactName, type UnpackRules } from '../../github/artifacts.js'
import { STOP_WORDS, type LoopResult } from '../../loop/index.js'
import type { RunPlan } from '../plan.js'
import type { Planned } from '../steps/types.js'

export const HANDOVER_FILE = 'delivery.json'
export const BUNDLE_FILE = 'delivery.bundle'
/** The most a manifest may weigh: the loop's result with its iterations, never its logs. */
export const MOST_HANDOVER_BYTES = 32 * 1024 * 1024
/** The most a delivery's bundle may weigh (or twice max-file-size, when more): the loop's new objects only. */
const MOST_BUNDLE_BYTES = 256 * 1024 * 1024

/** What a delivery artifact may hold: its manifest and its bundle, each bounded, and nothing else. */
export function deliveryRules(maxFileBytes: number): UnpackRules {
  const bundle = Math.max(MOST_BUNDLE_BYTES, 2 * maxFileBytes)
  return {
    most: name => (name === HANDOVER_FILE ? MOST_HANDOVER_BYTES : name === BUNDLE_FILE ? bundle : undefined),
    total: MOST_HANDOVER_BYTES + bundle,
    entries: 2,
    strict: true
  }
}

/** delivery.json: what the agent's job did, and the commits it made (in the bundle beside it). */
export interface Handover {
  version: 1
  /** owner/repo, and the run and attempt that made it: the deliver job takes only its own run's. */
  repository: string
  runId: string
  runAttempt: string
  ralph: string
  branch: string
  base: string
  /** The loop's start commit: the bundle's one prerequisite. */
  start: string
  /** The commit to deliver (the bundle's one ref); absent when the loop made none. */
  head?: string
  /** The loop's result: stop reason, iterations, cost, the gates' verdict on a clean checkout. */
  result: LoopResult
  // The deliver job acts on none of the next three (notes is only checked to be a list): they are there for its
  // record, which keeps a copy of the manifest (keepHandover).
  /** The name of the agent job's run record artifact. */
  record?: string
  /** Why the agent's job found nothing to hand over, in a sentence. */
  skipped?: string
  /** The agent job's notes on its delivery (the trigger's). */
  notes: string[]
  /** What started the run, as the agent's job saw it: the deliver job works it out again and compares. */
  trigger: TriggerFacts
}

/** The facts of a run's trigger that decide where its work goes. */
export interface TriggerFacts {
  event: string
  issue?: number
  comment?: number
  pullRequest?: number
  hunt: boolean
}

export function triggerFacts(planned: Pick<Planned, 'plan' | 'hunt' | 'context'>): TriggerFacts {
  const trigger = planned.plan.trigger
  return {
    event: planned.context.eventName,
    ...(trigger?.issueNumber !== undefined ? { issue: trigger.issueNumber } : {}),
    ...(trigger?.commentId !== undefined ? { comment: trigger.commentId } : {}),
    ...(planned.plan.pr ? { pullRequest: planned.plan.pr.number } : {}),
    hunt: planned.hunt
  }
}

export const factsLine = (f: TriggerFacts): string =>
  [
    f.event,
    f.issue !== undefined ? `#${f.issue}` : undefined,
    f.comment !== undefined ? `comment ${f.comment}` : undefined,
    f.pullRequest !== undefined ? `pull request #${f.pullRequest}` : undefined,
    f.hunt ? 'a hunt' : undefined
  ]
    .filter(Boolean)
    .join(', ')

/** `ralph-delivery-<ralph>-<run id>-<attempt>`. */
export function deliveryArtifactName(plan: RunPlan): string {
  return safeArtifactName(
    `ralph-delivery-${plan.ralph.name}-${plan.context.runId}-${plan.context.runAttempt}`
  )
}

/** A handover as the deliver job received it: the manifest, and the folder holding the bundle. */
export interface Received {
  handover: Handover
  dir: string
}

const isText = (value: unknown): value is string => typeof value === 'string' && value.length > 0
const SHA = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/
/** A ralph, branch, repository or run as the manifest names it: nothing a log line or markdown could read as more. */
const NAME = /^[A-Za-z0-9._/-]{1,200}$/

/** The manifest's shape, as far as the deliver job reads it: a one-line problem, or undefined. */
export function malformed(value: unknown): string | undefined {
  const h = value as Partial<Handover> | null
  if (typeof h !== 'object' || h === null) return 'it is not a JSON object'
  if (h.version !== 1) return `its version is ${JSON.stringify(h.version)}, not 1`
  for (const key of ['repository', 'runId', 'runAttempt', 'ralph', 'branch', 'base'] as const)
    if (!isText(h[key]) || !NAME.test(h[key])) return `${key} is missing or not a name`
  if (!isText(h.start) || !SHA.test(h.start)) return 'start is not a commit id'
  if (h.head !== undefined && (!isText(h.head) || !SHA.test(h.head))) return 'head is not a commit id'
  const r = h.result as Partial<LoopResult> | undefined
  if (typeof r !== 'object' || r === null) return 'result is missing'
  if (typeof r.success !== 'boolean' || !isText(r.stopReason) || !(r.stopReason in STOP_WORDS))
    return 'result has no stop reason'
  if (!Array.isArray(r.iterations) || typeof r.cost !== 'object' || r.cost === null)
    return 'result has no iterations or cost'
  if (!Number.isFinite(r.cost.totalUsd) || !Number.isFinite(r.durationMs))
    return 'result has no cost or duration in numbers'
  if (
    !r.iterations.every(
      it =>
        typeof it === 'object' &&
        it !== null &&
        Number.isSafeInteger(it.iteration) &&
        Number.isFinite(it.durationMs) &&
        Array.isArray(it.checks)
    )
  )
    return 'result has an iteration that is not one'
  if (!Array.isArray(h.notes)) return 'notes is missing'
  const t = h.trigger as Partial<TriggerFacts> | undefined
  if (typeof t !== 'object' || t === null || !isText(t.event) || typeof t.hunt !== 'boolean')
    return 'trigger is missing'
  for (const key of ['issue', 'comment', 'pullRequest'] as const)
    if (t[key] !== undefined && !Number.isSafeInteger(t[key])) return `trigger.${key} is not a number`
  return undefined
}
