// What the action made itself, told apart from what people made: its pull requests, its failure reports,
// its commits. A marker in a body is text anyone can write, so it is never enough alone: the author must be
// the exact account the action's token acts as. GitHub answers `GET /user` for a personal access token; it
// refuses an installation token (the job's GITHUB_TOKEN, an App's token) with 403, and such a token acts as
// one App's bot account (GITHUB_TOKEN as github-actions[bot]): the configured bot login names it. Any other
// bot (Dependabot, another App) is a stranger, whatever its body says.
import type { Octokit } from './client.js'

/** The account GITHUB_TOKEN acts as. */
export const GITHUB_ACTIONS_BOT = 'github-actions[bot]'

/** Who a token acts as: a user's login, or an App's bot login (read, or configured when it cannot be). */
export type TokenActor = { kind: 'user'; login: string } | { kind: 'app'; login: string }

/**
 * Asks GitHub who `octokit`'s token acts as; an installation token, which may not ask, acts as `botLogin`.
 * Throws when the token is refused altogether (401).
 */
export async function tokenActor(octokit: Octokit, botLogin = GITHUB_ACTIONS_BOT): Promise<TokenActor> {
  try {
    const { data } = await octokit.rest.users.getAuthenticated()
    return data.type === 'Bot' ? { kind: 'app', login: data.login } : { kind: 'user', login: data.login }
  } catch (error) {
    if ((error as { status?: number }).status === 403) return { kind: 'app', login: botLogin }
    throw error
  }
}

/** An account as the API shows it on a pull request or an issue. */
export interface Author {
  login?: string
  type?: string
}

/** Whether `author` is exactly the account the token acts as (an App's bot must also be a bot account). */
export function isTokenActor(author: Author | null | undefined, actor: TokenActor): boolean {
  if (!author?.login || author.login.toLowerCase() !== actor.login.toLowerCase()) return false
  return actor.kind === 'user' || author.type === 'Bot'
}

/** The action's own work: opened by the token's actor, and its body carries the action's marker. */
export function isOwnWork(
  item: { user?: Author | null; body?: string | null },
  actor: TokenActor,
  marker: string
): boolean {
  return isTokenActor(item.user, actor) && (item.body ?? '').includes(marker)
}

/** A branch's tip as GitHub has it now, and whether a protection rule covers the branch. */
export interface BranchTip {
  sha: string
  committerEmail: string
  protected: boolean
}

/** `GET /repos/{owner}/{repo}/branches/{branch}` (read access is enough); undefined when it does not exist. */
export async function branchTip(
  octokit: Octokit,
  repo: { owner: string; repo: string },
  branch: string
): Promise<BranchTip | undefined> {
  try {
    const { data } = await octokit.rest.repos.getBranch({ ...repo, branch })
    return {
      sha: data.commit.sha,
      committerEmail: data.commit.commit.committer?.email ?? '',
      protected: data.protected
    }
  } catch (error) {
    if ((error as { status?: number }).status === 404) return undefined
    throw error
  }
}
