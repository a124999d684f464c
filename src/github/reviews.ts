// A pull request's reviews as a round reads and answers them: the review and its line comments (REST), whether
// their threads are resolved or outdated (GraphQL: REST does not say), a reply in a thread, and resolving a
// thread. Thin: typed values in, typed values out; what to do with them is the trigger's and the action's.
import { randomUUID } from 'node:crypto'
import { recoverBy, type Octokit } from './client.js'
import { onceMarker } from './comments.js'

export interface PullTarget {
  owner: string
  repo: string
  pullNumber: number
}

export interface Review {
  id: number
  /** '' when the review has no body. */
  body: string
  /** As the REST API writes it: `CHANGES_REQUESTED`, `COMMENTED`, `APPROVED`, `DISMISSED`, `PENDING`. */
  state: string
  author: string
  authorType: string
  commitId: string
  url: string
}

export type DiffSide = 'LEFT' | 'RIGHT'

/** One line comment of a review, where it was left. */
export interface ReviewComment {
  id: number
  /** The thread's first comment, when this one is a reply. */
  inReplyTo?: number
  body: string
  path: string
  /** `file`: about the file as a whole, no line. */
  subject: 'line' | 'file'
  /** The (last) line, in the pull request's current diff; null once outdated. */
  line: number | null
  /** A range's first line; null for one line. */
  startLine: number | null
  /** Where it was left, on `originalCommit`: what an outdated comment still says. */
  originalLine: number | null
  originalStartLine: number | null
  /** LEFT: the old code (the base's lines); RIGHT: the new code. */
  side: DiffSide
  startSide: DiffSide | null
  /** The diff around the line, as GitHub kept it: from the hunk's start to the commented line. */
  diffHunk: string
  originalCommit: string
  url: string
}

/** A review thread's state, which only GraphQL gives. */
export interface ReviewThreadState {
  /** The id resolveReviewThread takes. */
  id: string
  resolved: boolean
  outdated: boolean
  /** The REST ids of its comments (fullDatabaseId), first to last. */
  commentIds: number[]
}

/** The pull request's conversation, every page: where a round's summary (and its marker) is. */
export async function conversationComments(
  octokit: Octokit,
  target: PullTarget
): Promise<{ user?: { login: string; type?: string } | null; body?: string | null }[]> {
  return octokit.paginate(octokit.rest.issues.listComments, {
    owner: target.owner,
    repo: target.repo,
    issue_number: target.pullNumber,
    per_page: 100
  })
}

/** GET …/pulls/{n}/reviews/{id}. */
export async function getReview(octokit: Octokit, target: PullTarget, reviewId: number): Promise<Review> {
  const { data } = await octokit.rest.pulls.getReview({
    owner: target.owner,
    repo: target.repo,
    pull_number: target.pullNumber,
    review_id: reviewId
  })
  return {
    id: data.id,
    body: data.body ?? '',
    state: data.state,
    author: data.user?.login ?? '',
    authorType: data.user?.type ?? '',
    commitId: data.commit_id ?? '',
    url: data.html_url
  }
}

/** GET …/pulls/{n}/reviews/{id}/comments, every page: the review's own line comments. */
export async function listReviewComments(
  octokit: Octokit,
  target: PullTarget,
  reviewId: number
): Promise<ReviewComment[]> {
  const comments = await octokit.paginate(octokit.rest.pulls.listCommentsForReview, {
    owner: target.owner,
    repo: target.repo,
    pull_number: target.pullNumber,
    review_id: reviewId,
    per_page: 100
  })
  return comments.map(c => {
    // GitHub sends null where the description says integer (an outdated comment's line): both read as null.
    const loose = c as { line?: number | null; original_line?: number | null; start_side?: string | null }
    return {
      id: c.id,
      ...(c.in_reply_to_id !== undefined ? { inReplyTo: c.in_reply_to_id } : {}),
      body: c.body,
      path: c.path,
      subject: c.subject_type === 'file' ? 'file' : 'line',
      line: loose.line ?? null,
      startLine: c.start_line ?? null,
      originalLine: loose.original_line ?? null,
      originalStartLine: c.original_start_line ?? null,
      side: c.side === 'LEFT' ? 'LEFT' : 'RIGHT',
      startSide: loose.start_side === 'LEFT' || loose.start_side === 'RIGHT' ? loose.start_side : null,
      diffHunk: c.diff_hunk,
      originalCommit: c.original_commit_id,
      url: c.html_url
    }
  })
}

