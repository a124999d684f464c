// What a run delivers for its loop's outcome, decided once: push or not, and which pull request. The delivery
// (deliver.ts) carries it out; the check before any agent runs (can-deliver.ts) asks what it may need.
import type { LoopResult } from '../loop/index.js'
import type { OnFailure } from './inputs.js'

/** What decides the delivery: the loop's outcome and the inputs. */
export interface DeliveryFacts {
  stopReason: LoopResult['stopReason']
  success: boolean
  /** The person's pull request whose own branch the loop works on. */
  pr?: number
  /** The branch's last commit is the one the remote already had. */
  addedNoCommits: boolean
  openPr: boolean
  onFailure: OnFailure
  /** The draft input. */
  draft: boolean
  branch: string
}

/** Push the branch, then leave the pull requests alone, push onto the person's one, or open/update ours. */
export type DeliveryDecision =
  { push: false; skipped: string } | { push: true; pullRequest: 'none' | 'onto-pr' | 'open'; draft: boolean }

export function decideDelivery(facts: DeliveryFacts): DeliveryDecision {
  const { pr, success, branch } = facts
  if (facts.stopReason === 'already_green')
    return {
      push: false,
      skipped: 'every gate passed before any agent ran, so there was nothing to do and nothing was pushed'
    }
  // A person's pull request (a /ralph comment on it, or a pull_request run) gets verified work only.
  if (pr !== undefined && !success)
    return {
      push: false,
      skipped: `the gates did not pass, so nothing was pushed onto pull request #${pr}'s branch (on-failure applies to the action's own branches only)`
    }
  if (pr !== undefined && facts.addedNoCommits)
    return { push: false, skipped: `the loop added no commits, so pull request #${pr} is left as it was` }
  // Success delivers when open-pr says so; a failure as on-failure says (push, or push and a draft).
  const wantPush = success ? facts.openPr : facts.onFailure !== 'none'
  const wantPr = success ? facts.openPr : facts.onFailure === 'draft-pr'
  if (!wantPush)
    return {
      push: false,
      skipped: success
        ? `open-pr is false, so nothing was pushed: the work is on the local branch ${branch} and in the run record`
        : 'on-failure is none, so nothing was pushed: the work is on the local branch and in the run record'
    }
  return {
    push: true,
    pullRequest: !wantPr ? 'none' : pr !== undefined ? 'onto-pr' : 'open',
    draft: facts.draft || !success
  }
}
