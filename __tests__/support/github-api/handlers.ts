// The operations the stand-in implements, by GitHub's operationId, each answering the way GitHub does
// (statuses, error bodies and messages as GitHub sends them). A request reaches a handler only after it
// passed the OpenAPI checks, so handlers check meaning (exists? allowed? duplicate?) rather than shape.
import type { Operation } from './openapi.js'
import type { Renderer } from './render.js'
import { createHmac } from 'node:crypto'
import {
  GITHUB_ACTIONS_BOT,
  type GitHubState,
  type IssueRecord,
  type PullRecord,
  type ReactionContent,
  type WorkflowRecord,
  type WorkflowRunRecord
} from './state.js'

/* eslint-disable @typescript-eslint/no-explicit-any -- request values are checked against the schema first */

export interface HandlerContext {
  state: GitHubState
  render: Renderer
  /** Login the request's token acts as. */
  actor: string
  /** The request's token, if any. */
  token: string | undefined
  /** Path and query parameters, coerced to their schema types. */
  params: Record<string, any>
  body: any
  operation: Operation
  /** The request URL as received (for Link headers). */
  url: URL
}

export interface HandlerResult {
  status: number
  body?: unknown
  headers?: Record<string, string> | undefined
  /** GitHub answers this error though the description does not list it for the operation: a basic-error. */
  unlisted?: boolean
}

export type Handler = (ctx: HandlerContext) => HandlerResult

/** An answer GitHub gives instead of the operation's success response. */
export class GitHubError extends Error {
  constructor(
    readonly status: number,
    readonly body: Record<string, unknown>,
    readonly unlisted = false
  ) {
    super(String(body.message))
  }
}

export function errorBody(
  status: number,
  message: string,
  docs: string,
  errors?: unknown[]
): Record<string, unknown> {
  return { message, ...(errors ? { errors } : {}), documentation_url: docs, status: String(status) }
}

const fail = (ctx: HandlerContext, status: number, message: string, errors?: unknown[]) =>
  new GitHubError(status, errorBody(status, message, ctx.operation.docs, errors))
const notFound = (ctx: HandlerContext) => fail(ctx, 404, 'Not Found')
/** An error GitHub answers that the description does not list for the operation (e.g. a dispatch's 422s). */
const failUnlisted = (ctx: HandlerContext, status: number, message: string) =>
  new GitHubError(status, errorBody(status, message, ctx.operation.docs), true)
const validationFailed = (ctx: HandlerContext, ...errors: unknown[]) =>
  fail(ctx, 422, 'Validation Failed', errors)

/** GitHub's limit on issue, pull request and comment bodies. */
export const MAX_BODY_LENGTH = 65536

function requireRepo(ctx: HandlerContext): void {
  const { owner, repo } = ctx.params
  const settings = ctx.state.repo
  if (
    String(owner).toLowerCase() !== settings.owner.toLowerCase() ||
    String(repo).toLowerCase() !== settings.name.toLowerCase()
  ) {
    throw notFound(ctx)
  }
}

/** Writes need a role on the repository; GITHUB_TOKEN passes (its `permissions:` block is not modelled). */
function requireWrite(ctx: HandlerContext, role: 'triage' | 'write' = 'triage'): void {
  if (ctx.actor === GITHUB_ACTIONS_BOT) return
  if (!ctx.state.hasRole(ctx.actor, role))
    throw fail(ctx, 403, 'Resource not accessible by personal access token')
}

function issueOr404(ctx: HandlerContext, number: number): IssueRecord | PullRecord {
  const record = ctx.state.issueOrPull(number)
  if (!record) throw notFound(ctx)
  return record
}

function pullOr404(ctx: HandlerContext, number: number): PullRecord {
  const pull = ctx.state.pull(number)
  if (!pull) throw notFound(ctx)
  return pull
}

function commentOr404(ctx: HandlerContext) {
  const comment = ctx.state.comment(Number(ctx.params.comment_id))
  if (!comment) throw notFound(ctx)
  return comment
}

function checkBodyLength(
  ctx: HandlerContext,
  body: unknown,
  resource: 'Issue' | 'PullRequest' | 'IssueComment'
): void {
  if (typeof body !== 'string' || body.length <= MAX_BODY_LENGTH) return
  if (resource === 'IssueComment') {
    throw validationFailed(ctx, {
      resource,
      code: 'unprocessable',
      field: 'data',
      message: `Body is too long (maximum is ${MAX_BODY_LENGTH} characters)`
    })
  }
  throw validationFailed(ctx, {
    resource: 'Issue',
    code: 'custom',
    field: 'body',
    message: `body is too long (maximum is ${MAX_BODY_LENGTH} characters)`
  })
}

/** Slices a list the way GitHub pages it (per_page default 30, max 100) and writes the Link header. */
function paginate<T>(ctx: HandlerContext, items: T[]): { items: T[]; headers: Record<string, string> } {
  const perPage = Math.min(Math.max(Number(ctx.params.per_page ?? 30), 1), 100)
  const page = Math.max(Number(ctx.params.page ?? 1), 1)
  const last = Math.max(Math.ceil(items.length / perPage), 1)
  const link = (n: number, rel: string) => {
    const url = new URL(ctx.url.href)
    url.searchParams.set('page', String(n))
    return `<${url.href}>; rel="${rel}"`
  }
  const links: string[] = []
  if (page > 1) links.push(link(page - 1, 'prev'), link(1, 'first'))
  if (page < last) links.push(link(page + 1, 'next'), link(last, 'last'))
  return {
    items: items.slice((page - 1) * perPage, page * perPage),
    headers: links.length ? { link: links.join(', ') } : {}
  }
}

