// GitHub's known answers for pull request delivery, turned into control flow or a message that says the fix.

/** GitHub's own words, matched as substrings of the error's text (message, and each error's message). */
export const GITHUB_API_ERRORS = {
  actionsNotPermitted: 'GitHub Actions is not permitted to create or approve pull requests',
  pullRequestExists: 'A pull request already exists for',
  /** Right after a pull request is created, GitHub may not resolve it yet for labels and reviewers. */
  unresolvedNode: 'Could not resolve to a node',
  /** "…by integration" (GITHUB_TOKEN, App tokens) or "…by personal access token". */
  resourceNotAccessible: 'Resource not accessible by',
  noCommitsBetween: 'No commits between',
  draftNotSupported: 'Draft pull requests are not supported',
  reviewFromAuthor: 'Review cannot be requested from pull request author',
  reviewersNotCollaborators: 'Reviews may only be requested from collaborators'
} as const

/** Where the setting that lets GITHUB_TOKEN open pull requests is (off by default), for every line naming it. */
export const ACTIONS_PULL_REQUEST_SETTING =
  `Settings → Actions → General → Workflow permissions → "Allow GitHub Actions to create and approve pull requests" ` +
  `(in an organisation, the same setting must first be allowed in the organisation's Settings → Actions → General)`

/** Why delivery of a pull request failed, each with its fix in the error's message. */
export const PULL_REQUEST_FAILURE = {
  /** The repository (or organisation) setting forbids GITHUB_TOKEN to create pull requests. */
  actionsNotPermitted: 'actions_not_permitted',
  /** 403: the token lacks `pull-requests: write` (or `issues: write` for labels and assignees). */
  missingPermission: 'missing_permission',
  /** The head branch has no commits the base lacks. */
  noCommits: 'no_commits',
  /** An open pull request on the head that the action did not open: never updated. */
  notOurs: 'not_ours',
  unknown: 'unknown'
} as const

export type PullRequestFailureKind = (typeof PULL_REQUEST_FAILURE)[keyof typeof PULL_REQUEST_FAILURE]

/** Said next to a pull request opened with GITHUB_TOKEN: GitHub starts no workflow for it. */
export const GITHUB_TOKEN_TRIGGERS_NO_CI =
  'Pushes and pull requests made with GITHUB_TOKEN do not start other workflows, so CI will not run on this pull request by itself. ' +
  'To have it run, give the action a push token (a fine-grained PAT or a GitHub App token).'

/** A failure with its kind and what to do about it (the message names the fix). */
export class PullRequestError extends Error {
  constructor(
    readonly kind: PullRequestFailureKind,
    message: string,
    readonly status?: number,
    options?: { cause?: unknown }
  ) {
    super(message, options)
    this.name = 'PullRequestError'
  }
}

interface HttpErrorLike {
  status?: number
  message?: string
  response?: { data?: unknown }
}

/** The HTTP status of an Octokit error, if it is one. */
export function statusOf(error: unknown): number | undefined {
  const status = (error as HttpErrorLike | undefined)?.status
  return typeof status === 'number' ? status : undefined
}

/** Everything GitHub said: the error's message, the body's message and each entry of `errors`. */
export function errorText(error: unknown): string {
  const parts: string[] = []
  const e = error as HttpErrorLike | undefined
  if (e?.message) parts.push(e.message)
  const data = e?.response?.data as { message?: unknown; errors?: unknown } | undefined
  if (data && typeof data === 'object') {
    if (typeof data.message === 'string') parts.push(data.message)
    if (Array.isArray(data.errors)) {
      for (const item of data.errors) {
        if (typeof item === 'string') parts.push(item)
        else if (
          item &&
          typeof item === 'object' &&
          typeof (item as { message?: unknown }).message === 'string'
        )
          parts.push((item as { message: string }).message)
      }
    }
  }
  if (parts.length === 0) parts.push(String(error))
  return parts.join('\n')
}

export function isUnresolvedNode(error: unknown): boolean {
  return statusOf(error) === 422 && errorText(error).includes(GITHUB_API_ERRORS.unresolvedNode)
}

/** Turns a failed create/update into a PullRequestError that says the fix; other errors pass through. */
export function pullRequestFailure(
  error: unknown,
  context: { owner: string; repo: string; head: string; base: string; operation: string }
): unknown {
  const status = statusOf(error)
  const text = errorText(error)
  const repository = `${context.owner}/${context.repo}`
  if (text.includes(GITHUB_API_ERRORS.actionsNotPermitted)) {
    return new PullRequestError(
      PULL_REQUEST_FAILURE.actionsNotPermitted,
      `GitHub Actions is not permitted to create pull requests in ${repository}. Allow it in the repository's ` +
        `${ACTIONS_PULL_REQUEST_SETTING}, or give the action a PAT or GitHub App token. The branch '${context.head}' was pushed: a pull request can be opened from it by hand.`,
      status,
      { cause: error }
    )
  }
  if (status === 403 && text.includes(GITHUB_API_ERRORS.resourceNotAccessible)) {
    return new PullRequestError(
      PULL_REQUEST_FAILURE.missingPermission,
      `The token may not ${context.operation} in ${repository} (403 ${GITHUB_API_ERRORS.resourceNotAccessible.trim()}…): ` +
        `give the job \`permissions: pull-requests: write\` (labels and assignees also need \`issues: write\`), ` +
        `or use a token that has it.`,
      status,
      { cause: error }
    )
  }
  if (status === 422 && text.includes(GITHUB_API_ERRORS.noCommitsBetween)) {
    return new PullRequestError(
      PULL_REQUEST_FAILURE.noCommits,
      `'${context.head}' has no commits that '${context.base}' lacks: there is nothing to open a pull request for.`,
      status,
      { cause: error }
    )
  }
  return error
}
