// Opens the loop's pull request, or updates the one already open for its branch: never a duplicate.
// Labels, reviewers and assignees follow, with the retry GitHub needs right after a pull request is created.
import { recoverBy, type Octokit } from './client.js'
import {
  GITHUB_API_ERRORS,
  errorText,
  isUnresolvedNode,
  pullRequestFailure,
  statusOf,
  PullRequestError,
  PULL_REQUEST_FAILURE
} from './errors.js'
import { MAX_PR_BODY_CHARS, PULL_REQUEST_MARKER } from '../report/pr-body.js'
import { isOwnWork, type Author, type TokenActor } from './own-work.js'

export type GitHubClient = Octokit

// GitHub's limit on a pull request's body: one definition, with the renderer that fits the body under it.
export { MAX_PR_BODY_CHARS }

export interface PullRequestOptions {
  owner: string
  repo: string
  /** The branch with the changes (a branch of `owner/repo` unless `headOwner` says otherwise). */
  head: string
  base: string
  title: string
  body: string
  draft?: boolean
  labels?: string[]
  /** Logins, and teams as `org/team`. */
  reviewers?: string[]
  assignees?: string[]
  /** Only meaningful for a head in a fork. */
  maintainerCanModify?: boolean
  /** Owner of the head repository when it is a fork; default `owner`. */
  headOwner?: string
  /**
   * The account the action delivers as: an open pull request on the head is updated only when this account
   * opened it and it carries the action's marker; anyone else's is left alone and the call fails.
   */
  ownedBy: TokenActor
  /** The 422 "Could not resolve to a node" retry: attempts in all (default 4) and the first delay (default 1 s). */
  retry?: { attempts?: number; baseDelayMs?: number }
  log?: (message: string) => void
}

export interface PullRequestResult {
  number: number
  url: string
  operation: 'created' | 'updated'
  nodeId: string
  draft: boolean
  /** Whether the body had to be cut to fit GitHub's limit. */
  bodyTruncated: boolean
  /** What did not work out but left the pull request in place (a label, a reviewer, an assignee, draft). */
  warnings: string[]
}

/** What delivery needs of a pull request it created or updated. */
type PullRef = { number: number; html_url: string; node_id: string; draft?: boolean }

export interface OpenPullRequest {
  number: number
  url: string
  nodeId: string
  title: string
  body: string | null
  head: string
  headSha: string
  base: string
  draft: boolean
  /** Who opened it. */
  user?: Author
}

/**
 * Finds the open pull request for `head` (and `base`, when given); the most recent if there are several.
 * `head` is a branch name; the filter GitHub needs (`owner:branch`) is built here.
 */
export async function findOpenPullRequest(
  octokit: GitHubClient,
  options: { owner: string; repo: string; head: string; base?: string; headOwner?: string }
): Promise<OpenPullRequest | undefined> {
  const headOwner = options.headOwner ?? options.owner
  const { data } = await octokit.rest.pulls.list({
    owner: options.owner,
    repo: options.repo,
    state: 'open',
    head: `${headOwner}:${options.head}`,
    ...(options.base ? { base: options.base } : {}),
    per_page: 100
  })
  // GitHub ignores a head filter it cannot parse and answers every PR: check what came back.
  const match = data.find(
    p =>
      p.head.ref === options.head &&
      (p.head.repo?.owner.login ?? p.head.user?.login ?? '').toLowerCase() === headOwner.toLowerCase() &&
      (!options.base || p.base.ref === options.base)
  )
  return match ? toOpenPullRequest(match) : undefined
}

/** Open pull requests whose head branch (in `owner/repo`) starts with `headPrefix`: a ralph's open PRs. */
export async function listOpenPullRequests(
  octokit: GitHubClient,
  options: { owner: string; repo: string; headPrefix: string; base?: string }
): Promise<OpenPullRequest[]> {
  const pulls = await octokit.paginate(octokit.rest.pulls.list, {
    owner: options.owner,
    repo: options.repo,
    state: 'open',
    ...(options.base ? { base: options.base } : {}),
    per_page: 100
  })
  return pulls
    .filter(
      p =>
        p.head.ref.startsWith(options.headPrefix) &&
        (p.head.repo?.owner.login ?? '').toLowerCase() === options.owner.toLowerCase()
    )
    .map(toOpenPullRequest)
}

function toOpenPullRequest(p: {
  number: number
  html_url: string
  node_id: string
  title: string
  body: string | null
  head: { ref: string; sha: string }
  base: { ref: string }
  draft?: boolean
  user?: { login: string; type: string } | null
}): OpenPullRequest {
  return {
    number: p.number,
    url: p.html_url,
    nodeId: p.node_id,
    title: p.title,
    body: p.body,
    head: p.head.ref,
    headSha: p.head.sha,
    base: p.base.ref,
    draft: p.draft ?? false,
    ...(p.user ? { user: { login: p.user.login, type: p.user.type } } : {})
  }
}