function touch(ctx: HandlerContext, record: { updatedAt: string }): void {
  record.updatedAt = ctx.state.now()
}

function setState(
  ctx: HandlerContext,
  record: IssueRecord,
  state: 'open' | 'closed',
  reason?: string | null
): void {
  if (record.state === state) return
  record.state = state
  record.closedAt = state === 'closed' ? ctx.state.now() : null
  record.stateReason =
    state === 'closed' ? ((reason as IssueRecord['stateReason']) ?? 'completed') : 'reopened'
}

/** Label names from any of the body forms the add/set labels operations accept. */
function labelNames(body: unknown): string[] {
  const list = Array.isArray(body) ? body : typeof body === 'string' ? [body] : ((body as any)?.labels ?? [])
  return (list as unknown[]).map(l => (typeof l === 'string' ? l : String((l as { name: string }).name)))
}

function unresolvedNode(ctx: HandlerContext, kind: 'labels' | 'reviewers', record: IssueRecord): void {
  const key = `${kind}:${record.number}`
  const remaining = ctx.state.pendingUnresolved.get(key) ?? 0
  if (remaining <= 0) return
  ctx.state.pendingUnresolved.set(key, remaining - 1)
  const message = `Could not resolve to a node with the global id of '${record.nodeId}'.`
  // Labels: an error object; review requests: a bare string (both as GitHub sends them).
  if (kind === 'labels')
    throw validationFailed(ctx, { resource: 'Label', code: 'unprocessable', field: 'data', message })
  throw validationFailed(ctx, message)
}

function addAssignees(ctx: HandlerContext, record: IssueRecord, logins: unknown): void {
  for (const login of (logins as string[] | undefined) ?? []) {
    // GitHub silently drops people who cannot be assigned.
    if (!ctx.state.account(login) || !ctx.state.hasRole(login, 'triage')) continue
    const name = ctx.state.account(login)?.login ?? login
    if (!record.assignees.includes(name)) record.assignees.push(name)
  }
}

function byCreated<T extends { createdAt: string; number?: number; id?: number }>(
  ctx: HandlerContext,
  items: T[]
): T[] {
  const sort = String(ctx.params.sort ?? 'created')
  const direction = String(ctx.params.direction ?? (sort === 'created' ? 'desc' : 'desc'))
  const key = (item: T) =>
    (sort === 'updated' ? (item as any).updatedAt : item.createdAt) +
    String(item.number ?? item.id).padStart(12, '0')
  const sorted = [...items].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0))
  return direction === 'desc' ? sorted.reverse() : sorted
}

// --- pull requests ---

function parseHead(ctx: HandlerContext, head: string): { owner: string; branch: string } {
  const colon = head.indexOf(':')
  if (colon < 0) return { owner: ctx.state.repo.owner, branch: head }
  return { owner: head.slice(0, colon), branch: head.slice(colon + 1) }
}

const createPull: Handler = ctx => {
  requireRepo(ctx)
  const { state } = ctx
  const body = ctx.body ?? {}
  if (state.failures.actionsCannotCreatePullRequests && ctx.actor === GITHUB_ACTIONS_BOT) {
    throw fail(ctx, 403, 'GitHub Actions is not permitted to create or approve pull requests.')
  }
  requireWrite(ctx, 'write')
  const head = parseHead(ctx, String(body.head))
  const base = String(body.base)
  if (head.owner.toLowerCase() !== state.repo.owner.toLowerCase()) {
    // No forks in the stand-in: a head from another owner names nothing GitHub can find.
    throw validationFailed(ctx, { resource: 'PullRequest', field: 'head', code: 'invalid' })
  }
  if (body.title === undefined && body.issue === undefined) {
    throw validationFailed(ctx, { resource: 'Issue', code: 'missing_field', field: 'title' })
  }
  checkBodyLength(ctx, body.body, 'PullRequest')
  const headSha = state.branchSha(head.branch)
  if (!headSha) throw validationFailed(ctx, { resource: 'PullRequest', field: 'head', code: 'invalid' })
  if (!state.branchSha(base))
    throw validationFailed(ctx, { resource: 'PullRequest', field: 'base', code: 'invalid' })
  const existing = state.pulls.find(
    p => p.state === 'open' && p.head === head.branch && p.base === base && p.headOwner === state.repo.owner
  )
  if (existing) {
    throw validationFailed(ctx, {
      resource: 'PullRequest',
      code: 'custom',
      message: `A pull request already exists for ${state.repo.owner}:${head.branch}.`
    })
  }
  if (state.commitsAhead(base, head.branch) === 0) {
    throw validationFailed(ctx, {
      resource: 'PullRequest',
      code: 'custom',
      message: `No commits between ${base} and ${head.branch}`
    })
  }
  const pull = state.addPull({
    title: String(body.title ?? `Issue #${String(body.issue)}`),
    body: body.body ?? null,
    head: head.branch,
    headSha,
    base,
    draft: body.draft === true,
    maintainerCanModify: body.maintainer_can_modify ?? true,
    user: ctx.actor
  })
  const lag = state.failures.unresolvedNodeAfterCreate
  if (lag.labels > 0) state.pendingUnresolved.set(`labels:${pull.number}`, lag.labels)
  if (lag.reviewers > 0) state.pendingUnresolved.set(`reviewers:${pull.number}`, lag.reviewers)
  const url = `${ctx.url.origin}/repos/${state.fullName}/pulls/${pull.number}`
  return { status: 201, body: ctx.render.pull(pull, { full: true }), headers: { location: url } }
}

