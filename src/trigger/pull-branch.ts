// Where the loop's work on a pull request goes. Anyone who can read a repository can open a pull request
// between two of its branches, so its head branch is not necessarily its author's: it may be the default
// branch, a protected one, or someone else's. The loop pushes onto the head branch only when that branch
// is the author's to give; otherwise it works on `ralph/pr-<N>` and proposes its work as a pull request
// into the head branch, so nothing lands without a review.
import type { Octokit } from '../github/client.js'
import { checkActor } from './permissions.js'
import { branchTip, isOwnWork, type TokenActor } from '../github/own-work.js'

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
