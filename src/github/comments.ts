// Every comment the action posts carries a hidden line with a key of its own, so a POST whose answer was
// lost (a reset, a timeout, a 5xx after the work was done) is found among the issue's comments and reused,
// instead of being posted a second time.
import { randomUUID } from 'node:crypto'
import { recoverBy, type Octokit } from './client.js'

export interface CommentTarget {
  owner: string
  repo: string
  issueNumber: number
}

export interface PostedComment {
  id: number
  html_url: string
  body?: string
}

/** The hidden line that makes a comment findable after a lost answer: one key per post. */
export const onceMarker = (key: string): string => `<!-- ralph-action:once ${key} -->`

/** GitHub's clock may differ from the runner's: look back this far for a comment just posted. */
const CLOCK_SKEW_MS = 10 * 60_000

/** Posts `body` (with its hidden key) on the issue or pull request, exactly once. */
export async function postComment(
  octokit: Octokit,
  target: CommentTarget,
  body: string
): Promise<PostedComment> {
  const marker = onceMarker(randomUUID())
  const where = { owner: target.owner, repo: target.repo, issue_number: target.issueNumber }
  const since = new Date(Date.now() - CLOCK_SKEW_MS).toISOString()
  const { data } = await octokit.rest.issues.createComment({
    ...where,
    body: `${body}\n\n${marker}`,
    request: recoverBy(async () => {
      const recent = await octokit.paginate(octokit.rest.issues.listComments, {
        ...where,
        since,
        per_page: 100
      })
      return recent.find(c => c.body?.endsWith(marker))
    })
  })
  return data
}