const THREADS_QUERY = `query ReviewThreads($owner: String!, $repo: String!, $number: Int!, $cursor: String) {
  repository(owner: $owner, name: $repo) {
    pullRequest(number: $number) {
      reviewThreads(first: 100, after: $cursor) {
        pageInfo { hasNextPage endCursor }
        nodes { id isResolved isOutdated comments(first: 100) { nodes { fullDatabaseId } } }
      }
    }
  }
}`

interface ThreadsPage {
  repository: {
    pullRequest: {
      reviewThreads: {
        pageInfo: { hasNextPage: boolean; endCursor: string | null }
        nodes: {
          id: string
          isResolved: boolean
          isOutdated: boolean
          comments: { nodes: { fullDatabaseId: string | null }[] }
        }[]
      }
    } | null
  } | null
}

/** Every review thread of the pull request, with its state (GraphQL; `pull-requests: read` is enough). */
export async function reviewThreads(octokit: Octokit, target: PullTarget): Promise<ReviewThreadState[]> {
  const threads: ReviewThreadState[] = []
  let cursor: string | null = null
  // 100 threads a page; a pull request with thousands is read whole, a page at a time.
  for (let page = 0; page < 100; page++) {
    const data: ThreadsPage = await octokit.graphql<ThreadsPage>(THREADS_QUERY, {
      owner: target.owner,
      repo: target.repo,
      number: target.pullNumber,
      cursor
    })
    const connection = data.repository?.pullRequest?.reviewThreads
    if (!connection) throw new Error(`pull request #${target.pullNumber} has no review threads to read`)
    for (const node of connection.nodes)
      threads.push({
        id: node.id,
        resolved: node.isResolved,
        outdated: node.isOutdated,
        commentIds: node.comments.nodes.flatMap(c => (c.fullDatabaseId ? [Number(c.fullDatabaseId)] : []))
      })
    if (!connection.pageInfo.hasNextPage || !connection.pageInfo.endCursor) break
    cursor = connection.pageInfo.endCursor
  }
  return threads
}

/**
 * Replies in the thread that `rootCommentId` starts, exactly once: the body carries a hidden key, so a reply
 * whose answer was lost is found among the pull request's comments instead of being posted twice.
 */
export async function replyInThread(
  octokit: Octokit,
  target: PullTarget,
  rootCommentId: number,
  body: string
): Promise<{ id: number; url: string }> {
  const marker = onceMarker(randomUUID())
  const where = { owner: target.owner, repo: target.repo, pull_number: target.pullNumber }
  const since = new Date(Date.now() - 10 * 60_000).toISOString()
  const { data } = await octokit.rest.pulls.createReplyForReviewComment({
    ...where,
    comment_id: rootCommentId,
    body: `${body}\n\n${marker}`,
    request: recoverBy(async () => {
      const recent = await octokit.paginate(octokit.rest.pulls.listReviewComments, {
        ...where,
        since,
        per_page: 100
      })
      return recent.find(c => c.in_reply_to_id === rootCommentId && c.body.endsWith(marker))
    })
  })
  return { id: data.id, url: data.html_url }
}

const RESOLVE_MUTATION = `mutation ResolveThread($thread: ID!) {
  resolveReviewThread(input: { threadId: $thread }) { thread { id isResolved } }
}`

/** Marks a review thread resolved (GraphQL resolveReviewThread; needs `pull-requests: write`). */
export async function resolveThread(octokit: Octokit, threadId: string): Promise<void> {
  const data = await octokit.graphql<{
    resolveReviewThread: { thread: { isResolved: boolean } | null } | null
  }>(RESOLVE_MUTATION, { thread: threadId })
  if (!data.resolveReviewThread?.thread?.isResolved)
    throw new Error(`review thread ${threadId} was not resolved`)
}
