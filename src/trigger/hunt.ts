// Nightly bug hunts are idempotent: a ralph keeps at most one open pull request, on its own branch
// (`ralph/<name>`, the action's default), and a run that finds it continues that branch and updates the PR
// instead of opening another. `max-open-prs` caps the hunts' open PRs across the repository, so a matrix
// fan-out cannot flood it. (A failed hunt's issue: github/hunt-report.ts.)
import type { Octokit } from '../github/client.js'
import { isOwnWork, type TokenActor } from '../github/own-work.js'
import { PULL_REQUEST_MARKER } from '../report/pr-body.js'
import type { Run } from './types.js'

/** A hunt: a run that no issue or pull request asked for (schedule, workflow_dispatch, push). */
export const isHunt = (trigger: Run): boolean =>
  ['schedule', 'workflow_dispatch', 'push'].includes(trigger.event) &&
  trigger.issueNumber === undefined &&
  trigger.pr === undefined

export interface RalphPull {
  number: number
  url: string
  headRef: string
  headSha: string
  baseRef: string
  title: string
  updatedAt: string
}

export interface HuntTarget {
  owner: string
  repo: string
  ralphName: string
  /** The `branch` input when the workflow sets one; default `ralph/<name>`. */
  branch?: string
  /**
   * The account the action opens pull requests with: only a pull request it opened (and marked) is
   * continued, never a person's on the same branch.
   */
  actor: TokenActor
}

export type HuntPlan =
  /** An open PR of this ralph exists: continue its branch (fetch it, do not recreate it) and update it. */
  | { kind: 'continue'; branch: string; pull: RalphPull }
  /** No open PR: start the branch fresh from the base. `openPulls`: the hunts' open PRs (when capped). */
  | { kind: 'new'; branch: string; openPulls?: number }
  /** At the cap and nothing to continue: the run ends without running an agent. */
  | { kind: 'capped'; reason: string; openPulls: RalphPull[] }
  /** The branch has an open pull request the action did not open: it is not taken over; nothing runs. */
  | { kind: 'not-ours'; reason: string; pull: RalphPull }

/** The branch a ralph's hunts work on: the action's default branch for a ralph. */
export const huntBranch = (ralphName: string): string => `ralph/${ralphName}`

// Branches of `/ralph` runs on issues are a person's request, not a hunt: not counted against the cap.
const ISSUE_BRANCH = /^ralph\/issue-\d+$/

/**
 * The open pull requests on this ralph's hunt branch (in this repository), newest first: `own` the one the
 * action opened (its author is the token's actor, its body carries the marker), `other` one it did not.
 */
export async function findOpenRalphPull(
  octokit: Octokit,
  target: HuntTarget
): Promise<{ own?: RalphPull; other?: RalphPull }> {
  const branch = target.branch ?? huntBranch(target.ralphName)
  const pulls = await octokit.paginate(octokit.rest.pulls.list, {
    owner: target.owner,
    repo: target.repo,
    state: 'open',
    // GitHub needs the owner: prefix, or it ignores the filter and lists every PR.
    head: `${target.owner}:${branch}`,
    per_page: 100
  })
  const onBranch = pulls
    .filter(p => p.head.ref === branch && sameRepo(p.head.repo?.full_name, target))
    .sort((a, b) => (a.updated_at < b.updated_at ? 1 : -1))
  const own = onBranch.find(p => isOwnWork(p, target.actor, PULL_REQUEST_MARKER))
  const other = onBranch.find(p => !isOwnWork(p, target.actor, PULL_REQUEST_MARKER))
  return { ...(own ? { own: toRalphPull(own) } : {}), ...(other ? { other: toRalphPull(other) } : {}) }
}

/** Every open pull request of a hunt in the repository (same-repository heads under `ralph/`). */
export async function openHuntPulls(
  octokit: Octokit,
  target: { owner: string; repo: string }
): Promise<RalphPull[]> {
  const pulls = await octokit.paginate(octokit.rest.pulls.list, {
    owner: target.owner,
    repo: target.repo,
    state: 'open',
    per_page: 100
  })
  return pulls
    .filter(
      p =>
        p.head.ref.startsWith('ralph/') &&
        !ISSUE_BRANCH.test(p.head.ref) &&
        sameRepo(p.head.repo?.full_name, target)
    )
    .map(toRalphPull)
}

/**
 * What tonight's hunt does: continue its open PR, start a new branch, or stop at the cap. `maxOpenPrs`
 * undefined = no cap. Continuing never counts against the cap (it opens nothing).
 */
export async function planHunt(
  octokit: Octokit,
  target: HuntTarget & { maxOpenPrs?: number }
): Promise<HuntPlan> {
  const branch = target.branch ?? huntBranch(target.ralphName)
  const { own, other } = await findOpenRalphPull(octokit, target)
  if (own) return { kind: 'continue', branch: own.headRef, pull: own }
  // Someone else's work on the hunt's branch: continuing it would present their commits as the loop's.
  if (other)
    return {
      kind: 'not-ours',
      reason:
        `pull request #${other.number} on ${branch} was not opened by this action (its author is not the ` +
        `account the action opens pull requests with, or it lacks the action's marker), so the hunt does not ` +
        `take it over: close it, or move its work to another branch`,
      pull: other
    }
  if (target.maxOpenPrs === undefined) return { kind: 'new', branch }
  const open = await openHuntPulls(octokit, target)
  if (open.length >= target.maxOpenPrs)
    return {
      kind: 'capped',
      reason:
        `${open.length} hunt pull request${open.length === 1 ? ' is' : 's are'} open ` +
        `(${open.map(p => `#${p.number}`).join(', ') || 'none'}) and max-open-prs is ${target.maxOpenPrs}: ` +
        `review or close one to let ${target.ralphName} open another`,
      openPulls: open
    }
  return { kind: 'new', branch, openPulls: open.length }
}

function sameRepo(fullName: string | undefined, target: { owner: string; repo: string }): boolean {
  return (fullName ?? '').toLowerCase() === `${target.owner}/${target.repo}`.toLowerCase()
}

interface ListedPull {
  number: number
  html_url: string
  title: string
  updated_at: string
  head: { ref: string; sha: string }
  base: { ref: string }
}

function toRalphPull(p: ListedPull): RalphPull {
  return {
    number: p.number,
    url: p.html_url,
    headRef: p.head.ref,
    headSha: p.head.sha,
    baseRef: p.base.ref,
    title: p.title,
    updatedAt: p.updated_at
  }
}
