// REST response bodies built from the stand-in's state, in the shapes GitHub's description requires
// (the stand-in's own tests check them against the response schemas).
import type { StoredArtifact } from '../artifacts/index.js'
import type {
  Account,
  CommentRecord,
  GitHubState,
  IssueRecord,
  JobRecord,
  LabelRecord,
  PullRecord,
  ReactionRecord,
  ReviewCommentRecord,
  ReviewRecord,
  WorkflowRecord,
  WorkflowRunRecord
} from './state.js'

type Json = Record<string, unknown>

export class Renderer {
  constructor(
    private readonly state: GitHubState,
    /** The stand-in's own URL: API urls in bodies point back at it, so following them works. */
    public apiUrl: string
  ) {}

  private get repoApi(): string {
    return `${this.apiUrl}/repos/${this.state.repo.owner}/${this.state.repo.name}`
  }

  private get repoHtml(): string {
    return `${this.state.serverUrl}/${this.state.repo.owner}/${this.state.repo.name}`
  }

  user(login: string): Json {
    const account: Account = this.state.account(login) ?? { login, id: 0, type: 'User', name: null }
    const api = `${this.apiUrl}/users/${encodeURIComponent(account.login)}`
    const html =
      account.type === 'Bot'
        ? `${this.state.serverUrl}/apps/${account.login.replace(/\[bot\]$/, '')}`
        : `${this.state.serverUrl}/${encodeURIComponent(account.login)}`
    return {
      login: account.login,
      id: account.id,
      node_id: this.state.nodeId(
        account.type === 'Bot' ? 'BOT' : account.type === 'Organization' ? 'O' : 'U',
        account.id
      ),
      avatar_url: `https://avatars.githubusercontent.com/u/${account.id}?v=4`,
      gravatar_id: '',
      url: api,
      html_url: html,
      followers_url: `${api}/followers`,
      following_url: `${api}/following{/other_user}`,
      gists_url: `${api}/gists{/gist_id}`,
      starred_url: `${api}/starred{/owner}{/repo}`,
      subscriptions_url: `${api}/subscriptions`,
      organizations_url: `${api}/orgs`,
      repos_url: `${api}/repos`,
      events_url: `${api}/events{/privacy}`,
      received_events_url: `${api}/received_events`,
      type: account.type,
      user_view_type: 'public',
      site_admin: false
    }
  }

  /** GET /users/{username}: the public profile. */
  publicUser(login: string): Json {
    const account = this.state.account(login)
    return {
      ...this.user(login),
      name: account?.name ?? null,
      company: null,
      blog: '',
      location: null,
      email: null,
      hireable: null,
      bio: null,
      twitter_username: null,
      public_repos: 1,
      public_gists: 0,
      followers: 0,
      following: 0,
      created_at: '2020-01-01T00:00:00Z',
      updated_at: '2020-01-01T00:00:00Z'
    }
  }

  /** The `user` of the collaborator permission endpoint: a user with their permissions and role. */
  collaborator(login: string): Json {
    const { roleName, base } = this.state.roleOf(login)
    return {
      ...this.user(login),
      permissions: this.permissionFlags(base),
      role_name: roleName
    }
  }

  permissionFlags(base: string): Json {
    const rank = ['none', 'read', 'triage', 'write', 'maintain', 'admin'].indexOf(base)
    return { admin: rank >= 5, maintain: rank >= 4, push: rank >= 3, triage: rank >= 2, pull: rank >= 1 }
  }