/**
 * Updates the open pull request for head → base (title and body), or creates it; then adds labels, reviewers
 * and assignees. Throws PullRequestError (with the fix in its message) for the known refusals.
 */
export async function openOrUpdatePullRequest(
  octokit: GitHubClient,
  options: PullRequestOptions
): Promise<PullRequestResult> {
  const log = options.log ?? (() => undefined)
  const { owner, repo, head, base } = options
  const headOwner = options.headOwner ?? owner
  const body = truncateBody(options.body)
  const bodyTruncated = body !== options.body
  if (bodyTruncated)
    log(`The pull request body has ${options.body.length} characters; it was cut to fit GitHub's limit.`)
  const warnings: string[] = []
  const context = { owner, repo, head, base }

  let pull: PullRef
  let operation: 'created' | 'updated'
  const existing = await findOpenPullRequest(octokit, { owner, repo, head, base, headOwner })
  if (existing) {
    pull = await update(mustBeOurs(existing))
    operation = 'updated'
  } else {
    try {
      pull = await create(options.draft ?? false)
      operation = 'created'
      log(`Created pull request #${pull.number} (${headOwner}:${head} → ${base}).`)
    } catch (error) {
      const text = errorText(error)
      if (statusOf(error) === 422 && text.includes(GITHUB_API_ERRORS.draftNotSupported) && options.draft) {
        warnings.push(
          `Draft pull requests are not supported in ${owner}/${repo}; it was opened as a ready one.`
        )
        pull = await create(false)
        operation = 'created'
      } else if (statusOf(error) === 422 && text.includes(GITHUB_API_ERRORS.pullRequestExists)) {
        const raced = await findOpenPullRequest(octokit, { owner, repo, head, base, headOwner })
        if (!raced) throw error
        if (isOurs(raced) && isOwnWork(raced, options.ownedBy, PULL_REQUEST_MARKER)) {
          // Our own create, retried after GitHub made it without answering.
          log(`Pull request #${raced.number} was created by the first try, whose answer was lost.`)
          pull = asCreated(raced)
          operation = 'created'
        } else {
          // Opened by someone else between our look and our create: update that one.
          log(`A pull request already exists for ${headOwner}:${head}; updating it.`)
          pull = await update(mustBeOurs(raced))
          operation = 'updated'
        }
      } else {
        throw pullRequestFailure(error, { ...context, operation: 'create pull requests' })
      }
    }
  }

  const retry = options.retry ?? {}
  const attempt = <T>(what: string, fn: () => Promise<T>) => withNodeRetry(what, fn, retry, log)
  const issue = { owner, repo, issue_number: pull.number }
  const labels = clean(options.labels)
  if (labels.length > 0) {
    await attempt('labels', () => octokit.rest.issues.addLabels({ ...issue, labels })).catch(error =>
      warnings.push(followUpWarning('add the labels', labels, error))
    )
  }
  const assignees = clean(options.assignees)
  if (assignees.length > 0) {
    await attempt('assignees', () => octokit.rest.issues.addAssignees({ ...issue, assignees })).catch(error =>
      warnings.push(followUpWarning('assign', assignees, error))
    )
  }
  const reviewers = clean(options.reviewers)
  if (reviewers.length > 0) {
    const users = reviewers.filter(r => !r.includes('/'))
    const teams = reviewers.filter(r => r.includes('/')).map(r => r.slice(r.lastIndexOf('/') + 1))
    await attempt('reviewers', () =>
      octokit.rest.pulls.requestReviewers({
        owner,
        repo,
        pull_number: pull.number,
        ...(users.length > 0 ? { reviewers: users } : {}),
        ...(teams.length > 0 ? { team_reviewers: teams } : {})
      })
    ).catch(error => warnings.push(followUpWarning('request reviews from', reviewers, error)))
  }
  for (const warning of warnings) log(warning)

  return {
    number: pull.number,
    url: pull.html_url,
    operation,
    nodeId: pull.node_id,
    draft: pull.draft ?? false,
    bodyTruncated,
    warnings
  }

  /** An open pull request on the head is updated only when it is the action's own (own-work.ts decides). */
  function mustBeOurs(found: OpenPullRequest): number {
    if (isOwnWork(found, options.ownedBy, PULL_REQUEST_MARKER)) return found.number
    throw new PullRequestError(
      PULL_REQUEST_FAILURE.notOurs,
      `pull request #${found.number} on ${headOwner}:${head} was not opened by this action (it is ${found.user?.login ?? 'an unknown account'}'s, and only ${options.ownedBy.login}'s marked pull requests are the action's): it was left as it is`
    )
  }

  /** The pull request this call's create made: same head, title and body. */
  function isOurs(found: OpenPullRequest): boolean {
    return found.title === options.title && (found.body ?? '') === body
  }

  function asCreated(found: OpenPullRequest): PullRef {
    return { number: found.number, html_url: found.url, node_id: found.nodeId, draft: found.draft }
  }

  async function create(draft: boolean): Promise<PullRef> {
    const { data } = await octokit.rest.pulls.create({
      owner,
      repo,
      title: options.title,
      body,
      head: headOwner === owner ? head : `${headOwner}:${head}`,
      base,
      draft,
      ...(options.maintainerCanModify !== undefined
        ? { maintainer_can_modify: options.maintainerCanModify }
        : {}),
      // Made, but its answer lost: the list by head finds it.
      request: recoverBy(async () => {
        const found = await findOpenPullRequest(octokit, { owner, repo, head, base, headOwner })
        return found && isOurs(found) && isOwnWork(found, options.ownedBy, PULL_REQUEST_MARKER)
          ? asCreated(found)
          : undefined
      })
    })
    return data
  }

  async function update(number: number) {
    try {
      const { data } = await octokit.rest.pulls.update({
        owner,
        repo,
        pull_number: number,
        title: options.title,
        body
      })
      log(`Updated pull request #${number} (${headOwner}:${head} → ${base}).`)
      return data
    } catch (error) {
      throw pullRequestFailure(error, { ...context, operation: 'update pull requests' })
    }
  }
}

