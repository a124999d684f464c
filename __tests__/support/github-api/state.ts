// What the GitHub stand-in knows: one repository, its accounts and roles, issues, pull requests, comments,
// reactions and labels, plus the failures a test wants GitHub to produce. Tests seed it before a run and
// read it afterwards; the handlers change it the way GitHub would.
import { createHash, randomBytes } from 'node:crypto'
import { execFileSync } from 'node:child_process'
import type { ArtifactService } from '../artifacts/index.js'

export type AccountType = 'User' | 'Bot' | 'Organization'

/** A repository role. `permission` (the legacy field) reports maintain as write and triage as read. */
export type RepoRole = 'admin' | 'maintain' | 'write' | 'triage' | 'read' | 'none'

/** A custom organisation role: its own name, and the base role GitHub reports as the legacy permission. */
export interface CustomRole {
  roleName: string
  base: RepoRole
}

export interface Account {
  login: string
  id: number
  type: AccountType
  name: string | null
}

export interface RepoSettings {
  owner: string
  name: string
  id: number
  defaultBranch: string
  private: boolean
  description: string | null
}

export interface IssueRecord {
  number: number
  id: number
  nodeId: string
  title: string
  body: string | null
  state: 'open' | 'closed'
  stateReason: 'completed' | 'not_planned' | 'reopened' | 'duplicate' | null
  /** Login of the author. */
  user: string
  labels: string[]
  assignees: string[]
  locked: boolean
  createdAt: string
  updatedAt: string
  closedAt: string | null
}

export interface PullRecord extends IssueRecord {
  /** Branch name of the head (without owner). */
  head: string
  /** Owner of the head repository: the repository owner, or a fork's owner. */
  headOwner: string
  /** Name of the head repository (differs from the base repository for a fork). */
  headRepo: string
  /** Head sha when the PR was created or last seen; the live branch tip wins when it can be read. */
  headSha: string
  base: string
  draft: boolean
  merged: boolean
  maintainerCanModify: boolean
  requestedReviewers: string[]
  requestedTeams: string[]
}

export interface GitCommit {
  sha: string
  tree: string
  parents: string[]
  author: { name: string; email: string; date: string }
  committer: { name: string; email: string; date: string }
  message: string
}

export interface CommentRecord {
  id: number
  nodeId: string
  issueNumber: number
  body: string
  user: string
  createdAt: string
  updatedAt: string
}

export type ReactionContent = '+1' | '-1' | 'laugh' | 'confused' | 'heart' | 'hooray' | 'rocket' | 'eyes'

export interface ReactionRecord {
  id: number
  nodeId: string
  /** What was reacted to: an issue or pull request (by number) or an issue comment (by id). */
  subject: 'issue' | 'comment'
  subjectId: number
  content: ReactionContent
  user: string
  createdAt: string
}

export interface LabelRecord {
  id: number
  nodeId: string
  name: string
  color: string
  description: string | null
  default: boolean
}

export type ReviewState = 'APPROVED' | 'CHANGES_REQUESTED' | 'COMMENTED' | 'DISMISSED' | 'PENDING'

export interface ReviewRecord {
  id: number
  nodeId: string
  pullNumber: number
  user: string
  body: string
  state: ReviewState
  /** The pull request's head when the review was submitted. */
  commitId: string
  submittedAt: string
}

export type DiffSide = 'LEFT' | 'RIGHT'

/** A comment on a pull request's diff (a line comment), part of one review and of one thread. */
export interface ReviewCommentRecord {
  id: number
  nodeId: string
  pullNumber: number
  reviewId: number
  user: string
  body: string
  path: string
  diffHunk: string
  /** null once outdated (the code it was left on changed): GitHub keeps only the original_ fields then. */
  line: number | null
  startLine: number | null
  originalLine: number | null
  originalStartLine: number | null
  side: DiffSide
  startSide: DiffSide | null
  subjectType: 'line' | 'file'
  commitId: string
  originalCommitId: string
  /** The thread's first comment, for a reply. */
  inReplyToId: number | undefined
  createdAt: string
  updatedAt: string
}

