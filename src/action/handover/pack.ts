// Two-job mode, the agent job's side: the loop's commits as a git bundle and its result as delivery.json, uploaded
// as the delivery artifact; this job writes nothing to GitHub.
import { rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import * as core from '@actions/core'
import { createBundle } from '../../git/bundle.js'
import { GitRepo } from '../../git/index.js'
import type { LoopResult } from '../../loop/index.js'
import { undelivered, type DeliveryReport } from '../../report/run-report.js'
import { scratch } from '../scratch.js'
import { restoreCheckout, restoreIdentity } from '../steps/checkout.js'
import { branchMovedDuringLoop, protectedPathsDelivered } from '../steps/deliver.js'
import type { Prepared } from '../steps/types.js'
import { uploadArtifact } from '../upload.js'
import { BUNDLE_FILE, deliveryArtifactName, HANDOVER_FILE, triggerFacts, type Handover } from './format.js'

/** What the agent's job hands over instead of delivering: the delivery report, and the artifact's name. */
export interface HandedOver {
  delivery: DeliveryReport
  artifact?: string
}

async function packHandover(prepared: Prepared, result: LoopResult): Promise<HandedOver> {
  const { plan, workTree, branch } = prepared
  const delivery: DeliveryReport = {
    branch: branch.branch,
    pushed: false,
    problems: [],
    notes: [...(plan.trigger?.notes ?? [])]
  }
  const head = await new GitRepo(workTree).commitOf('HEAD')
  const start = result.start.commit ?? branch.startSha
  if (head) delivery.commit = head
  const verified = result.verification?.verdict === 'passed' ? result.verification.commit : undefined
  const problem =
    (await branchMovedDuringLoop(workTree, branch.branch, result)) ??
    (await protectedPathsDelivered(workTree, result)) ??
    (result.success && verified !== undefined && head !== verified
      ? `${branch.branch} is at ${head?.slice(0, 12) ?? 'no commit'}, not at ${verified.slice(0, 12)}, the commit verified on a clean checkout`
      : undefined)
  if (problem) {
    delivery.problems.push(`nothing was handed over: ${problem}`)
    return { delivery }
  }
  const carries = head !== undefined && head !== start
  const handover: Handover = {
    version: 1,
    repository: `${plan.context.repo.owner}/${plan.context.repo.repo}`,
    runId: String(plan.context.runId),
    runAttempt: String(plan.context.runAttempt),
    ralph: plan.ralph.name,
    branch: branch.branch,
    base: branch.base,
    start,
    ...(carries ? { head } : {}),
    result,
    record: plan.artifactName,
    ...(carries ? {} : { skipped: `the loop made no commit on top of ${start.slice(0, 12)}` }),
    notes: delivery.notes,
    trigger: triggerFacts(prepared)
  }
  const dir = scratch('ralph-delivery-')
  try {
    if (carries) await createBundle(workTree, path.join(dir, BUNDLE_FILE), branch.branch, start, head)
    writeFileSync(path.join(dir, HANDOVER_FILE), JSON.stringify(handover, null, 2))
    const upload = await uploadArtifact(dir, deliveryArtifactName(plan), {
      retentionDays: plan.inputs.retentionDays ?? 1,
      ...(prepared.clients.budget.deadline !== undefined
        ? { deadline: prepared.clients.budget.deadline }
        : {})
    })
    if ('failed' in upload) {
      delivery.problems.push(`the delivery artifact could not be uploaded (${upload.failed})`)
      return { delivery }
    }
    delivery.skipped = `this is the agent's job of two: the deliver job checks the work and delivers it (artifact ${upload.uploaded.name})`
    core.info(
      `Handed over ${carries ? `${branch.branch} at ${head.slice(0, 12)}` : 'the run, with no commit,'} as artifact ${upload.uploaded.name}: the deliver job checks it and delivers it.`
    )
    return { delivery, artifact: upload.uploaded.name }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** `mode: agent`'s delivery: the handover (nothing when the run was cancelled), then the checkout given back. */
export async function handOver(
  prepared: Prepared,
  result: LoopResult,
  cancelled: boolean
): Promise<HandedOver> {
  const { workTree, branch, identity } = prepared
  let handed: HandedOver
  if (cancelled)
    handed = {
      delivery: undelivered(branch.branch, { skipped: 'the run was cancelled, so nothing was handed over' })
    }
  else
    try {
      handed = await packHandover(prepared, result)
    } catch (error) {
      handed = {
        delivery: undelivered(branch.branch, { problem: `the handover failed: ${(error as Error).message}` })
      }
    }
  await restoreIdentity(identity)
  await restoreCheckout(workTree, branch)
  return handed
}
