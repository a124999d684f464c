// What the action made itself, told apart from what people made: its pull requests, its failure reports,
// its commits. A marker in a body is text anyone can write, so it is never enough alone: the author must be
// the account the action's token acts as. GitHub answers `GET /user` for a personal access token; it refuses
// an installation token (the job's GITHUB_TOKEN, an App's token) with 403, and such a token always acts as
// an App's bot account (GITHUB_TOKEN as github-actions[bot]), which no person can author as: only an App an
// admin installed can. So for those the author must be a bot.
import type { Octokit } from './client.js'

/** Who a token acts as: a user's login, or an App's bot (whose login the token cannot ask for). */
export type TokenActor = { kind: 'user'; login: string } | { kind: 'app' }

/** Asks GitHub who `octokit`'s token acts as. Throws when the token is refused altogether (401). */
export async function tokenActor(octokit: Octokit): Promise<TokenActor> {
  try {
    const { data } = await octokit.rest.users.getAuthenticated()
    return data.type === 'Bot' ? { kind: 'app' } : { kind: 'user', login: data.login }
  } catch (error) {
    if ((error as { status?: number }).status === 403) return { kind: 'app' }
    throw error
  }
}

/** An account as the API shows it on a pull request or an issue. */
export interface Author {
  login?: string
  type?: string
}

/** Whether `author` is the account the token acts as (for an installation token: any App's bot). */
export function isTokenActor(author: Author | null | undefined, actor: TokenActor): boolean {
  if (!author?.login) return false
  if (actor.kind === 'user') return author.login.toLowerCase() === actor.login.toLowerCase()
  return author.type === 'Bot'
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
