// Where the loop's work on a pull request goes. Anyone who can read a repository can open a pull request
// between two of its branches, so its head branch is not necessarily its author's: it may be the default
// branch, a protected one, or someone else's. The loop pushes onto the head branch only when that branch
// is the author's to give; otherwise it works on `ralph/pr-<N>` and proposes its work as a pull request
// into the head branch, so nothing lands without a review. A pull request a comment names is read here too:
// only an open one from this repository is worked on.
import type { Octokit } from '../github/client.js'
import { checkActor } from './permissions.js'
import { branchTip, isOwnWork, type TokenActor } from '../github/own-work.js'
import { PULL_REQUEST_MARKER } from '../report/pr-body.js'
import type { PullRef, Run, TriggerSettings } from './types.js'

export interface PullToWorkOn {
  owner: string
  repo: string
  number: number
  headRef: string
  /** The pull request's author and body (the action's own pull request is its to continue). */
  author: { login: string; type?: string }
  body: string
}

export type WorkBranch =
  /** The head branch is the author's: verified work is pushed onto it. */
  | { kind: 'push-onto' }
  /** It is not: the loop works on `branch` and opens a pull request into the head branch. */
  | { kind: 'propose'; branch: string; reason: string }
  | { kind: 'problem'; problem: string }

/** The branch a loop proposes from when a pull request's own branch is not to be pushed onto. */
export const proposalBranch = (number: number): string => `ralph/pr-${number}`

/**
 * Push onto the head branch only when all hold: it is not the default branch, no protection rule covers
 * it, and its pull request's author may write to the repository (so the branch is theirs), or the pull
 * request is the action's own. Each answer costs up to four reads; an API failure is a problem, never a yes.
 */
export async function workBranchFor(
  octokit: Octokit,
  pull: PullToWorkOn,
  options: { marker: string; actor?: () => Promise<TokenActor> }
): Promise<WorkBranch> {
  const repo = { owner: pull.owner, repo: pull.repo }
  const propose = (why: string): WorkBranch => ({
    kind: 'propose',
    branch: proposalBranch(pull.number),
    reason: `pull request #${pull.number}'s branch '${pull.headRef}' ${why}, so the loop works on ${proposalBranch(pull.number)} and proposes its work as a pull request into '${pull.headRef}'`
  })
  try {
    const { data } = await octokit.rest.repos.get(repo)
    if (data.default_branch === pull.headRef) return propose('is the default branch')
    const tip = await branchTip(octokit, repo, pull.headRef)
    if (!tip)
      return {
        kind: 'problem',
        problem: `pull request #${pull.number}'s branch '${pull.headRef}' no longer exists`
      }
    if (tip.protected) return propose('is protected')
  } catch (error) {
    const status = (error as { status?: number }).status
    return {
      kind: 'problem',
      problem: `pull request #${pull.number}'s branch '${pull.headRef}' could not be read${status ? ` (HTTP ${status})` : ''}`
    }
  }
  if (
    options.actor &&
    isOwnWork({ user: pull.author, body: pull.body }, await options.actor(), options.marker)
  )
    return { kind: 'push-onto' }
  const author = await checkActor(octokit, { ...repo, login: pull.author.login, allowedBots: [] })
  if (author.allowed) return { kind: 'push-onto' }
  return propose(
    `is not known to be its author's (${author.login} is not a person with write access to ${pull.owner}/${pull.repo})`
  )
}

/** A same-repository pull request, open, with what decides whose its branch is. */
export type OpenPull = PullRef & Pick<PullToWorkOn, 'author' | 'body'>

/** The pull request a `/ralph` comment was written on, read now: it must be open and not from a fork. */
export async function sameRepoPull(
  octokit: Octokit,
  settings: TriggerSettings,
  number: number
): Promise<OpenPull | { problem: string }> {
  let pull
  try {
    pull = (await octokit.rest.pulls.get({ owner: settings.owner, repo: settings.repo, pull_number: number }))
      .data
  } catch (error) {
    const status = (error as { status?: number }).status
    return { problem: `pull request #${number} could not be read${status ? ` (HTTP ${status})` : ''}` }
  }
  const full = `${settings.owner}/${settings.repo}`.toLowerCase()
  const headRepo = pull.head.repo?.full_name
  if (!headRepo || headRepo.toLowerCase() !== full)
    return {
      problem:
        `pull request #${number} comes from a fork (${headRepo ?? 'a deleted repository'}); a loop runs only ` +
        `on a branch of ${settings.owner}/${settings.repo}, never on code from a fork with this repository's tokens`
    }
  if (pull.state !== 'open')
    return { problem: `pull request #${number} is ${pull.merged ? 'merged' : 'closed'}` }
  return {
    number,
    headRef: pull.head.ref,
    headSha: pull.head.sha,
    baseRef: pull.base.ref,
    sameRepo: true,
    author: { login: pull.user.login, type: pull.user.type },
    body: pull.body ?? ''
  }
}

/**
 * Where the work on a same-repository pull request goes: onto its branch when that is its author's to give,
 * else onto `ralph/pr-<N>`, proposed into its branch (workBranchFor decides).
 */
export async function placeWork(
  octokit: Octokit,
  settings: TriggerSettings,
  pull: OpenPull
): Promise<Pick<Run, 'pr' | 'proposeTo' | 'branch' | 'base'> | { problem: string }> {
  const { author, body, ...pr } = pull
  const where = await workBranchFor(
    octokit,
    { owner: settings.owner, repo: settings.repo, number: pr.number, headRef: pr.headRef, author, body },
    { marker: PULL_REQUEST_MARKER, ...(settings.delivery ? { actor: settings.delivery.actor } : {}) }
  )
  if (where.kind === 'problem') return { problem: where.problem }
  if (where.kind === 'push-onto') return { pr, branch: pr.headRef }
  return {
    proposeTo: { number: pr.number, headRef: pr.headRef, reason: where.reason },
    branch: where.branch,
    base: pr.headRef
  }
}