  repository(options: { full?: boolean; viewer?: string } = {}): Json {
    const { repo } = this.state
    const api = this.repoApi
    const now = this.state.now()
    const body: Json = {
      id: repo.id,
      node_id: this.state.nodeId('R', repo.id),
      name: repo.name,
      full_name: this.state.fullName,
      private: repo.private,
      owner: this.user(repo.owner),
      html_url: this.repoHtml,
      description: repo.description,
      fork: false,
      url: api,
      archive_url: `${api}/{archive_format}{/ref}`,
      assignees_url: `${api}/assignees{/user}`,
      blobs_url: `${api}/git/blobs{/sha}`,
      branches_url: `${api}/branches{/branch}`,
      collaborators_url: `${api}/collaborators{/collaborator}`,
      comments_url: `${api}/comments{/number}`,
      commits_url: `${api}/commits{/sha}`,
      compare_url: `${api}/compare/{base}...{head}`,
      contents_url: `${api}/contents/{+path}`,
      contributors_url: `${api}/contributors`,
      deployments_url: `${api}/deployments`,
      downloads_url: `${api}/downloads`,
      events_url: `${api}/events`,
      forks_url: `${api}/forks`,
      git_commits_url: `${api}/git/commits{/sha}`,
      git_refs_url: `${api}/git/refs{/sha}`,
      git_tags_url: `${api}/git/tags{/sha}`,
      git_url: `git://${new URL(this.state.serverUrl).host}/${this.state.fullName}.git`,
      issue_comment_url: `${api}/issues/comments{/number}`,
      issue_events_url: `${api}/issues/events{/number}`,
      issues_url: `${api}/issues{/number}`,
      keys_url: `${api}/keys{/key_id}`,
      labels_url: `${api}/labels{/name}`,
      languages_url: `${api}/languages`,
      merges_url: `${api}/merges`,
      milestones_url: `${api}/milestones{/number}`,
      notifications_url: `${api}/notifications{?since,all,participating}`,
      pulls_url: `${api}/pulls{/number}`,
      releases_url: `${api}/releases{/id}`,
      ssh_url: `git@${new URL(this.state.serverUrl).host}:${this.state.fullName}.git`,
      stargazers_url: `${api}/stargazers`,
      statuses_url: `${api}/statuses/{sha}`,
      subscribers_url: `${api}/subscribers`,
      subscription_url: `${api}/subscription`,
      tags_url: `${api}/tags`,
      teams_url: `${api}/teams`,
      trees_url: `${api}/git/trees{/sha}`,
      clone_url: `${this.repoHtml}.git`,
      mirror_url: null,
      hooks_url: `${api}/hooks`,
      svn_url: this.repoHtml,
      homepage: null,
      language: 'TypeScript',
      forks_count: 0,
      forks: 0,
      stargazers_count: 0,
      watchers_count: 0,
      watchers: 0,
      size: 100,
      default_branch: repo.defaultBranch,
      open_issues_count: this.openIssueCount(),
      open_issues: this.openIssueCount(),
      is_template: false,
      topics: [],
      has_issues: true,
      has_projects: true,
      has_wiki: true,
      has_pages: false,
      has_downloads: true,
      has_discussions: false,
      archived: false,
      disabled: false,
      visibility: repo.private ? 'private' : 'public',
      pushed_at: now,
      created_at: '2020-01-01T00:00:00Z',
      updated_at: now,
      license: null,
      allow_forking: true,
      web_commit_signoff_required: false
    }
    if (options.viewer) body.permissions = this.permissionFlags(this.state.roleOf(options.viewer).base)
    if (options.full) {
      Object.assign(body, {
        network_count: 0,
        subscribers_count: 0,
        allow_rebase_merge: true,
        allow_squash_merge: true,
        allow_merge_commit: true,
        allow_auto_merge: false,
        delete_branch_on_merge: false,
        allow_update_branch: false
      })
      if (this.state.account(repo.owner)?.type === 'Organization') body.organization = this.user(repo.owner)
    }
    return body
  }

  private openIssueCount(): number {
    return [...this.state.issues, ...this.state.pulls].filter(i => i.state === 'open').length
  }