const listPulls: Handler = ctx => {
  requireRepo(ctx)
  const { state } = ctx
  const wanted = String(ctx.params.state ?? 'open')
  let pulls = state.pulls.filter(p => wanted === 'all' || p.state === wanted)
  const head = ctx.params.head === undefined ? undefined : String(ctx.params.head)
  // GitHub silently ignores a head filter without the `owner:` part (and returns every PR).
  if (head?.includes(':')) {
    const { owner, branch } = parseHead(ctx, head)
    pulls = pulls.filter(p => p.headOwner.toLowerCase() === owner.toLowerCase() && p.head === branch)
  }
  if (ctx.params.base !== undefined) pulls = pulls.filter(p => p.base === String(ctx.params.base))
  const sorted = byCreated(ctx, pulls)
  const { items, headers } = paginate(ctx, sorted)
  return { status: 200, body: items.map(p => ctx.render.pull(p, { full: false })), headers }
}

const getPull: Handler = ctx => {
  requireRepo(ctx)
  return {
    status: 200,
    body: ctx.render.pull(pullOr404(ctx, Number(ctx.params.pull_number)), { full: true })
  }
}

const updatePull: Handler = ctx => {
  requireRepo(ctx)
  requireWrite(ctx, 'write')
  const pull = pullOr404(ctx, Number(ctx.params.pull_number))
  const body = ctx.body ?? {}
  checkBodyLength(ctx, body.body, 'PullRequest')
  if (body.base !== undefined && !ctx.state.branchSha(String(body.base))) {
    throw validationFailed(ctx, { resource: 'PullRequest', field: 'base', code: 'invalid' })
  }
  if (body.title !== undefined) pull.title = String(body.title)
  if (body.body !== undefined) pull.body = body.body
  if (body.base !== undefined) pull.base = String(body.base)
  if (body.maintainer_can_modify !== undefined) pull.maintainerCanModify = Boolean(body.maintainer_can_modify)
  if (body.state !== undefined) setState(ctx, pull, body.state)
  touch(ctx, pull)
  return { status: 200, body: ctx.render.pull(pull, { full: true }) }
}

const requestReviewers: Handler = ctx => {
  requireRepo(ctx)
  requireWrite(ctx)
  const pull = pullOr404(ctx, Number(ctx.params.pull_number))
  unresolvedNode(ctx, 'reviewers', pull)
  const reviewers: string[] = ctx.body?.reviewers ?? []
  const teams: string[] = ctx.body?.team_reviewers ?? []
  if (reviewers.some(r => r.toLowerCase() === pull.user.toLowerCase())) {
    throw fail(ctx, 422, 'Review cannot be requested from pull request author.')
  }
  const notCollaborator = reviewers.some(r => !ctx.state.account(r) || !ctx.state.isCollaborator(r))
  const unknownTeam = teams.some(t => !ctx.state.teams.has(t))
  if (notCollaborator || unknownTeam) {
    throw fail(
      ctx,
      422,
      `Reviews may only be requested from collaborators. One or more of the users or teams you specified is not a collaborator of the ${ctx.state.fullName} repository.`
    )
  }
  for (const login of reviewers) {
    const name = ctx.state.account(login)?.login ?? login
    if (!pull.requestedReviewers.includes(name)) pull.requestedReviewers.push(name)
  }
  for (const team of teams) if (!pull.requestedTeams.includes(team)) pull.requestedTeams.push(team)
  touch(ctx, pull)
  return { status: 201, body: ctx.render.pull(pull, { full: false }) }
}

const listRequestedReviewers: Handler = ctx => {
  requireRepo(ctx)
  const pull = pullOr404(ctx, Number(ctx.params.pull_number))
  return {
    status: 200,
    body: {
      users: pull.requestedReviewers.map(login => ctx.render.user(login)),
      teams: pull.requestedTeams.map(slug => ctx.render.team(slug))
    }
  }
}

// --- issues ---

const createIssue: Handler = ctx => {
  requireRepo(ctx)
  const body = ctx.body ?? {}
  checkBodyLength(ctx, body.body, 'Issue')
  const canTriage = ctx.actor === GITHUB_ACTIONS_BOT || ctx.state.hasRole(ctx.actor, 'triage')
  const issue = ctx.state.addIssue({
    title: String(body.title),
    body: body.body ?? null,
    user: ctx.actor,
    // Labels and assignees from people without triage access are silently dropped, as on GitHub.
    labels: canTriage ? labelNames(body.labels ?? []) : []
  })
  if (canTriage)
    addAssignees(ctx, issue, [...(body.assignees ?? []), ...(body.assignee ? [body.assignee] : [])])
  return { status: 201, body: ctx.render.issue(issue) }
}