/** A review thread: its first comment and the replies to it, resolved or not (GraphQL only). */
export interface ReviewThreadRecord {
  /** The GraphQL node id (`PRRT_…`). */
  id: string
  pullNumber: number
  rootCommentId: number
  resolved: boolean
  resolvedBy: string | null
}

/** What a test seeds as one line comment of a review. */
export interface ReviewCommentSeed {
  path: string
  body: string
  /** The (last) line; absent for a comment on the whole file. */
  line?: number
  /** A range's first line. */
  startLine?: number
  side?: DiffSide
  startSide?: DiffSide
  diffHunk?: string
  /** The code it was left on changed since: line and position become null. */
  outdated?: boolean
  /** A reply to this comment's thread (its first comment's id). */
  inReplyTo?: number
}

export type JobConclusion = 'success' | 'failure' | 'neutral' | 'cancelled' | 'skipped' | 'timed_out'

export interface JobStepRecord {
  number: number
  name: string
  conclusion: JobConclusion | null
}

/** A job of a workflow run, with its log as the runner wrote it (timestamps, `##[group]`…). */
export interface JobRecord {
  id: number
  nodeId: string
  runId: number
  runAttempt: number
  name: string
  status: 'queued' | 'in_progress' | 'completed'
  conclusion: JobConclusion | null
  steps: JobStepRecord[]
  /** undefined: GitHub has no log for it (404). */
  log: string | undefined
  startedAt: string
  completedAt: string | null
}

/** One request for a job's log at the URL the API redirected to (the blob store, not the API). */
export interface LogDownloadRecord {
  jobId: number
  /** Whether the request carried an Authorization header (the blob store refuses it). */
  authorization: boolean
  range: string | undefined
  status: number
  /** Bytes sent in the answer's body. */
  bytes: number
}

/** A `workflow_dispatch` input as the workflow file declares it (`on.workflow_dispatch.inputs.<name>`). */
export interface WorkflowInput {
  required?: boolean
  default?: string
}

export interface WorkflowRecord {
  id: number
  nodeId: string
  name: string
  /** `.github/workflows/<file>`: GET …/workflows/{workflow_id} takes the id or the file's name. */
  path: string
  state: 'active' | 'disabled_manually'
  /** Its `workflow_dispatch` inputs; undefined when the workflow has no `workflow_dispatch` trigger. */
  dispatchInputs: Record<string, WorkflowInput> | undefined
  createdAt: string
  updatedAt: string
}

export interface WorkflowRunRecord {
  /** GITHUB_RUN_ID. */
  id: number
  nodeId: string
  workflowId: number
  runNumber: number
  runAttempt: number
  event: string
  displayTitle: string
  headBranch: string | null
  headSha: string
  /** The head repository, when it is a fork (`owner/name`); undefined for the repository itself. */
  headRepository: string | undefined
  status: 'queued' | 'in_progress' | 'completed' | 'waiting' | 'requested' | 'pending'
  conclusion: 'success' | 'failure' | 'cancelled' | 'timed_out' | 'skipped' | 'neutral' | null
  actor: string
  triggeringActor: string
  createdAt: string
  updatedAt: string
  /** The artifact service's id of this run: its artifacts are the ones uploaded under this id. */
  workflowRunBackendId: string
}

/** A `workflow_dispatch` the API accepted, and the run it queued. */
export interface DispatchRecord {
  workflowId: number
  ref: string
  /** The inputs as sent (strings, numbers and booleans as JSON has them). */
  inputs: Record<string, unknown>
  actor: string
  token: string | undefined
  runId: number
}

/** Make the next matching request(s) fail with this response, whatever the request was. */
export interface InjectedFailure {
  operationId: string
  status: number
  body?: unknown
  headers?: Record<string, string>
  /** How many requests it applies to; default 1. */
  times?: number
}

