// A review as the task of a round: its body, and each line comment with the file, the line or range, the side
// and the diff it was left on, threads already resolved or outdated marked so. Every piece is text people
// wrote (or code the pull request holds), so each is sanitised as issue text is before it is put together;
// the whole is then fenced as data by the same block as an issue's task (sanitize.ts).
import type { ReviewComment, ReviewThreadState } from '../github/reviews.js'
import { code, fence } from '../text/markdown.js'
import { USER_LOGIN } from './permissions.js'
import { quote } from './quote.js'
import { MAX_TASK_CHARS, sanitizeText } from './sanitize.js'
import type { ReviewThreadRef } from './types.js'

export interface ReviewTaskInput {
  pullNumber: number
  review: { id: number; body: string; state: string; author: string; url: string }
  comments: ReviewComment[]
  /** The pull request's threads; undefined when they could not be read (the task says so). */
  threads: ReviewThreadState[] | undefined
}

/** Bounds of the parts, in characters: the task stays under MAX_TASK_CHARS whatever the review holds. */
export const REVIEW_BOUNDS = {
  body: 6000,
  comment: 3000,
  /** The hunk's last lines (the commented line is its last), each cut to `hunkLine` characters. */
  hunkLines: 12,
  hunkLine: 240,
  comments: 40
} as const

const STATES: Record<string, string> = {
  changes_requested: 'changes requested',
  commented: 'comments',
  approved: 'approved',
  dismissed: 'dismissed'
}

/** `@login` for a person's or bot's login as GitHub gives it; anything else shown as data. */
function who(login: string): string {
  const bare = login.replace(/\[bot\]$/, '')
  return login && USER_LOGIN.test(bare) ? `@${login}` : quote(login || 'an unknown account')
}

/** The thread a comment is in (by its REST id), when the threads could be read. */
function threadOf(comment: ReviewComment, threads: ReviewThreadState[] | undefined) {
  return threads?.find(t => t.commentIds.includes(comment.id))
}

const sideName = (side: string | null): string => (side === 'LEFT' ? 'the old code' : 'the new code')

/** `lines 10–12 of the new code`, `line 4 of the old code`, `the file as a whole`. */
export function placeOf(comment: ReviewComment): string {
  if (comment.subject === 'file') return 'the file as a whole'
  const line = comment.line ?? comment.originalLine
  const start = comment.line !== null ? comment.startLine : comment.originalStartLine
  if (line === null) return 'a line GitHub no longer places'
  if (start === null || start === line) return `line ${line} of ${sideName(comment.side)}`
  const startSide = comment.startSide ?? comment.side
  return startSide === comment.side
    ? `lines ${start}–${line} of ${sideName(comment.side)}`
    : `from line ${start} of ${sideName(startSide)} to line ${line} of ${sideName(comment.side)}`
}

/** The end of a diff hunk (the commented line is its last), sanitised inside a fence it cannot close. */
function hunkBlock(hunk: string): string {
  const lines = hunk.replace(/\r\n?/g, '\n').replace(/\n+$/, '').split('\n')
  const kept = lines
    .slice(-REVIEW_BOUNDS.hunkLines)
    .map(line =>
      line.length > REVIEW_BOUNDS.hunkLine ? `${line.slice(0, REVIEW_BOUNDS.hunkLine - 1)}…` : line
    )
  const said =
    lines.length > kept.length
      ? `The diff it was left on (its last ${kept.length} lines):`
      : 'The diff it was left on:'
  // Fenced before sanitising: inside a fence, code keeps its attributes and angle brackets.
  return [said, sanitizeText(fence(kept.join('\n'), 'diff'), { maxChars: Number.MAX_SAFE_INTEGER })].join(
    '\n'
  )
}

function commentSection(index: number, comment: ReviewComment, input: ReviewTaskInput): string {
  const thread = threadOf(comment, input.threads)
  const path = code(sanitizeText(comment.path, { singleLine: true, maxChars: 300 }) || '(no path)')
  const marks: string[] = []
  if (thread?.resolved)
    marks.push('resolved: someone marked this thread resolved, so it may need nothing more')
  if (thread?.outdated || (comment.subject === 'line' && comment.line === null))
    marks.push(
      `outdated: it was left on an earlier commit (${code(comment.originalCommit.slice(0, 12))}), and the code there has changed since`
    )
  const heading = [`#### ${index}. ${path}, ${placeOf(comment)}`, ...marks].join(' — ')
  const body = sanitizeText(comment.body, { maxChars: REVIEW_BOUNDS.comment })
  return [
    heading,
    comment.inReplyTo !== undefined ? '(a reply in a thread that an earlier comment started)' : '',
    body || '(no text)',
    comment.diffHunk ? hunkBlock(comment.diffHunk) : ''
  ]
    .filter(Boolean)
    .join('\n\n')
}

/** The review as task markdown: what a reader of the pull request sees of it, as data. */
export function renderReviewTask(input: ReviewTaskInput): string {
  const { review } = input
  const state =
    STATES[review.state.toLowerCase()] ??
    sanitizeText(review.state.toLowerCase(), { singleLine: true, maxChars: 40 })
  const body = sanitizeText(review.body, { maxChars: REVIEW_BOUNDS.body })
  const count = input.comments.length
  const parts = [
    `## Review by ${who(review.author)} on pull request #${input.pullNumber}: ${state}`,
    body || '(The review has no text of its own: its line comments say what to change.)'
  ]
  if (input.threads === undefined && count > 0)
    parts.push('(Whether its threads are resolved or outdated could not be read, so none is marked.)')
  if (count > 0) parts.push(`### ${count} line comment${count === 1 ? '' : 's'}`)
  // Whole sections only, within the task's bound; the rest is named, not cut mid-text.
  const budget = MAX_TASK_CHARS - 1000
  let used = parts.join('\n\n').length
  let shown = 0
  for (const [i, comment] of input.comments.entries()) {
    if (shown >= REVIEW_BOUNDS.comments) break
    const section = commentSection(i + 1, comment, input)
    if (used + section.length + 2 > budget) break
    parts.push(section)
    used += section.length + 2
    shown++
  }
  if (shown < count)
    parts.push(
      `[… ${count - shown} more line comment${count - shown === 1 ? '' : 's'} not shown here, to keep the task short: they are on the pull request]`
    )
  return parts.join('\n\n')
}

/** The threads a round answers: one per thread its comments are in (replies go to the thread's first comment). */
export function reviewThreadRefs(
  comments: ReviewComment[],
  threads: ReviewThreadState[] | undefined
): ReviewThreadRef[] {
  const refs = new Map<number, ReviewThreadRef>()
  for (const comment of comments) {
    const root = comment.inReplyTo ?? comment.id
    if (refs.has(root)) continue
    const thread = threadOf(comment, threads)
    refs.set(root, {
      replyTo: root,
      ...(thread ? { threadId: thread.id } : {}),
      resolved: thread?.resolved ?? false
    })
  }
  return [...refs.values()]
}