const getIssue: Handler = ctx => {
  requireRepo(ctx)
  return { status: 200, body: ctx.render.issue(issueOr404(ctx, Number(ctx.params.issue_number))) }
}

const updateIssue: Handler = ctx => {
  requireRepo(ctx)
  requireWrite(ctx)
  const record = issueOr404(ctx, Number(ctx.params.issue_number))
  const body = ctx.body ?? {}
  checkBodyLength(ctx, body.body, 'Issue')
  if (body.title !== undefined && body.title !== null) record.title = String(body.title)
  if (body.body !== undefined) record.body = body.body
  if (body.labels !== undefined) {
    record.labels = labelNames(body.labels)
    for (const name of record.labels) ctx.state.ensureLabel(name)
  }
  if (body.assignees !== undefined) {
    record.assignees = []
    addAssignees(ctx, record, body.assignees)
  }
  if (body.state !== undefined) setState(ctx, record, body.state, body.state_reason)
  touch(ctx, record)
  return { status: 200, body: ctx.render.issue(record) }
}

const listIssues: Handler = ctx => {
  requireRepo(ctx)
  const wanted = String(ctx.params.state ?? 'open')
  let records: IssueRecord[] = [...ctx.state.issues, ...ctx.state.pulls].filter(
    i => wanted === 'all' || i.state === wanted
  )
  if (ctx.params.labels !== undefined) {
    const names = String(ctx.params.labels)
      .split(',')
      .map(s => s.trim().toLowerCase())
      .filter(Boolean)
    records = records.filter(r => names.every(n => r.labels.some(l => l.toLowerCase() === n)))
  }
  if (ctx.params.creator !== undefined)
    records = records.filter(r => r.user.toLowerCase() === String(ctx.params.creator).toLowerCase())
  if (ctx.params.assignee !== undefined) {
    const who = String(ctx.params.assignee)
    records = records.filter(r =>
      who === 'none'
        ? r.assignees.length === 0
        : who === '*'
          ? r.assignees.length > 0
          : r.assignees.includes(who)
    )
  }
  if (ctx.params.since !== undefined) records = records.filter(r => r.updatedAt >= String(ctx.params.since))
  const { items, headers } = paginate(ctx, byCreated(ctx, records))
  return { status: 200, body: items.map(r => ctx.render.issue(r)), headers }
}

const addAssigneesHandler: Handler = ctx => {
  requireRepo(ctx)
  const record = issueOr404(ctx, Number(ctx.params.issue_number))
  addAssignees(ctx, record, ctx.body?.assignees)
  touch(ctx, record)
  return { status: 201, body: ctx.render.issue(record) }
}

// --- labels ---

const addLabels: Handler = ctx => {
  requireRepo(ctx)
  requireWrite(ctx)
  const record = issueOr404(ctx, Number(ctx.params.issue_number))
  unresolvedNode(ctx, 'labels', record)
  for (const name of labelNames(ctx.body)) {
    const label = ctx.state.ensureLabel(name)
    if (!record.labels.some(l => l.toLowerCase() === label.name.toLowerCase())) record.labels.push(label.name)
  }
  touch(ctx, record)
  return { status: 200, body: ctx.render.labelsOf(record) }
}

const setLabels: Handler = ctx => {
  requireRepo(ctx)
  requireWrite(ctx)
  const record = issueOr404(ctx, Number(ctx.params.issue_number))
  record.labels = labelNames(ctx.body).map(name => ctx.state.ensureLabel(name).name)
  touch(ctx, record)
  return { status: 200, body: ctx.render.labelsOf(record) }
}

const removeLabel: Handler = ctx => {
  requireRepo(ctx)
  requireWrite(ctx)
  const record = issueOr404(ctx, Number(ctx.params.issue_number))
  const name = String(ctx.params.name).toLowerCase()
  if (!record.labels.some(l => l.toLowerCase() === name)) throw fail(ctx, 404, 'Label does not exist')
  record.labels = record.labels.filter(l => l.toLowerCase() !== name)
  touch(ctx, record)
  return { status: 200, body: ctx.render.labelsOf(record) }
}

const listLabelsOnIssue: Handler = ctx => {
  requireRepo(ctx)
  const record = issueOr404(ctx, Number(ctx.params.issue_number))
  const { items, headers } = paginate(ctx, ctx.render.labelsOf(record))
  return { status: 200, body: items, headers }
}

const listLabelsForRepo: Handler = ctx => {
  requireRepo(ctx)
  const { items, headers } = paginate(
    ctx,
    [...ctx.state.labels.values()].map(l => ctx.render.label(l))
  )
  return { status: 200, body: items, headers }
}

// --- comments ---