export interface Failures {
  /**
   * The setting "Allow GitHub Actions to create and approve pull requests" is off: creating a pull request
   * with a token that acts as github-actions[bot] fails with 403 (a PAT or App token still works).
   */
  actionsCannotCreatePullRequests: boolean
  /**
   * GitHub's node index lags behind a new pull request: for each PR created through the API, the first N
   * label additions and reviewer requests on it fail with 422 "Could not resolve to a node with the global id…".
   */
  unresolvedNodeAfterCreate: { labels: number; reviewers: number }
  /** Generic one-shot failures, matched by operationId, consumed in order. */
  next: InjectedFailure[]
}

export const GITHUB_ACTIONS_BOT = 'github-actions[bot]'

export interface GitHubStateOptions {
  owner?: string
  repo?: string
  defaultBranch?: string
  private?: boolean
  ownerType?: AccountType
  /** A bare git repository standing for the remote: branch heads and "No commits between" come from it. */
  gitDir?: string
  /** What the html_url fields start with. */
  serverUrl?: string
  clock?: () => Date
  /** The artifact service whose uploads the workflow runs' artifacts are (by each run's workflowRunBackendId). */
  artifacts?: ArtifactService
}

const ROLE_RANK: Record<RepoRole, number> = { none: 0, read: 1, triage: 2, write: 3, maintain: 4, admin: 5 }

export class GitHubState {
  readonly repo: RepoSettings
  readonly accounts = new Map<string, Account>()
  /** Login → role on the repository. Accounts without an entry have `read` on a public repo, `none` on a private one. */
  readonly roles = new Map<string, RepoRole | CustomRole>()
  /** Token → login it acts as. Tokens not listed act as `defaultActor` (what GITHUB_TOKEN is). */
  readonly tokens = new Map<string, string>()
  defaultActor = GITHUB_ACTIONS_BOT
  /**
   * Tokens of a job whose `permissions:` grant only read (`contents: read`…): every request but GET and HEAD
   * made with one is answered 403 "Resource not accessible by integration", as GitHub answers GITHUB_TOKEN.
   */
  readonly readOnlyTokens = new Set<string>()
  /**
   * Tokens of a job whose `permissions:` give `actions: read` (dispatching a workflow is refused 403) or no
   * `actions` at all (every Actions API request is refused 403). Tokens not listed have `actions: write`.
   */
  readonly actionsPermission = new Map<string, 'read' | 'none'>()
  /**
   * Tokens that may not read the repository's Actions settings (a fine-grained token without Administration:
   * read): GET …/actions/permissions/workflow answers them 403 "Resource not accessible by personal access token".
   */
  readonly settingsUnreadable = new Set<string>()
  /** Team slugs of the organisation that can be requested as reviewers. */
  readonly teams = new Set<string>()
  /** Branch → sha, used when there is no gitDir. Unknown branches get a made-up sha unless strictBranches. */
  readonly branches = new Map<string, string>()
  strictBranches = false
  /** Branches under a protection rule (`protected: true` in GET …/branches/{branch}). */
  readonly protectedBranches = new Set<string>()
  gitDir: string | undefined
  serverUrl: string
  clock: () => Date

  readonly issues: IssueRecord[] = []
  readonly pulls: PullRecord[] = []
  readonly comments: CommentRecord[] = []
  readonly reactions: ReactionRecord[] = []
  /** Repository labels by name (adding an unknown label to an issue creates it, as GitHub does). */
  readonly labels = new Map<string, LabelRecord>()
  readonly failures: Failures = {
    actionsCannotCreatePullRequests: false,
    unresolvedNodeAfterCreate: { labels: 0, reviewers: 0 },
    next: []
  }
  /** Remaining "Could not resolve to a node" failures per `labels:<n>` / `reviewers:<n>`. */
  readonly pendingUnresolved = new Map<string, number>()
  readonly workflows: WorkflowRecord[] = []
  readonly runs: WorkflowRunRecord[] = []
  /** Accepted workflow dispatches, in order. */
  readonly dispatches: DispatchRecord[] = []
  artifacts: ArtifactService | undefined
  readonly reviews: ReviewRecord[] = []
  readonly reviewComments: ReviewCommentRecord[] = []
  readonly reviewThreads: ReviewThreadRecord[] = []
  readonly jobs: JobRecord[] = []
  /** Requests for job logs at the download URL, in order. */
  readonly logDownloads: LogDownloadRecord[] = []
  /** Signs the blob store's short-lived URLs (job logs). */
  readonly blobKey = randomBytes(16)

