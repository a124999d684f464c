// Two-job mode, the deliver job's side: the delivery artifact downloaded and its manifest read (receive), then
// checked against what this job decides itself (checkHandover) before anything of it is pushed; the result it
// reports made inert (deliveredResult).
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import * as core from '@actions/core'
import {
  blobSizes,
  isAncestor,
  MOST_DELIVERED_COMMITS,
  rangeCommits,
  readBundleHeader,
  unbundleStrict
} from '../../git/bundle.js'
import { neutralizeWorkflowCommands } from '../../security/workflow-commands.js'
import { RemoteRetryingRepo } from '../../git/index.js'
import { downloadInto, UnpackRefused } from '../../github/artifacts.js'
import { parseBoundedJson } from '../../text/json.js'
import type { LoopResult } from '../../loop/index.js'
import { protectedInCommit, revertsLine } from '../../loop/protect/index.js'
import { protectionOfRun } from '../../loop/protect-rules/index.js'
import { readRegularFile } from '../../ralph/tree-file.js'
import { DEFAULT_MAX_FILE_BYTES, megabytes } from '../../git/index.js'
import type { StepEnd, Step } from '../steps/ending.js'
import type { RunPlan } from '../plan.js'
import type { RunContext } from '../../trigger/context.js'
import { REMOTE } from '../steps/checkout.js'
import type { Planned, Prepared } from '../steps/types.js'
import { scratch } from '../scratch.js'
import { showPath } from '../../text/tree-path.js'
import { remoteGitRetry, retryTiming } from '../../github/retry.js'
import {
  BUNDLE_FILE,
  deliveryRules,
  factsLine,
  HANDOVER_FILE,
  malformed,
  MOST_HANDOVER_BYTES,
  triggerFacts,
  type Handover,
  type Received
} from './format.js'

export type { Received } from './format.js'

/** Fails the deliver step in one line (nothing was pushed). */
const refused = (line: string): { end: StepEnd } => ({
  end: { failure: { message: line }, summary: `❌ ${line}\n`, finished: true }
})

/** Which run made the handover, when it is not this one (another repository, run, or a later attempt). */
export function madeElsewhere(
  handover: Pick<Handover, 'repository' | 'runId' | 'runAttempt'>,
  context: Pick<RunContext, 'repo' | 'runId' | 'runAttempt'>
): string | undefined {
  const repository = `${context.repo.owner}/${context.repo.repo}`
  return handover.repository !== repository
    ? `repository ${handover.repository}`
    : handover.runId !== String(context.runId)
      ? `run ${handover.runId}`
      : // An earlier attempt's is this run's (a re-run of the deliver job alone); a later one's cannot be.
        !(Number(handover.runAttempt) >= 1 && Number(handover.runAttempt) <= Number(context.runAttempt))
        ? `attempt ${handover.runAttempt} of this run`
        : undefined
}

/**
 * Downloads the agent job's delivery artifact of this run and reads its manifest; ends the step (one line,
 * nothing pushed) when there is none, it cannot be read, or it is another run's.
 */
export async function receive(planned: Planned): Promise<Step<Received>> {
  const { inputs, context } = planned
  const name = inputs.delivery
  if (name === undefined)
    return refused(
      'There is no delivery to deliver: the agent job set no delivery output (it ended before its loop did; its log says why). Nothing was pushed.'
    )
  const dir = scratch('ralph-received-')
  try {
    const { DefaultArtifactClient } = await import('@actions/artifact')
    const { artifact } = await new DefaultArtifactClient().getArtifact(name)
    await downloadInto(artifact.id, dir, deliveryRules(inputs.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES))
  } catch (error) {
    rmSync(dir, { recursive: true, force: true })
    if (error instanceof UnpackRefused)
      return refused(`The delivery artifact ${name} was refused: ${error.message}. Nothing was pushed.`)
    return refused(
      `The delivery artifact ${name} could not be downloaded from this workflow run (${(error as Error).message.split('\n')[0]}): pass delivery: \${{ needs.<agent job>.outputs.delivery }}. Nothing was pushed.`
    )
  }
  let handover: Handover
  try {
    const parsed = parseBoundedJson(
      readRegularFile(path.join(dir, HANDOVER_FILE), MOST_HANDOVER_BYTES).toString('utf8')
    )
    const problem = malformed(parsed)
    if (problem) throw new Error(problem)
    handover = parsed as Handover
  } catch (error) {
    rmSync(dir, { recursive: true, force: true })
    return refused(
      `The delivery artifact ${name} holds no readable ${HANDOVER_FILE} (${(error as Error).message}). Nothing was pushed.`
    )
  }
  const repository = `${context.repo.owner}/${context.repo.repo}`
  const theirs = madeElsewhere(handover, context)
  if (theirs) {
    rmSync(dir, { recursive: true, force: true })
    return refused(
      `The delivery ${name} was made by ${theirs}, not by this run (${repository}, run ${context.runId}, attempt ${context.runAttempt}): a deliver job delivers only its own run's agent job. Nothing was pushed.`
    )
  }
  core.info(
    neutralizeWorkflowCommands(
      `Received ${name}: ${handover.ralph} on ${handover.branch}, ${handover.head ? `commit ${handover.head.slice(0, 12)} on top of ${handover.start.slice(0, 12)}` : 'no commit'}; the agent job's verdict: ${handover.result.stopReason}.`
    )
  )
  return { handover, dir }
}