  label(label: LabelRecord): Json {
    return {
      id: label.id,
      node_id: label.nodeId,
      url: `${this.repoApi}/labels/${encodeURIComponent(label.name)}`,
      name: label.name,
      color: label.color,
      default: label.default,
      description: label.description
    }
  }

  labelsOf(record: IssueRecord): Json[] {
    return record.labels.map(name => this.label(this.state.ensureLabel(name)))
  }

  /** Labels inside a pull request: the description types `description` there as a plain string. */
  private pullLabels(record: IssueRecord): Json[] {
    return this.labelsOf(record).map(label => ({ ...label, description: label.description ?? '' }))
  }

  private authorAssociation(login: string): string {
    if (login.toLowerCase() === this.state.repo.owner.toLowerCase()) return 'OWNER'
    if (this.state.isCollaborator(login)) {
      return this.state.account(this.state.repo.owner)?.type === 'Organization' ? 'MEMBER' : 'COLLABORATOR'
    }
    return 'NONE'
  }

  reactionRollup(subject: 'issue' | 'comment', id: number, url: string): Json {
    const reactions = this.state.reactionsOn(subject, id)
    const count = (content: string) => reactions.filter(r => r.content === content).length
    return {
      url: `${url}/reactions`,
      total_count: reactions.length,
      '+1': count('+1'),
      '-1': count('-1'),
      laugh: count('laugh'),
      hooray: count('hooray'),
      confused: count('confused'),
      heart: count('heart'),
      rocket: count('rocket'),
      eyes: count('eyes')
    }
  }

  issue(record: IssueRecord): Json {
    const url = `${this.repoApi}/issues/${record.number}`
    const isPull = this.state.isPull(record)
    const html = `${this.repoHtml}/${isPull ? 'pull' : 'issues'}/${record.number}`
    const assignees = record.assignees.map(login => this.user(login))
    const body: Json = {
      id: record.id,
      node_id: record.nodeId,
      url,
      repository_url: this.repoApi,
      labels_url: `${url}/labels{/name}`,
      comments_url: `${url}/comments`,
      events_url: `${url}/events`,
      html_url: html,
      number: record.number,
      state: record.state,
      state_reason: record.stateReason,
      title: record.title,
      body: record.body,
      user: this.user(record.user),
      labels: this.labelsOf(record),
      assignee: assignees[0] ?? null,
      assignees,
      milestone: null,
      locked: record.locked,
      active_lock_reason: null,
      comments: this.state.comments.filter(c => c.issueNumber === record.number).length,
      closed_at: record.closedAt,
      created_at: record.createdAt,
      updated_at: record.updatedAt,
      closed_by: null,
      author_association: this.authorAssociation(record.user),
      reactions: this.reactionRollup('issue', record.number, url),
      timeline_url: `${url}/timeline`
    }
    if (isPull) {
      const pull = record as PullRecord
      body.draft = pull.draft
      body.pull_request = {
        url: `${this.repoApi}/pulls/${record.number}`,
        html_url: html,
        diff_url: `${html}.diff`,
        patch_url: `${html}.patch`,
        merged_at: null
      }
    }
    return body
  }

  private branchSide(pull: PullRecord, side: 'head' | 'base'): Json {
    const fork =
      side === 'head' && (pull.headOwner !== this.state.repo.owner || pull.headRepo !== this.state.repo.name)
    const ref = side === 'head' ? pull.head : pull.base
    const owner = side === 'head' ? pull.headOwner : this.state.repo.owner
    const live = fork ? undefined : this.state.branchSha(ref)
    if (side === 'head' && live && pull.state === 'open') pull.headSha = live
    const sha = side === 'head' ? pull.headSha : (live ?? '0'.repeat(40))
    const repo = fork ? this.forkRepository(pull.headOwner, pull.headRepo) : this.repository()
    return { label: `${owner}:${ref}`, ref, sha, user: this.user(owner), repo }
  }