  private nextNumber = 1
  private nextId = 1000

  constructor(options: GitHubStateOptions = {}) {
    this.serverUrl = options.serverUrl ?? 'https://github.com'
    this.clock = options.clock ?? (() => new Date())
    this.gitDir = options.gitDir
    this.artifacts = options.artifacts
    const owner = options.owner ?? 'octo-org'
    this.repo = {
      owner,
      name: options.repo ?? 'octo-repo',
      id: this.newId(),
      defaultBranch: options.defaultBranch ?? 'main',
      private: options.private ?? false,
      description: 'A repository standing in for a real one'
    }
    this.addAccount(owner, { type: options.ownerType ?? 'Organization' })
    this.accounts.set(GITHUB_ACTIONS_BOT, {
      login: GITHUB_ACTIONS_BOT,
      id: 41898282,
      type: 'Bot',
      name: null
    })
  }

  get fullName(): string {
    return `${this.repo.owner}/${this.repo.name}`
  }

  /** An ISO timestamp as GitHub writes it (seconds, `Z`). */
  now(): string {
    return timestamp(this.clock())
  }

  newId(): number {
    return this.nextId++
  }

  nodeId(prefix: string, id: number): string {
    return `${prefix}_kwDO${Buffer.from(`${this.repo.id}:${id}`).toString('base64url')}`
  }

  // --- accounts and roles ---

  addAccount(
    login: string,
    options: { type?: AccountType | undefined; name?: string | null | undefined } = {}
  ): Account {
    const account: Account = {
      login,
      id: this.newId(),
      type: options.type ?? 'User',
      name: options.name ?? null
    }
    this.accounts.set(login.toLowerCase(), account)
    return account
  }

  /** Adds a user (or bot) with a role on the repository; `role` may be a custom role with a base role. */
  addUser(
    login: string,
    options: { role?: RepoRole | CustomRole; type?: AccountType; name?: string } = {}
  ): Account {
    const account = this.addAccount(login, { type: options.type, name: options.name })
    if (options.role) this.roles.set(login.toLowerCase(), options.role)
    return account
  }

  account(login: string): Account | undefined {
    return this.accounts.get(login.toLowerCase())
  }

  /** The role name GitHub reports in `role_name`, and the legacy `permission`. */
  roleOf(login: string): {
    roleName: string
    permission: 'admin' | 'write' | 'read' | 'none'
    base: RepoRole
  } {
    const account = this.account(login)
    let role: RepoRole | CustomRole | undefined = this.roles.get(login.toLowerCase())
    if (!role && account && account.login.toLowerCase() === this.repo.owner.toLowerCase()) role = 'admin'
    if (!role) role = this.repo.private ? 'none' : 'read'
    const base = typeof role === 'string' ? role : role.base
    const roleName = typeof role === 'string' ? role : role.roleName
    const permission =
      base === 'admin'
        ? 'admin'
        : base === 'maintain' || base === 'write'
          ? 'write'
          : base === 'none'
            ? 'none'
            : 'read'
    return { roleName, permission, base }
  }

  hasRole(login: string, atLeast: RepoRole): boolean {
    return ROLE_RANK[this.roleOf(login).base] >= ROLE_RANK[atLeast]
  }

  /** Whether the login was given a role explicitly (a collaborator), as opposed to public read access. */
  isCollaborator(login: string): boolean {
    return this.roles.has(login.toLowerCase()) || login.toLowerCase() === this.repo.owner.toLowerCase()
  }

  /** Which login a token acts as. */
  actorFor(token: string | undefined): string {
    if (!token) return this.defaultActor
    return this.tokens.get(token) ?? this.defaultActor
  }

  // --- branches ---