const createComment: Handler = ctx => {
  requireRepo(ctx)
  const record = issueOr404(ctx, Number(ctx.params.issue_number))
  if (record.locked && !ctx.state.hasRole(ctx.actor, 'triage') && ctx.actor !== GITHUB_ACTIONS_BOT) {
    throw fail(ctx, 403, 'Unable to create comment because issue is locked.')
  }
  checkBodyLength(ctx, ctx.body.body, 'IssueComment')
  const comment = ctx.state.addComment(record.number, { body: String(ctx.body.body), user: ctx.actor })
  return { status: 201, body: ctx.render.comment(comment) }
}

const getComment: Handler = ctx => {
  requireRepo(ctx)
  return { status: 200, body: ctx.render.comment(commentOr404(ctx)) }
}

const updateComment: Handler = ctx => {
  requireRepo(ctx)
  const comment = commentOr404(ctx)
  if (
    comment.user !== ctx.actor &&
    !ctx.state.hasRole(ctx.actor, 'triage') &&
    ctx.actor !== GITHUB_ACTIONS_BOT
  ) {
    throw fail(ctx, 403, 'Resource not accessible by integration')
  }
  checkBodyLength(ctx, ctx.body.body, 'IssueComment')
  comment.body = String(ctx.body.body)
  touch(ctx, comment)
  return { status: 200, body: ctx.render.comment(comment) }
}

const deleteComment: Handler = ctx => {
  requireRepo(ctx)
  const comment = commentOr404(ctx)
  ctx.state.comments.splice(ctx.state.comments.indexOf(comment), 1)
  return { status: 204 }
}

const listComments: Handler = ctx => {
  requireRepo(ctx)
  const record = issueOr404(ctx, Number(ctx.params.issue_number))
  let comments = ctx.state.comments.filter(c => c.issueNumber === record.number)
  if (ctx.params.since !== undefined) comments = comments.filter(c => c.updatedAt >= String(ctx.params.since))
  comments = [...comments].sort((a, b) =>
    a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a.id - b.id
  )
  const { items, headers } = paginate(ctx, comments)
  return { status: 200, body: items.map(c => ctx.render.comment(c)), headers }
}

// --- reactions ---

function react(ctx: HandlerContext, subject: 'issue' | 'comment', subjectId: number): HandlerResult {
  const content = ctx.body.content as ReactionContent
  const existing = ctx.state
    .reactionsOn(subject, subjectId)
    .find(r => r.user === ctx.actor && r.content === content)
  // Reacting twice with the same content returns the first reaction with 200 instead of 201.
  if (existing) return { status: 200, body: ctx.render.reaction(existing) }
  const id = ctx.state.newId()
  const reaction = {
    id,
    nodeId: ctx.state.nodeId('REA', id),
    subject,
    subjectId,
    content,
    user: ctx.actor,
    createdAt: ctx.state.now()
  }
  ctx.state.reactions.push(reaction)
  return { status: 201, body: ctx.render.reaction(reaction) }
}

function listReactions(ctx: HandlerContext, subject: 'issue' | 'comment', subjectId: number): HandlerResult {
  let reactions = ctx.state.reactionsOn(subject, subjectId)
  if (ctx.params.content !== undefined) reactions = reactions.filter(r => r.content === ctx.params.content)
  const { items, headers } = paginate(ctx, reactions)
  return { status: 200, body: items.map(r => ctx.render.reaction(r)), headers }
}

// --- repository, users, permissions ---

const getRepo: Handler = ctx => {
  requireRepo(ctx)
  return { status: 200, body: ctx.render.repository({ full: true, viewer: ctx.actor }) }
}

const getBranch: Handler = ctx => {
  requireRepo(ctx)
  const name = String(ctx.params.branch)
  const sha = ctx.state.branchSha(name)
  if (!sha) throw fail(ctx, 404, 'Branch not found')
  return { status: 200, body: ctx.render.branch(name, sha) }
}

const getCollaboratorPermission: Handler = ctx => {
  requireRepo(ctx)
  const login = String(ctx.params.username)
  const account = ctx.state.account(login)
  if (!account) throw fail(ctx, 404, `${login} is not a user`)
  const { permission, roleName } = ctx.state.roleOf(account.login)
  return {
    status: 200,
    body: { permission, role_name: roleName, user: ctx.render.collaborator(account.login) }
  }
}

const getUser: Handler = ctx => {
  const account = ctx.state.account(String(ctx.params.username))
  if (!account) throw notFound(ctx)
  return { status: 200, body: ctx.render.publicUser(account.login) }
}

const getAuthenticatedUser: Handler = ctx => {
  // An installation token (GITHUB_TOKEN) has no user behind it.
  if (ctx.state.account(ctx.actor)?.type === 'Bot')
    throw fail(ctx, 403, 'Resource not accessible by integration')
  return { status: 200, body: ctx.render.publicUser(ctx.actor) }
}

// --- actions: workflows, runs, dispatches, artifacts ---

/** The job token's `actions` permission: reads need read, a dispatch needs write (GitHub's 403 otherwise). */
function requireActions(ctx: HandlerContext, level: 'read' | 'write'): void {
  const granted = ctx.token === undefined ? undefined : ctx.state.actionsPermission.get(ctx.token)
  if (granted === 'none' || (granted === 'read' && level === 'write'))
    throw failUnlisted(ctx, 403, 'Resource not accessible by integration')
}