  /** A fork of the repository, as a pull request's or a workflow run's head repository. */
  private forkRepository(owner: string, name: string): Json {
    const repo = this.repository()
    const forkName = `${owner}/${name}`
    return {
      ...repo,
      id: Number(repo.id) + 1,
      name,
      full_name: forkName,
      fork: true,
      owner: this.user(owner),
      html_url: `${this.state.serverUrl}/${forkName}`,
      url: `${this.apiUrl}/repos/${forkName}`,
      clone_url: `${this.state.serverUrl}/${forkName}.git`
    }
  }

  /** A pull request: the full form (GET/POST/PATCH one) or the simple form (lists, review requests). */
  pull(pull: PullRecord, options: { full: boolean }): Json {
    const url = `${this.repoApi}/pulls/${pull.number}`
    const issueUrl = `${this.repoApi}/issues/${pull.number}`
    const html = `${this.repoHtml}/pull/${pull.number}`
    const head = this.branchSide(pull, 'head')
    const assignees = pull.assignees.map(login => this.user(login))
    const body: Json = {
      url,
      id: pull.id,
      node_id: pull.nodeId,
      html_url: html,
      diff_url: `${html}.diff`,
      patch_url: `${html}.patch`,
      issue_url: issueUrl,
      commits_url: `${url}/commits`,
      review_comments_url: `${url}/comments`,
      review_comment_url: `${this.repoApi}/pulls/comments{/number}`,
      comments_url: `${issueUrl}/comments`,
      statuses_url: `${this.repoApi}/statuses/${String(head.sha)}`,
      number: pull.number,
      state: pull.state,
      locked: pull.locked,
      title: pull.title,
      user: this.user(pull.user),
      body: pull.body,
      labels: this.pullLabels(pull),
      milestone: null,
      active_lock_reason: null,
      created_at: pull.createdAt,
      updated_at: pull.updatedAt,
      closed_at: pull.closedAt,
      merged_at: null,
      merge_commit_sha: null,
      assignee: assignees[0] ?? null,
      assignees,
      requested_reviewers: pull.requestedReviewers.map(login => this.user(login)),
      requested_teams: pull.requestedTeams.map(slug => this.team(slug)),
      head,
      base: this.branchSide(pull, 'base'),
      _links: {
        self: { href: url },
        html: { href: html },
        issue: { href: issueUrl },
        comments: { href: `${issueUrl}/comments` },
        review_comments: { href: `${url}/comments` },
        review_comment: { href: `${this.repoApi}/pulls/comments{/number}` },
        commits: { href: `${url}/commits` },
        statuses: { href: `${this.repoApi}/statuses/${String(head.sha)}` }
      },
      author_association: this.authorAssociation(pull.user),
      auto_merge: null,
      draft: pull.draft
    }
    if (options.full) {
      const ahead = pull.state === 'open' ? this.state.commitsAhead(pull.base, pull.head) : 1
      Object.assign(body, {
        merged: pull.merged,
        // GitHub computes mergeability in the background: right after a change it reports null/"unknown".
        mergeable: null,
        rebaseable: null,
        mergeable_state: 'unknown',
        merged_by: null,
        comments: this.state.comments.filter(c => c.issueNumber === pull.number).length,
        review_comments: 0,
        maintainer_can_modify: pull.maintainerCanModify,
        commits: ahead,
        additions: ahead,
        deletions: 0,
        changed_files: ahead
      })
    }
    return body
  }

  team(slug: string): Json {
    const id = [...slug].reduce((n, c) => n * 31 + c.charCodeAt(0), 7) % 1_000_000
    const org = this.state.repo.owner
    return {
      id,
      node_id: this.state.nodeId('T', id),
      url: `${this.apiUrl}/orgs/${org}/teams/${slug}`,
      html_url: `${this.state.serverUrl}/orgs/${org}/teams/${slug}`,
      name: slug,
      slug,
      description: null,
      privacy: 'closed',
      notification_setting: 'notifications_enabled',
      permission: 'pull',
      members_url: `${this.apiUrl}/orgs/${org}/teams/${slug}/members{/member}`,
      repositories_url: `${this.apiUrl}/orgs/${org}/teams/${slug}/repos`,
      type: 'team',
      parent: null
    }
  }