  /** The sha a branch points at, or undefined when it does not exist. */
  branchSha(branch: string): string | undefined {
    if (this.gitDir) {
      try {
        return execFileSync(
          'git',
          ['--git-dir', this.gitDir, 'rev-parse', '--verify', '--quiet', `refs/heads/${branch}^{commit}`],
          {
            encoding: 'utf8',
            stdio: ['ignore', 'pipe', 'ignore']
          }
        ).trim()
      } catch {
        return undefined
      }
    }
    const known = this.branches.get(branch)
    if (known || this.strictBranches) return known
    const made = createHash('sha1').update(`${branch}:${this.branches.size}`).digest('hex')
    this.branches.set(branch, made)
    return made
  }

  /** Refs made through the API (POST …/git/refs) without a gitDir, by name. */
  readonly refs = new Map<string, string>()

  /** The commit a full ref names (refs/…), or undefined. */
  refCommit(ref: string): string | undefined {
    if (!this.gitDir) return this.refs.get(ref)
    try {
      return execFileSync(
        'git',
        ['--git-dir', this.gitDir, 'rev-parse', '--verify', '--quiet', `${ref}^{commit}`],
        {
          encoding: 'utf8',
          stdio: ['ignore', 'pipe', 'ignore']
        }
      ).trim()
    } catch {
      return undefined
    }
  }

  /**
   * Makes `ref` at `sha` only if it does not exist yet (in gitDir, atomically: `update-ref <ref> <sha> ''`):
   * 'exists' when it does, 'no-object' when the commit is not in the repository.
   */
  createRef(ref: string, sha: string): 'made' | 'exists' | 'no-object' {
    if (!this.gitDir) {
      if (this.refs.has(ref)) return 'exists'
      this.refs.set(ref, sha)
      return 'made'
    }
    const git = (args: string[]): boolean => {
      try {
        execFileSync('git', ['--git-dir', this.gitDir as string, ...args], { stdio: 'ignore' })
        return true
      } catch {
        return false
      }
    }
    if (!git(['cat-file', '-e', `${sha}^{commit}`])) return 'no-object'
    return git(['update-ref', ref, sha, '']) ? 'made' : 'exists'
  }

  /** A commit's git fields (from gitDir; made up without one), as GET …/branches/{branch} shows them. */
  commitOf(sha: string): GitCommit {
    if (this.gitDir) {
      try {
        const out = execFileSync(
          'git',
          ['--git-dir', this.gitDir, 'show', '-s', '--format=%T%n%P%n%an%n%ae%n%aI%n%cn%n%ce%n%cI%n%B', sha],
          { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }
        )
        const [tree, parents, an, ae, ad, cn, ce, cd, ...message] = out.split('\n')
        return {
          sha,
          tree,
          parents: parents.split(' ').filter(Boolean),
          author: { name: an, email: ae, date: ad },
          committer: { name: cn, email: ce, date: cd },
          message: message.join('\n').replace(/\n+$/, '')
        }
      } catch {
        // Fall through: a made-up commit for a sha the repository does not have.
      }
    }
    const person = { name: 'Octo Cat', email: 'octocat@example.com', date: this.now() }
    return {
      sha,
      tree: createHash('sha1').update(`tree:${sha}`).digest('hex'),
      parents: [],
      author: person,
      committer: person,
      message: 'A commit'
    }
  }

  /** How many commits head has that base has not (0 means GitHub's "No commits between"). */
  commitsAhead(base: string, head: string): number {
    if (this.gitDir) {
      try {
        return Number(
          execFileSync(
            'git',
            ['--git-dir', this.gitDir, 'rev-list', '--count', `refs/heads/${base}..refs/heads/${head}`],
            {
              encoding: 'utf8',
              stdio: ['ignore', 'pipe', 'ignore']
            }
          ).trim()
        )
      } catch {
        return 0
      }
    }
    return this.branchSha(base) === this.branchSha(head) ? 0 : 1
  }

  // --- issues, pulls, comments ---

  /** Issue or pull request by number (they share numbers, as on GitHub). */
  issueOrPull(number: number): IssueRecord | PullRecord | undefined {
    return this.pulls.find(p => p.number === number) ?? this.issues.find(i => i.number === number)
  }