/**
 * The recorded start must be where this job's branch starts: on the base branch as it is now, or (a continued
 * branch) the branch's own tip. A shallow checkout is deepened to find out.
 */
async function startIsHere(prepared: Prepared, start: string): Promise<boolean> {
  const { workTree, branch } = prepared
  if (start === branch.startSha) return true
  // A continued branch (a hunt's, a person's pull request's) goes on from its tip alone: a delivery built on
  // an older commit of it would drop what others pushed there since.
  if (branch.continued) return false
  const timing = retryTiming()
  const repo = new RemoteRetryingRepo(workTree, {
    retry: remoteGitRetry(timing, prepared.clients.budget),
    stallSeconds: timing.pushStallSeconds,
    log: message => core.info(message)
  })
  if (await isAncestor(workTree, start, branch.baseSha)) return true
  if (!(await repo.isShallow())) return false
  // A fetch that fails (after its retries) says so, rather than "not on the base".
  await repo.exec(['fetch', '--quiet', '--no-tags', '--unshallow', REMOTE, branch.base])
  return isAncestor(workTree, start, branch.baseSha)
}

/**
 * What the deliver job asks of a handover before anything of it is pushed: a problem in one line, or
 * undefined. On success the bundle's commits are in the object store (the head is then a commit there).
 */
export async function checkHandover(prepared: Prepared, received: Received): Promise<string | undefined> {
  const { handover, dir } = received
  const { plan, workTree, branch } = prepared
  const ours = factsLine(triggerFacts(prepared))
  if (factsLine(handover.trigger) !== ours)
    return `the delivery was made for ${factsLine(handover.trigger)}, but this run is for ${ours}`
  if (handover.branch !== branch.branch)
    return `the delivery is for the branch ${handover.branch}, but this run's branch is ${branch.branch}`
  if (handover.base !== branch.base)
    return `the delivery was made against ${handover.base}, but this run's base is ${branch.base}`
  const { start, head } = handover
  if (head === undefined) return undefined
  const bundle = path.join(dir, BUNDLE_FILE)
  let header: ReturnType<typeof readBundleHeader>
  try {
    header = readBundleHeader(bundle)
  } catch (error) {
    return `the delivery's bundle cannot be read: ${(error as Error).message}`
  }
  const ref = `refs/heads/${branch.branch}`
  const other = header.refs.find(r => r.name !== ref)
  if (other) return `the delivery's bundle carries ${other.name}: a delivery holds the one branch ${ref}`
  if (header.refs.length !== 1 || header.refs[0].oid !== head)
    return `the delivery's bundle does not hold ${ref} at ${head.slice(0, 12)}`
  if (header.prerequisites.length !== 1 || header.prerequisites[0] !== start)
    return `the delivery's bundle is not built on ${start.slice(0, 12)}, the commit its loop started from`
  if (!(await startIsHere(prepared, start)))
    return branch.continued
      ? `the delivery is built on ${start.slice(0, 12)}, not on ${branch.startSha.slice(0, 12)}, the tip of ${branch.branch} it continues`
      : `the delivery is built on ${start.slice(0, 12)}, which is not on ${branch.base}`
  try {
    await unbundleStrict(workTree, bundle, header, head)
  } catch (error) {
    return `the delivery's bundle was refused by git: ${(error as Error).message.split('\n')[0]}`
  }

  const commits = await rangeCommits(workTree, start, head)
  if (commits.length === 0)
    return `the delivery's head ${head.slice(0, 12)} adds no commit to ${start.slice(0, 12)}`
  if (commits.length > MOST_DELIVERED_COMMITS)
    return `the delivery carries more than ${MOST_DELIVERED_COMMITS} commits`
  let parent = start
  const blobs: { path: string; oid: string; commit: string }[] = []
  for (const commit of commits) {
    const short = commit.sha.slice(0, 12)
    if (commit.parents.length !== 1 || commit.parents[0] !== parent)
      return commit.parents.length > 1
        ? `the delivery's commit ${short} is a merge: a delivery is the loop's own commits, one on top of the other`
        : `the delivery's commit ${short} is not on top of ${parent.slice(0, 12)}`
    parent = commit.sha
    for (const change of commit.changes) {
      if (change.mode === '160000')
        return `the delivery's commit ${short} adds a gitlink (a submodule) at ${showPath(change.path)}: a delivery carries files only`
      // In any case: a checkout on a case-insensitive file system makes .GitHub/ the workflows' folder.
      const lower = change.path.toLowerCase()
      if (lower === '.github' || lower.startsWith('.github/'))
        return `the delivery's commit ${short} changes ${showPath(change.path)}: .github/ is never delivered from an agent's job`
      if (change.status !== 'D' && /^10[0-7]{4}$|^120000$/.test(change.mode))
        blobs.push({ path: change.path, oid: change.oid, commit: short })
    }
  }
  const most = plan.inputs.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES
  const sizes = await blobSizes(
    workTree,
    blobs.map(b => b.oid)
  )
  const large = blobs.find(b => (sizes.get(b.oid) ?? 0) > most)
  if (large)
    return `the delivery's commit ${large.commit} holds ${showPath(large.path)} (${megabytes(sizes.get(large.oid) ?? 0)}), over max-file-size (${megabytes(most)})`
  // What protects the repository is this job's to say: the ralph and the gates at the commit its branch starts
  // from, whatever older commit of the base the delivery was built on.
  const protection = plan.config.protect
    ? await protectionOfRun(plan.config, workTree, branch.startSha)
    : undefined
  if (protection) {
    const changed = await protectedInCommit(workTree, start, head, protection.rules, protection.guardrails)
    if (changed.length > 0) return `the delivery changes protected paths (${revertsLine(changed)})`
  }
  return undefined
}