  /** GET …/branches/{branch}: its tip as a commit, and whether a protection rule covers it. */
  branch(name: string, sha: string): Json {
    const commit = this.state.commitOf(sha)
    const api = this.repoApi
    const isProtected = this.state.protectedBranches.has(name)
    const protectionUrl = `${api}/branches/${encodeURIComponent(name)}/protection`
    return {
      name,
      commit: {
        url: `${api}/commits/${sha}`,
        sha,
        node_id: this.state.nodeId('C', Number.parseInt(sha.slice(0, 8), 16)),
        html_url: `${this.repoHtml}/commit/${sha}`,
        comments_url: `${api}/commits/${sha}/comments`,
        commit: {
          url: `${api}/git/commits/${sha}`,
          author: commit.author,
          committer: commit.committer,
          message: commit.message,
          comment_count: 0,
          tree: { sha: commit.tree, url: `${api}/git/trees/${commit.tree}` },
          verification: {
            verified: false,
            reason: 'unsigned',
            signature: null,
            payload: null,
            verified_at: null
          }
        },
        // GitHub maps emails to accounts; the stand-in maps none.
        author: null,
        committer: null,
        parents: commit.parents.map(parent => ({
          sha: parent,
          url: `${api}/commits/${parent}`,
          html_url: `${this.repoHtml}/commit/${parent}`
        }))
      },
      _links: { self: `${api}/branches/${encodeURIComponent(name)}`, html: `${this.repoHtml}/tree/${name}` },
      protected: isProtected,
      protection: {
        enabled: isProtected,
        required_status_checks: {
          enforcement_level: isProtected ? 'non_admins' : 'off',
          contexts: [],
          checks: []
        }
      },
      protection_url: protectionUrl
    }
  }

  comment(comment: CommentRecord): Json {
    const url = `${this.repoApi}/issues/comments/${comment.id}`
    const parent = this.state.issueOrPull(comment.issueNumber)
    const kind = parent && this.state.isPull(parent) ? 'pull' : 'issues'
    return {
      id: comment.id,
      node_id: comment.nodeId,
      url,
      html_url: `${this.repoHtml}/${kind}/${comment.issueNumber}#issuecomment-${comment.id}`,
      body: comment.body,
      user: this.user(comment.user),
      created_at: comment.createdAt,
      updated_at: comment.updatedAt,
      issue_url: `${this.repoApi}/issues/${comment.issueNumber}`,
      author_association: this.authorAssociation(comment.user),
      performed_via_github_app: null,
      reactions: this.reactionRollup('comment', comment.id, url)
    }
  }

  reaction(reaction: ReactionRecord): Json {
    return {
      id: reaction.id,
      node_id: reaction.nodeId,
      user: this.user(reaction.user),
      content: reaction.content,
      created_at: reaction.createdAt
    }
  }