function workflowOr404(ctx: HandlerContext): WorkflowRecord {
  const raw = String(ctx.params.workflow_id)
  const workflow = ctx.state.workflow(/^\d+$/.test(raw) ? Number(raw) : raw)
  if (!workflow) throw notFound(ctx)
  return workflow
}

function runOr404(ctx: HandlerContext): WorkflowRunRecord {
  const run = ctx.state.run(Number(ctx.params.run_id))
  if (!run) throw notFound(ctx)
  return run
}

const getWorkflow: Handler = ctx => {
  requireRepo(ctx)
  requireActions(ctx, 'read')
  return { status: 200, body: ctx.render.workflow(workflowOr404(ctx)) }
}

const getWorkflowRun: Handler = ctx => {
  requireRepo(ctx)
  requireActions(ctx, 'read')
  return { status: 200, body: ctx.render.workflowRun(runOr404(ctx)) }
}

/** Queues a run of the workflow on the ref, with the inputs its `workflow_dispatch` trigger declares. */
const createWorkflowDispatch: Handler = ctx => {
  requireRepo(ctx)
  requireActions(ctx, 'write')
  if (ctx.actor !== GITHUB_ACTIONS_BOT && !ctx.state.hasRole(ctx.actor, 'write'))
    throw failUnlisted(ctx, 403, 'Resource not accessible by personal access token')
  const { state } = ctx
  const workflow = workflowOr404(ctx)
  const declared = workflow.dispatchInputs
  if (!declared) throw failUnlisted(ctx, 422, "Workflow does not have 'workflow_dispatch' trigger")
  const ref = String(ctx.body.ref)
  const sha = state.refSha(ref)
  if (!sha) throw failUnlisted(ctx, 422, `No ref found for: ${ref}`)
  const inputs = (ctx.body.inputs ?? {}) as Record<string, unknown>
  const unexpected = Object.keys(inputs).filter(name => !(name in declared))
  if (unexpected.length > 0)
    throw failUnlisted(ctx, 422, `Unexpected inputs provided: ${JSON.stringify(unexpected)}`)
  const missing = Object.keys(declared).find(
    name => declared[name].required && declared[name].default === undefined && inputs[name] === undefined
  )
  if (missing !== undefined) throw failUnlisted(ctx, 422, `Required input '${missing}' not provided`)
  const isTag = ref.startsWith('refs/tags/') || (!ref.startsWith('refs/heads/') && !state.branchSha(ref))
  const run = state.addRun({
    workflowPath: workflow.path,
    event: 'workflow_dispatch',
    headBranch: isTag ? null : ref.replace(/^refs\/heads\//, ''),
    headSha: sha,
    status: 'queued',
    actor: ctx.actor,
    triggeringActor: ctx.actor
  })
  state.dispatches.push({
    workflowId: workflow.id,
    ref,
    inputs,
    actor: ctx.actor,
    token: ctx.token,
    runId: run.id
  })
  if (ctx.body.return_run_details !== true) return { status: 204 }
  const runUrl = `${ctx.url.origin}/repos/${state.fullName}/actions/runs/${run.id}`
  const htmlUrl = `${state.serverUrl}/${state.fullName}/actions/runs/${run.id}`
  return { status: 200, body: { workflow_run_id: run.id, run_url: runUrl, html_url: htmlUrl } }
}

/** A ref of the repository's own (a chain's claim, refs/ralph-chain/…): made once, 422 when it exists. */
const createRef: Handler = ctx => {
  requireRepo(ctx)
  const ref = String(ctx.body.ref ?? '')
  const sha = String(ctx.body.sha ?? '')
  if (!/^refs\/[^/]+\/./.test(ref)) throw fail(ctx, 422, 'Reference name is invalid')
  const made = ctx.state.createRef(ref, sha)
  if (made === 'exists') throw fail(ctx, 422, 'Reference already exists')
  if (made === 'no-object') throw fail(ctx, 422, 'Object does not exist')
  return { status: 201, body: gitRef(ctx, ref, sha) }
}

/** A ref as GitHub renders it (a commit's). */
function gitRef(ctx: HandlerContext, ref: string, sha: string) {
  const api = `${ctx.url.origin}/repos/${ctx.state.fullName}`
  return {
    ref,
    node_id: `REF_${Buffer.from(ref).toString('base64url')}`,
    url: `${api}/git/${ref}`,
    object: { type: 'commit', sha, url: `${api}/git/commits/${sha}` }
  }
}

/** One ref (the path names it without `refs/`); 404 when there is none. */
const getRef: Handler = ctx => {
  requireRepo(ctx)
  const ref = `refs/${String(ctx.params.ref)}`
  const sha = ctx.state.refCommit(ref)
  if (!sha) throw notFound(ctx)
  return { status: 200, body: gitRef(ctx, ref, sha) }
}

/** The workflow permissions: can_approve_pull_request_reviews is the setting Failures.actionsCannotCreatePullRequests turns off. */
const getWorkflowPermissions: Handler = ctx => {
  requireRepo(ctx)
  if (ctx.token !== undefined && ctx.state.settingsUnreadable.has(ctx.token))
    throw failUnlisted(ctx, 403, 'Resource not accessible by personal access token')
  return {
    status: 200,
    body: {
      default_workflow_permissions: 'read',
      can_approve_pull_request_reviews: !ctx.state.failures.actionsCannotCreatePullRequests
    }
  }
}

/** A run's artifacts: the artifact service's finalized uploads under the run's workflowRunBackendId. */
function artifactsOf(ctx: HandlerContext, run: WorkflowRunRecord) {
  const stored = ctx.state.artifacts?.listArtifacts() ?? []
  return stored.filter(a => a.workflowRunBackendId === run.workflowRunBackendId)
}

const listWorkflowRunArtifacts: Handler = ctx => {
  requireRepo(ctx)
  requireActions(ctx, 'read')
  const run = runOr404(ctx)
  let artifacts = artifactsOf(ctx, run)
  if (ctx.params.name !== undefined) artifacts = artifacts.filter(a => a.name === String(ctx.params.name))
  const sorted = [...artifacts].sort((a, b) => a.id - b.id)
  if (String(ctx.params.direction ?? 'desc') === 'desc') sorted.reverse()
  const { items, headers } = paginate(ctx, sorted)
  return {
    status: 200,
    body: { total_count: artifacts.length, artifacts: items.map(a => ctx.render.artifact(a, run)) },
    headers
  }
}

/** 302 to a short-lived URL of the zip in the blob store; 410 once the artifact expired. */
const downloadArtifact: Handler = ctx => {
  requireRepo(ctx)
  requireActions(ctx, 'read')
  const id = Number(ctx.params.artifact_id)
  const run = ctx.state.runs.find(r => artifactsOf(ctx, r).some(a => a.id === id))
  const artifact = run && artifactsOf(ctx, run).find(a => a.id === id)
  if (!run || !artifact || ctx.params.archive_format !== 'zip') throw notFound(ctx)
  if (ctx.render.artifact(artifact, run).expired) throw fail(ctx, 410, 'Artifact has expired')
  const location = ctx.state.artifacts?.signedDownloadUrl(id)
  if (!location) throw notFound(ctx)
  return { status: 302, headers: { location } }
}

// --- reviews and their line comments ---

function reviewOr404(ctx: HandlerContext, pull: PullRecord) {
  const review = ctx.state.review(Number(ctx.params.review_id))
  if (!review || review.pullNumber !== pull.number) throw notFound(ctx)
  return review
}

const getReview: Handler = ctx => {
  requireRepo(ctx)
  const pull = pullOr404(ctx, Number(ctx.params.pull_number))
  return { status: 200, body: ctx.render.review(reviewOr404(ctx, pull)) }
}

const listReviews: Handler = ctx => {
  requireRepo(ctx)
  const pull = pullOr404(ctx, Number(ctx.params.pull_number))
  const { items, headers } = paginate(
    ctx,
    ctx.state.reviews.filter(r => r.pullNumber === pull.number)
  )
  return { status: 200, body: items.map(r => ctx.render.review(r)), headers }
}

const listCommentsForReview: Handler = ctx => {
  requireRepo(ctx)
  const pull = pullOr404(ctx, Number(ctx.params.pull_number))
  const review = reviewOr404(ctx, pull)
  const { items, headers } = paginate(
    ctx,
    ctx.state.reviewComments.filter(c => c.reviewId === review.id)
  )
  return { status: 200, body: items.map(c => ctx.render.reviewComment(c, 'in-review')), headers }
}

const listReviewComments: Handler = ctx => {
  requireRepo(ctx)
  const pull = pullOr404(ctx, Number(ctx.params.pull_number))
  let comments = ctx.state.reviewComments.filter(c => c.pullNumber === pull.number)
  if (ctx.params.since !== undefined) comments = comments.filter(c => c.updatedAt >= String(ctx.params.since))
  const { items, headers } = paginate(ctx, byCreated(ctx, comments))
  return { status: 200, body: items.map(c => ctx.render.reviewComment(c)), headers }
}

/**
 * A reply in a line comment's thread: GitHub makes it a review of its own (COMMENTED, no body) by whoever
 * replies. The docs say replies to replies are not supported: `comment_id` must be a thread's first
 * comment, so a reply's id is refused (modelled as GitHub's 422 Validation Failed).
 */
const createReplyForReviewComment: Handler = ctx => {
  requireRepo(ctx)
  const pull = pullOr404(ctx, Number(ctx.params.pull_number))
  const root = ctx.state.reviewComment(Number(ctx.params.comment_id))
  if (!root || root.pullNumber !== pull.number) throw notFound(ctx)
  if (root.inReplyToId !== undefined)
    throw new GitHubError(
      422,
      errorBody(422, 'Validation Failed', ctx.operation.docs, [
        {
          resource: 'PullRequestReviewComment',
          code: 'invalid',
          field: 'in_reply_to_id',
          message: 'replies to replies are not supported'
        }
      ]),
      true
    )
  checkBodyLength(ctx, ctx.body.body, 'IssueComment')
  const review = ctx.state.addReview(pull.number, { user: ctx.actor, state: 'COMMENTED' })
  const comment = ctx.state.addReviewComment(review, {
    path: root.path,
    body: String(ctx.body.body),
    inReplyTo: root.id
  })
  return { status: 201, body: ctx.render.reviewComment(comment) }
}

// --- jobs of workflow runs, and their logs ---

const listJobsForWorkflowRun: Handler = ctx => {
  requireRepo(ctx)
  requireActions(ctx, 'read')
  const run = runOr404(ctx)
  let jobs = ctx.state.jobs.filter(j => j.runId === run.id)
  // latest (the default): the jobs of the run's last attempt only.
  if (String(ctx.params.filter ?? 'latest') === 'latest') {
    const last = Math.max(0, ...jobs.map(j => j.runAttempt))
    jobs = jobs.filter(j => j.runAttempt === last)
  }
  const { items, headers } = paginate(ctx, jobs)
  return {
    status: 200,
    body: { total_count: jobs.length, jobs: items.map(j => ctx.render.job(j)) },
    headers
  }
}

const getJobForWorkflowRun: Handler = ctx => {
  requireRepo(ctx)
  requireActions(ctx, 'read')
  const job = ctx.state.job(Number(ctx.params.job_id))
  if (!job) throw notFound(ctx)
  return { status: 200, body: ctx.render.job(job) }
}

/** Where a job's log is served (not the API: the token must not be sent there), valid for a minute. */
export const JOB_LOG_PATH = '/_blob/job-logs/'

/** The signature of a job log's download URL, for `expires` (epoch seconds). */
export function jobLogSignature(state: GitHubState, jobId: number, expires: number): string {
  return createHmac('sha256', state.blobKey).update(`${jobId}:${expires}`).digest('base64url')
}

/** 302 to the log's short-lived URL, as GitHub redirects to its blob store. */
const downloadJobLogs: Handler = ctx => {
  requireRepo(ctx)
  requireActions(ctx, 'read')
  const job = ctx.state.job(Number(ctx.params.job_id))
  if (!job || job.log === undefined) throw notFound(ctx)
  const expires = Math.floor(ctx.state.clock().getTime() / 1000) + 60
  const signature = jobLogSignature(ctx.state, job.id, expires)
  const location = `${ctx.url.origin}${JOB_LOG_PATH}${job.id}?se=${expires}&sig=${signature}`
  return { status: 302, headers: { location } }
}

export const handlers: Record<string, Handler> = {
  'actions/get-workflow': getWorkflow,
  'actions/get-workflow-run': getWorkflowRun,
  'actions/create-workflow-dispatch': createWorkflowDispatch,
  'actions/list-workflow-run-artifacts': listWorkflowRunArtifacts,
  'actions/download-artifact': downloadArtifact,
  'actions/list-jobs-for-workflow-run': listJobsForWorkflowRun,
  'actions/get-job-for-workflow-run': getJobForWorkflowRun,
  'actions/download-job-logs-for-workflow-run': downloadJobLogs,
  'actions/get-github-actions-default-workflow-permissions-repository': getWorkflowPermissions,
  'git/create-ref': createRef,
  'git/get-ref': getRef,
  'repos/get': getRepo,
  'repos/get-branch': getBranch,
  'repos/get-collaborator-permission-level': getCollaboratorPermission,
  'users/get-by-username': getUser,
  'users/get-authenticated': getAuthenticatedUser,
  'pulls/create': createPull,
  'pulls/list': listPulls,
  'pulls/get': getPull,
  'pulls/update': updatePull,
  'pulls/request-reviewers': requestReviewers,
  'pulls/list-requested-reviewers': listRequestedReviewers,
  'pulls/get-review': getReview,
  'pulls/list-reviews': listReviews,
  'pulls/list-comments-for-review': listCommentsForReview,
  'pulls/list-review-comments': listReviewComments,
  'pulls/create-reply-for-review-comment': createReplyForReviewComment,
  'issues/create': createIssue,
  'issues/get': getIssue,
  'issues/update': updateIssue,
  'issues/list-for-repo': listIssues,
  'issues/add-assignees': addAssigneesHandler,
  'issues/add-labels': addLabels,
  'issues/set-labels': setLabels,
  'issues/remove-label': removeLabel,
  'issues/list-labels-on-issue': listLabelsOnIssue,
  'issues/list-labels-for-repo': listLabelsForRepo,
  'issues/create-comment': createComment,
  'issues/get-comment': getComment,
  'issues/update-comment': updateComment,
  'issues/delete-comment': deleteComment,
  'issues/list-comments': listComments,
  'reactions/create-for-issue': ctx => {
    requireRepo(ctx)
    return react(ctx, 'issue', issueOr404(ctx, Number(ctx.params.issue_number)).number)
  },
  'reactions/create-for-issue-comment': ctx => {
    requireRepo(ctx)
    return react(ctx, 'comment', commentOr404(ctx).id)
  },
  'reactions/list-for-issue': ctx => {
    requireRepo(ctx)
    return listReactions(ctx, 'issue', issueOr404(ctx, Number(ctx.params.issue_number)).number)
  },
  'reactions/list-for-issue-comment': ctx => {
    requireRepo(ctx)
    return listReactions(ctx, 'comment', commentOr404(ctx).id)
  }
}