/** The deliver job's record folder, holding the manifest it received (whatever it then decides). */
export function keepHandover(plan: RunPlan, received: Received): void {
  mkdirSync(plan.config.recordDir, { recursive: true })
  writeFileSync(path.join(plan.config.recordDir, HANDOVER_FILE), JSON.stringify(received.handover, null, 2))
}

/** A revert's reason as the deliver job shows it: one of the loop's own few words, or just `protected`. */
const REVERT_WHY = /^[a-z ,()-]{1,60}$/

/** Fields whose text the reports only ever show fenced or in a code cell (a gate's or an agent's output). */
const FENCED = new Set(['tail'])

/**
 * Every other string of the handed-over result made inert for a log line, a summary or a pull request: one line,
 * no workflow command (`::`), no mention, issue reference, link (nor an address GitHub would link), image, HTML
 * or code span (`@ # [ ] ! < > \`` and `://` go).
 * Gate names, warnings and the breaker's words are the agent job's to write; here they are only shown.
 */
export function defang(value: unknown, key?: string): unknown {
  if (typeof value === 'string')
    return key !== undefined && FENCED.has(key)
      ? value
      : value
          .replace(/[\r\n]+/g, ' ')
          .replace(/:{2,}/g, ':')
          .replace(/:\/\//g, ' ')
          .replace(/[@#[\]!<>`|]/g, '')
  if (Array.isArray(value)) return value.map(item => defang(item))
  if (typeof value === 'object' && value !== null)
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, defang(v, k)]))
  return value
}

/**
 * The result the deliver job reports, from the agent job's loop and this job's own verdict. Of the handover it
 * keeps what it could check the form of (the stop reason, the iterations and their numbers), its other text made
 * inert (`defang`); its stop detail, its verification and its reverts' words are this job's. `own`: the clean re-run here; `unverified`: why none could run.
 */
export function deliveredResult(
  theirs: LoopResult,
  own: LoopResult | undefined,
  unverified?: string
): LoopResult {
  const { verification: _claimed, ...rest } = defang(theirs) as LoopResult
  const iterations = rest.iterations.map(it => ({
    ...it,
    ...(it.reverts
      ? {
          reverts: it.reverts.map(r => ({
            path: String(r.path),
            why: REVERT_WHY.test(r.why) ? r.why : 'protected'
          }))
        }
      : {})
  }))
  const n = iterations.length
  const ran = `the agent job stopped (${theirs.stopReason}) after ${n} iteration${n === 1 ? '' : 's'}`
  const base: LoopResult = { ...rest, iterations, stopDetail: ran }
  if (unverified !== undefined)
    return { ...base, success: false, stopReason: 'verify_failed', stopDetail: `${ran}; ${unverified}` }
  if (!own) return base
  const merged: LoopResult = { ...base, ...(own.verification ? { verification: own.verification } : {}) }
  if (own.success) return { ...merged, stopDetail: `${own.stopDetail} in the deliver job; ${ran}` }
  return {
    ...merged,
    success: false,
    stopReason: own.stopReason === 'all_checks_passed' ? 'verify_failed' : own.stopReason,
    stopDetail: `the agent job's gates passed, but in the deliver job ${own.stopDetail}`
  }
}