  workflow(workflow: WorkflowRecord): Json {
    const file = workflow.path.replace(/^.*\//, '')
    return {
      id: workflow.id,
      node_id: workflow.nodeId,
      name: workflow.name,
      path: workflow.path,
      state: workflow.state,
      created_at: workflow.createdAt,
      updated_at: workflow.updatedAt,
      url: `${this.repoApi}/actions/workflows/${workflow.id}`,
      html_url: `${this.repoHtml}/blob/${this.state.repo.defaultBranch}/${workflow.path}`,
      badge_url: `${this.repoHtml}/workflows/${encodeURIComponent(file)}/badge.svg`
    }
  }

  /** GET …/actions/runs/{run_id}: a run with its workflow, head commit and head repository (a fork's, or ours). */
  workflowRun(run: WorkflowRunRecord): Json {
    const api = `${this.repoApi}/actions/runs/${run.id}`
    const workflow = this.state.workflow(run.workflowId)
    const commit = this.state.commitOf(run.headSha)
    const [forkOwner, forkName] = run.headRepository?.split('/') ?? []
    const headRepository = forkOwner ? this.forkRepository(forkOwner, forkName) : this.repository()
    const checkSuiteId = run.id + 1_000_000
    return {
      id: run.id,
      name: workflow?.name ?? null,
      node_id: run.nodeId,
      check_suite_id: checkSuiteId,
      check_suite_node_id: this.state.nodeId('CS', checkSuiteId),
      head_branch: run.headBranch,
      head_sha: run.headSha,
      path: workflow?.path ?? '',
      run_number: run.runNumber,
      run_attempt: run.runAttempt,
      referenced_workflows: [],
      event: run.event,
      status: run.status,
      conclusion: run.conclusion,
      workflow_id: run.workflowId,
      url: api,
      html_url: `${this.repoHtml}/actions/runs/${run.id}`,
      pull_requests: [],
      created_at: run.createdAt,
      updated_at: run.updatedAt,
      actor: this.user(run.actor),
      triggering_actor: this.user(run.triggeringActor),
      run_started_at: run.createdAt,
      jobs_url: `${api}/jobs`,
      logs_url: `${api}/logs`,
      check_suite_url: `${this.repoApi}/check-suites/${checkSuiteId}`,
      artifacts_url: `${api}/artifacts`,
      cancel_url: `${api}/cancel`,
      rerun_url: `${api}/rerun`,
      previous_attempt_url: run.runAttempt > 1 ? `${api}/attempts/${run.runAttempt - 1}` : null,
      workflow_url: `${this.repoApi}/actions/workflows/${run.workflowId}`,
      head_commit: {
        id: run.headSha,
        tree_id: commit.tree,
        message: commit.message,
        timestamp: commit.committer.date,
        author: { name: commit.author.name, email: commit.author.email },
        committer: { name: commit.committer.name, email: commit.committer.email }
      },
      repository: this.repository(),
      head_repository: headRepository,
      head_repository_id: headRepository.id,
      display_title: run.displayTitle
    }
  }

  /** A submitted review (GET …/pulls/{n}/reviews/{id}). */
  review(review: ReviewRecord): Json {
    const pullUrl = `${this.repoApi}/pulls/${review.pullNumber}`
    const html = `${this.repoHtml}/pull/${review.pullNumber}#pullrequestreview-${review.id}`
    return {
      id: review.id,
      node_id: review.nodeId,
      user: this.user(review.user),
      body: review.body,
      state: review.state,
      html_url: html,
      pull_request_url: pullUrl,
      _links: { html: { href: html }, pull_request: { href: pullUrl } },
      submitted_at: review.submittedAt,
      commit_id: review.commitId,
      author_association: this.authorAssociation(review.user)
    }
  }

  /**
   * A line comment, as a review's comments list it (`in-review`: the review-comment schema) and as the pull
   * request's comments and a reply do (`on-pull`). An outdated comment has no line and no position: GitHub
   * sends null, which the description allows only for a review's `position`, so elsewhere they are left out
   * (the description does not require them there).
   */
  reviewComment(comment: ReviewCommentRecord, form: 'in-review' | 'on-pull' = 'on-pull'): Json {
    const url = `${this.repoApi}/pulls/comments/${comment.id}`
    const pullUrl = `${this.repoApi}/pulls/${comment.pullNumber}`
    const html = `${this.repoHtml}/pull/${comment.pullNumber}#discussion_r${comment.id}`
    const position = comment.originalLine ?? 1
    return {
      url,
      pull_request_review_id: comment.reviewId,
      id: comment.id,
      node_id: comment.nodeId,
      diff_hunk: comment.diffHunk,
      path: comment.path,
      ...(comment.line !== null || comment.subjectType === 'file'
        ? { position }
        : form === 'in-review'
          ? { position: null }
          : {}),
      original_position: position,
      commit_id: comment.commitId,
      original_commit_id: comment.originalCommitId,
      ...(comment.inReplyToId !== undefined ? { in_reply_to_id: comment.inReplyToId } : {}),
      user: this.user(comment.user),
      body: comment.body,
      created_at: comment.createdAt,
      updated_at: comment.updatedAt,
      html_url: html,
      pull_request_url: pullUrl,
      author_association: this.authorAssociation(comment.user),
      _links: { self: { href: url }, html: { href: html }, pull_request: { href: pullUrl } },
      start_line: comment.startLine,
      original_start_line: comment.originalStartLine,
      start_side: comment.startSide,
      ...(comment.line !== null ? { line: comment.line } : {}),
      ...(comment.originalLine !== null ? { original_line: comment.originalLine } : {}),
      side: comment.side,
      subject_type: comment.subjectType,
      reactions: this.reactionRollup('comment', comment.id, url)
    }
  }

  /** A job of a workflow run (GET …/actions/runs/{run_id}/jobs). */
  job(job: JobRecord): Json {
    const run = this.state.run(job.runId)
    const workflow = run ? this.state.workflow(run.workflowId) : undefined
    const url = `${this.repoApi}/actions/jobs/${job.id}`
    return {
      id: job.id,
      run_id: job.runId,
      run_url: `${this.repoApi}/actions/runs/${job.runId}`,
      run_attempt: job.runAttempt,
      node_id: job.nodeId,
      head_sha: run?.headSha ?? '0'.repeat(40),
      url,
      html_url: `${this.repoHtml}/actions/runs/${job.runId}/job/${job.id}`,
      status: job.status,
      conclusion: job.conclusion,
      created_at: job.startedAt,
      started_at: job.startedAt,
      completed_at: job.completedAt,
      name: job.name,
      steps: job.steps.map(step => ({
        status: step.conclusion === null ? 'in_progress' : 'completed',
        conclusion: step.conclusion,
        name: step.name,
        number: step.number,
        started_at: job.startedAt,
        completed_at: step.conclusion === null ? null : job.completedAt
      })),
      check_run_url: `${this.repoApi}/check-runs/${job.id}`,
      labels: ['ubuntu-latest'],
      runner_id: 1,
      runner_name: 'GitHub Actions 1',
      runner_group_id: 2,
      runner_group_name: 'GitHub Actions',
      workflow_name: workflow?.name ?? null,
      head_branch: run?.headBranch ?? null
    }
  }

  /** An artifact of a run, as the REST API lists it (stored in the artifact service). */
  artifact(artifact: StoredArtifact, run: WorkflowRunRecord): Json {
    const url = `${this.repoApi}/actions/artifacts/${artifact.id}`
    const createdAt = artifact.createdAt.replace(/\.\d{3}Z$/, 'Z')
    const expiresAt = artifact.expiresAt?.replace(/\.\d+Z$/, 'Z') ?? null
    const headRepositoryId = run.headRepository ? this.state.repo.id + 1 : this.state.repo.id
    return {
      id: artifact.id,
      node_id: this.state.nodeId('MA', artifact.id),
      name: artifact.name,
      size_in_bytes: artifact.size ?? 0,
      url,
      archive_download_url: `${url}/zip`,
      expired: expiresAt !== null && expiresAt < this.state.now(),
      created_at: createdAt,
      expires_at: expiresAt,
      updated_at: createdAt,
      digest: artifact.digest ?? null,
      workflow_run: {
        id: run.id,
        repository_id: this.state.repo.id,
        head_repository_id: headRepositoryId,
        head_branch: run.headBranch ?? '',
        head_sha: run.headSha
      }
    }
  }
}