/**
 * Retries GitHub's 422 "Could not resolve to a node" (its index lagging behind a new pull request) with
 * jittered exponential backoff; any other error is thrown at once.
 */
export async function withNodeRetry<T>(
  what: string,
  fn: () => Promise<T>,
  options: { attempts?: number; baseDelayMs?: number } = {},
  log: (message: string) => void = () => undefined
): Promise<T> {
  const attempts = Math.max(1, options.attempts ?? 4)
  const baseDelay = options.baseDelayMs ?? 1000
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn()
    } catch (error) {
      if (attempt >= attempts || !isUnresolvedNode(error)) throw error
      const delay = Math.round(baseDelay * 2 ** (attempt - 1) * (0.5 + Math.random()))
      log(
        `GitHub could not resolve the new pull request yet for ${what} (attempt ${attempt}/${attempts}); retrying in ${delay} ms.`
      )
      await new Promise(resolve => setTimeout(resolve, delay))
    }
  }
}

function followUpWarning(what: string, names: string[], error: unknown): string {
  const failure = pullRequestFailure(error, { owner: '', repo: '', head: '', base: '', operation: what })
  const reason =
    failure instanceof PullRequestError && failure.kind === PULL_REQUEST_FAILURE.missingPermission
      ? 'the token lacks the permission (`pull-requests: write`, and `issues: write` for labels and assignees)'
      : errorText(error).split('\n').pop()
  return `Could not ${what} ${names.join(', ')} on the pull request: ${reason}`
}

function clean(list: string[] | undefined): string[] {
  return [...new Set((list ?? []).map(s => s.trim().replace(/^@/, '')).filter(Boolean))]
}

/**
 * Cuts a body to GitHub's limit, at a line break when one is near, closes a code block left open, and says so
 * at the end. Bodies within the limit come back unchanged.
 */
export function truncateBody(
  body: string,
  max = MAX_PR_BODY_CHARS,
  note = `The description was cut to fit GitHub's limit of ${max.toLocaleString('en-US')} characters (it had ${body.length.toLocaleString('en-US')}).`
): string {
  if (body.length <= max) return body
  const suffix = `\n\n---\n> [!NOTE]\n> ${note}\n`
  const fence = '\n```'
  let cut = body.slice(0, Math.max(0, max - suffix.length - fence.length))
  const lastBreak = cut.lastIndexOf('\n')
  if (lastBreak > cut.length - 2000 && lastBreak > 0) cut = cut.slice(0, lastBreak)
  // Never leave half a surrogate pair.
  if (/[\uD800-\uDBFF]$/.test(cut)) cut = cut.slice(0, -1)
  const fences = cut.match(/^\s*(```|~~~)/gm)?.length ?? 0
  return cut + (fences % 2 === 1 ? fence : '') + suffix
}

/**
 * Whether GitHub Actions may create pull requests in the repository (ACTIONS_PULL_REQUEST_SETTING), or why that
 * cannot be known: a token that may not read the setting (403, 404: a fine-grained token without
 * Administration: read) or no answer from GitHub.
 */
export async function actionsMayCreatePullRequests(
  octokit: Octokit,
  repo: { owner: string; repo: string }
): Promise<{ allowed: boolean } | { unknown: string }> {
  try {
    const { data } = await octokit.rest.actions.getGithubActionsDefaultWorkflowPermissionsRepository(repo)
    return { allowed: data.can_approve_pull_request_reviews }
  } catch (error) {
    const status = statusOf(error)
    return { unknown: status !== undefined ? `HTTP ${status}` : errorText(error).split('\n')[0] }
  }
}
