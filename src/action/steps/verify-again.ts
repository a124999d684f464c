// The deliver job's verdict: the agent job's is a claim. With gates, they run here again on a clean checkout of
// the handed-over head (`verify: tree` has no loop's tree to trust in this job), as a user apart from this job's
// token, or not at all; the result reported is the handover's made inert, with this job's verdict.
import * as core from '@actions/core'
import type { LoopResult } from '../../loop/index.js'
import type { Handover } from '../handover/format.js'
import { deliveredResult } from '../handover/receive.js'
import { saveState } from '../state.js'
import { loop } from './loop.js'
import type { Prepared } from './types.js'

export interface VerifiedAgain {
  result: LoopResult
  /** This job's own clean run of the gates, when one ran. */
  own?: LoopResult
}

/** `problem`: why the handover was refused (checkHandover); then no gate runs. */
export async function verifyAgain(
  prepared: Prepared,
  handover: Handover,
  problem: string | undefined,
  signal: AbortSignal
): Promise<VerifiedAgain> {
  const { plan } = prepared
  const reverify =
    !problem && handover.head !== undefined && handover.result.success && plan.config.checks.length > 0
  let own: LoopResult | undefined
  let unverified: string | undefined
  if (reverify && !prepared.isolated)
    unverified =
      "the deliver job ran no gate: it has no user of the agent's apart from its write token here (isolation), and the agent job's verdict alone is only a claim"
  else if (reverify && handover.head !== undefined && !signal.aborted) {
    core.info(`Verifying ${handover.head.slice(0, 12)} again, on a clean checkout in this job.`)
    // Protected paths come back from where this job's branch starts: what judges is this job's.
    own = (
      await loop(prepared, signal, { verify: { commit: handover.head, base: prepared.branch.startSha } })
    ).result
  }
  const result = deliveredResult(handover.result, own, unverified)
  if (!own && prepared.isolated) {
    // No gate runs here: the agent's user is given up at once (runLoopContained would have, after them).
    await prepared.isolated.release()
    saveState('isolation', '')
  }
  return { result, ...(own ? { own } : {}) }
}
