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
  | { kind: 'continue'; branch: string; pull: RalphPull; strangers: RalphPull[] }
  /** No open PR: start the branch fresh from the base. `openPulls`: the hunts' open PRs (when capped). */
  | { kind: 'new'; branch: string; openPulls?: number; strangers: RalphPull[] }
  /** At the cap and nothing to continue: the run ends without running an agent. */
  | { kind: 'capped'; reason: string; openPulls: RalphPull[] }

/** The branch a ralph's hunts work on: the action's default branch for a ralph. */
export const huntBranch = (ralphName: string): string => `ralph/${ralphName}`

// Branches of `/ralph` runs on issues (and their own suffixed ones) are a person's request, not a hunt: not counted against the cap.
const ISSUE_BRANCH = /^ralph\/issue-\d+(\.\d+)?$/

// How many suffixed branches (`<branch>.2`…) are tried past strangers' pull requests before giving up.
const MAX_SUFFIX = 20

/** The open pull requests on `branch` (in this repository), newest first, split into the action's own and the others. */
async function pullsOn(
  octokit: Octokit,
  target: { owner: string; repo: string; actor: TokenActor },
  branch: string
): Promise<{ own?: RalphPull; other?: RalphPull }> {
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

/** The open pull requests on this ralph's hunt branch: `own` the one the action opened, `other` one it did not. */
export function findOpenRalphPull(
  octokit: Octokit,
  target: HuntTarget
): Promise<{ own?: RalphPull; other?: RalphPull }> {
  return pullsOn(octokit, target, target.branch ?? huntBranch(target.ralphName))
}

/**
 * The branch the action works on when it wants `wanted` (`ralph/<name>`, `ralph/issue-<N>`, `ralph/pr-<N>`):
 * `wanted` itself, unless an open pull request on it is a stranger's; then `<wanted>.2`, `.3`… (a dot, which
 * no ralph name holds). A stranger's pull request is never updated, pushed onto or continued: it is
 * answered in `strangers`, for the summary. `pull` is the action's own open pull request on the branch.
 */
export async function ownBranch(
  octokit: Octokit,
  target: { owner: string; repo: string; actor: TokenActor },
  wanted: string
): Promise<{ branch: string; pull?: RalphPull; strangers: RalphPull[] }> {
  const strangers: RalphPull[] = []
  for (let n = 1; n <= MAX_SUFFIX; n++) {
    const branch = n === 1 ? wanted : `${wanted}.${n}`
    const { own, other } = await pullsOn(octokit, target, branch)
    // The action's own pull request wins: a stranger's beside it on the same head is left alone.
    if (own) return { branch, pull: own, strangers }
    if (!other) return { branch, strangers }
    strangers.push(other)
  }
  throw new Error(
    `${wanted} and ${MAX_SUFFIX - 1} suffixed branches all carry pull requests this action did not open: close some of them`
  )
}

/** What the summary says of strangers' pull requests that a run's branch was moved away from. */
export function strangersNote(wanted: string, branch: string, strangers: RalphPull[]): string | undefined {
  if (strangers.length === 0) return undefined
  const list = strangers.map(p => `#${p.number} (${p.headRef})`).join(', ')
  return `${wanted} carries a pull request this action did not open (${list}): it was left as it is, and the loop works on ${branch} instead`
}

/** Every open pull request of a hunt in the repository that the action opened (same-repository heads under `ralph/`). */
export async function openHuntPulls(
  octokit: Octokit,
  target: { owner: string; repo: string; actor: TokenActor }
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
        sameRepo(p.head.repo?.full_name, target) &&
        isOwnWork(p, target.actor, PULL_REQUEST_MARKER)
    )
    .map(toRalphPull)
}

/**
 * What tonight's hunt does: continue its open PR, start a new branch, or stop at the cap. `maxOpenPrs`
 * undefined = no cap. Continuing never counts against the cap (it opens nothing). A stranger's pull request
 * on the hunt's branch moves the hunt to a branch of its own (ownBranch).
 */
export async function planHunt(
  octokit: Octokit,
  target: HuntTarget & { maxOpenPrs?: number }
): Promise<HuntPlan> {
  const { branch, pull, strangers } = await ownBranch(
    octokit,
    target,
    target.branch ?? huntBranch(target.ralphName)
  )
  if (pull) return { kind: 'continue', branch: pull.headRef, pull, strangers }
  if (target.maxOpenPrs === undefined) return { kind: 'new', branch, strangers }
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
  return { kind: 'new', branch, openPulls: open.length, strangers }
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