  pull(number: number): PullRecord | undefined {
    return this.pulls.find(p => p.number === number)
  }

  isPull(record: IssueRecord): record is PullRecord {
    return 'head' in record
  }

  /** Seeds an issue (as if a person had opened it before the run). */
  addIssue(fields: Partial<IssueRecord> & { title: string }): IssueRecord {
    const number = this.nextNumber++
    const id = this.newId()
    const now = this.now()
    const issue: IssueRecord = {
      number,
      id,
      nodeId: this.nodeId('I', id),
      body: null,
      state: 'open',
      stateReason: null,
      user: this.repo.owner,
      labels: [],
      assignees: [],
      locked: false,
      createdAt: now,
      updatedAt: now,
      closedAt: null,
      ...fields
    }
    for (const label of issue.labels) this.ensureLabel(label)
    this.issues.push(issue)
    return issue
  }

  /** Seeds a pull request; `headOwner`/`headRepo` different from the repository make it a fork PR. */
  addPull(fields: Partial<PullRecord> & { title: string; head: string }): PullRecord {
    const number = this.nextNumber++
    const id = this.newId()
    const now = this.now()
    const pull: PullRecord = {
      number,
      id,
      nodeId: this.nodeId('PR', id),
      body: null,
      state: 'open',
      stateReason: null,
      user: this.repo.owner,
      labels: [],
      assignees: [],
      locked: false,
      createdAt: now,
      updatedAt: now,
      closedAt: null,
      headOwner: this.repo.owner,
      headRepo: this.repo.name,
      headSha: '',
      base: this.repo.defaultBranch,
      draft: false,
      merged: false,
      maintainerCanModify: false,
      requestedReviewers: [],
      requestedTeams: [],
      ...fields
    }
    if (!pull.headSha) pull.headSha = this.branchSha(pull.head) ?? '0'.repeat(40)
    for (const label of pull.labels) this.ensureLabel(label)
    this.pulls.push(pull)
    return pull
  }

  /** Seeds an issue comment (created/updated times may be set to model edits made after a trigger). */
  addComment(issueNumber: number, fields: Partial<CommentRecord> & { body: string }): CommentRecord {
    const id = this.newId()
    const now = this.now()
    const comment: CommentRecord = {
      id,
      nodeId: this.nodeId('IC', id),
      issueNumber,
      user: this.repo.owner,
      createdAt: now,
      updatedAt: now,
      ...fields
    }
    this.comments.push(comment)
    return comment
  }

  comment(id: number): CommentRecord | undefined {
    return this.comments.find(c => c.id === id)
  }

  ensureLabel(name: string): LabelRecord {
    const existing = [...this.labels.values()].find(l => l.name.toLowerCase() === name.toLowerCase())
    if (existing) return existing
    const id = this.newId()
    const label: LabelRecord = {
      id,
      nodeId: this.nodeId('LA', id),
      name,
      color: 'ededed',
      description: null,
      default: false
    }
    this.labels.set(name, label)
    return label
  }

  // --- workflows and their runs ---

  /** Registers a workflow file, e.g. `addWorkflow({ path: '.github/workflows/ralph.yml', dispatchInputs: { resume: {} } })`. */
  addWorkflow(fields: Partial<Omit<WorkflowRecord, 'path'>> & { path: string }): WorkflowRecord {
    const id = fields.id ?? this.newId()
    const now = this.now()
    const workflow: WorkflowRecord = {
      nodeId: this.nodeId('W', id),
      name: fields.path.replace(/^.*\//, ''),
      state: 'active',
      dispatchInputs: undefined,
      createdAt: now,
      updatedAt: now,
      ...fields,
      id
    }
    this.workflows.push(workflow)
    return workflow
  }

  /** A workflow by id, or by its file's name (`ralph.yml`), as the API's `workflow_id` takes it. */
  workflow(idOrFile: number | string): WorkflowRecord | undefined {
    return typeof idOrFile === 'number'
      ? this.workflows.find(w => w.id === idOrFile)
      : this.workflows.find(w => w.path.replace(/^.*\//, '') === idOrFile)
  }

  /**
   * Registers a run of a workflow (by path; registered if new): `id` is its GITHUB_RUN_ID, `headRepository`
   * an `owner/name` makes it a fork's run, and `workflowRunBackendId` ties it to the artifact service's uploads.
   */
  addRun(
    fields: Partial<Omit<WorkflowRunRecord, 'workflowId'>> & { workflowPath: string }
  ): WorkflowRunRecord {
    const { workflowPath, ...rest } = fields
    const workflow =
      this.workflows.find(w => w.path === workflowPath) ?? this.addWorkflow({ path: workflowPath })
    const id = rest.id ?? this.newId()
    const now = this.now()
    const headBranch = rest.headBranch === undefined ? this.repo.defaultBranch : rest.headBranch
    const run: WorkflowRunRecord = {
      nodeId: this.nodeId('WFR', id),
      runNumber: this.runs.filter(r => r.workflowId === workflow.id).length + 1,
      runAttempt: 1,
      event: 'workflow_dispatch',
      displayTitle: workflow.name,
      headBranch,
      headSha: (headBranch === null ? undefined : this.branchSha(headBranch)) ?? '0'.repeat(40),
      headRepository: undefined,
      status: 'in_progress',
      conclusion: null,
      actor: this.defaultActor,
      triggeringActor: rest.actor ?? this.defaultActor,
      createdAt: now,
      updatedAt: now,
      workflowRunBackendId: `c0ffee00-0000-4000-8000-${String(id).padStart(12, '0')}`,
      ...rest,
      id,
      workflowId: workflow.id
    }
    this.runs.push(run)
    return run
  }

  run(id: number): WorkflowRunRecord | undefined {
    return this.runs.find(r => r.id === id)
  }

  // --- reviews, their line comments and threads ---

  /**
   * Seeds a submitted review of pull request `pullNumber` with its line comments (each a thread of its own,
   * or a reply to `inReplyTo`'s thread), e.g.
   * `addReview(7, { user: 'alice', state: 'CHANGES_REQUESTED', body: 'Two things', comments: [{ path: 'a.js', line: 3, body: '…' }] })`.
   */
  addReview(
    pullNumber: number,
    fields: { user: string; state: ReviewState; body?: string; comments?: ReviewCommentSeed[] }
  ): ReviewRecord & { comments: ReviewCommentRecord[] } {
    const pull = this.pull(pullNumber)
    if (!pull) throw new Error(`no pull request #${pullNumber} in the GitHub stand-in`)
    const id = this.newId()
    const head = this.branchSha(pull.head) ?? pull.headSha
    const review: ReviewRecord = {
      id,
      nodeId: this.nodeId('PRR', id),
      pullNumber,
      user: fields.user,
      body: fields.body ?? '',
      state: fields.state,
      commitId: head,
      submittedAt: this.now()
    }
    this.reviews.push(review)
    const comments = (fields.comments ?? []).map(seed => this.addReviewComment(review, seed))
    return { ...review, comments }
  }

  /** A line comment of `review`; a new thread unless it replies to one. */
  addReviewComment(review: ReviewRecord, seed: ReviewCommentSeed): ReviewCommentRecord {
    const id = this.newId()
    const now = this.now()
    const root = seed.inReplyTo === undefined ? undefined : this.reviewComment(seed.inReplyTo)
    if (seed.inReplyTo !== undefined && !root) throw new Error(`no review comment ${seed.inReplyTo}`)
    const line = seed.line ?? null
    const startLine = seed.startLine ?? null
    // A reply sits where its thread does.
    const where = root
      ? {
          path: root.path,
          diffHunk: root.diffHunk,
          line: root.line,
          startLine: root.startLine,
          originalLine: root.originalLine,
          originalStartLine: root.originalStartLine,
          side: root.side,
          startSide: root.startSide,
          subjectType: root.subjectType,
          originalCommitId: root.originalCommitId
        }
      : {
          path: seed.path,
          diffHunk: seed.diffHunk ?? `@@ -1,3 +1,3 @@\n context\n-old\n+new`,
          line: seed.outdated ? null : line,
          startLine: seed.outdated ? null : startLine,
          originalLine: line,
          originalStartLine: startLine,
          side: seed.side ?? 'RIGHT',
          startSide: startLine === null ? null : (seed.startSide ?? seed.side ?? 'RIGHT'),
          subjectType: line === null ? ('file' as const) : ('line' as const),
          originalCommitId: seed.outdated
            ? createHash('sha1').update(`before:${review.commitId}`).digest('hex')
            : review.commitId
        }
    const comment: ReviewCommentRecord = {
      id,
      nodeId: this.nodeId('PRRC', id),
      pullNumber: review.pullNumber,
      reviewId: review.id,
      user: review.user,
      body: seed.body,
      ...where,
      commitId: review.commitId,
      inReplyToId: root ? (root.inReplyToId ?? root.id) : undefined,
      createdAt: now,
      updatedAt: now
    }
    this.reviewComments.push(comment)
    if (!root)
      this.reviewThreads.push({
        id: this.nodeId('PRRT', id),
        pullNumber: review.pullNumber,
        rootCommentId: id,
        resolved: false,
        resolvedBy: null
      })
    return comment
  }

  review(id: number): ReviewRecord | undefined {
    return this.reviews.find(r => r.id === id)
  }

  reviewComment(id: number): ReviewCommentRecord | undefined {
    return this.reviewComments.find(c => c.id === id)
  }

  /** The thread a line comment is in. */
  threadOf(comment: ReviewCommentRecord): ReviewThreadRecord | undefined {
    const root = comment.inReplyToId ?? comment.id
    return this.reviewThreads.find(t => t.rootCommentId === root)
  }

  /** A thread's comments, first to last. */
  threadComments(thread: ReviewThreadRecord): ReviewCommentRecord[] {
    return this.reviewComments.filter(
      c => c.id === thread.rootCommentId || c.inReplyToId === thread.rootCommentId
    )
  }

  // --- jobs of workflow runs ---

  /** Seeds a job of run `runId` (completed, by default a failure) with its log. */
  addJob(
    runId: number,
    fields: Partial<Omit<JobRecord, 'runId' | 'steps'>> & {
      name: string
      steps?: { name: string; conclusion: JobConclusion | null }[]
    }
  ): JobRecord {
    const run = this.run(runId)
    if (!run) throw new Error(`no workflow run ${runId} in the GitHub stand-in`)
    const id = fields.id ?? this.newId()
    const now = this.now()
    const { steps = [], ...rest } = fields
    const job: JobRecord = {
      nodeId: this.nodeId('CR', id),
      runAttempt: run.runAttempt,
      status: 'completed',
      conclusion: 'failure',
      log: undefined,
      startedAt: now,
      completedAt: now,
      ...rest,
      id,
      runId,
      steps: steps.map((step, i) => ({ number: i + 1, ...step }))
    }
    this.jobs.push(job)
    return job
  }

  job(id: number): JobRecord | undefined {
    return this.jobs.find(j => j.id === id)
  }

  /** The commit a branch or tag name (or `refs/heads/…`, `refs/tags/…`) names; undefined when none exists. */
  refSha(ref: string): string | undefined {
    if (ref.startsWith('refs/tags/')) return this.tagSha(ref)
    const sha = this.branchSha(ref.replace(/^refs\/heads\//, ''))
    return sha ?? (ref.startsWith('refs/heads/') ? undefined : this.tagSha(`refs/tags/${ref}`))
  }

  private tagSha(ref: string): string | undefined {
    if (!this.gitDir) return undefined
    try {
      const args = ['--git-dir', this.gitDir, 'rev-parse', '--verify', '--quiet', `${ref}^{commit}`]
      return execFileSync('git', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim()
    } catch {
      return undefined
    }
  }

  /** Reactions on an issue/PR (by number) or on a comment (by id). */
  reactionsOn(subject: 'issue' | 'comment', subjectId: number): ReactionRecord[] {
    return this.reactions.filter(r => r.subject === subject && r.subjectId === subjectId)
  }
}

export function timestamp(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z')
}
