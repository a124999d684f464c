// Webhook payloads built from the stand-in's state, so an event file and the API agree on ids and numbers.
import type { Renderer } from './render.js'
import type { GitHubState } from './state.js'

type Json = Record<string, unknown>

export class EventPayloads {
  constructor(
    private readonly state: GitHubState,
    private readonly renderer: Renderer
  ) {}

  /** `issue_comment` for a comment in state (on an issue or a pull request). */
  issueComment(commentId: number, action: 'created' | 'edited' | 'deleted' = 'created'): Json {
    const comment = this.state.comment(commentId)
    if (!comment) throw new Error(`no comment ${commentId} in the GitHub stand-in`)
    const issue = this.state.issueOrPull(comment.issueNumber)
    if (!issue) throw new Error(`comment ${commentId} is on #${comment.issueNumber}, which does not exist`)
    const r = this.renderer
    return {
      action,
      issue: r.issue(issue),
      comment: r.comment(comment),
      repository: r.repository(),
      sender: r.user(comment.user)
    }
  }

  /** `issues` (opened, labeled, …) for an issue in state; `label` names the label for labeled/unlabeled. */
  issues(number: number, action: string, options: { label?: string; sender?: string } = {}): Json {
    const issue = this.state.issueOrPull(number)
    if (!issue) throw new Error(`no issue #${number} in the GitHub stand-in`)
    const r = this.renderer
    return {
      action,
      issue: r.issue(issue),
      ...(options.label ? { label: r.label(this.state.ensureLabel(options.label)) } : {}),
      repository: r.repository(),
      sender: r.user(options.sender ?? issue.user)
    }
  }

  /** `pull_request` for a pull request in state; `label` names the label for labeled/unlabeled. */
  pullRequest(number: number, action: string, options: { sender?: string; label?: string } = {}): Json {
    const pull = this.state.pull(number)
    if (!pull) throw new Error(`no pull request #${number} in the GitHub stand-in`)
    const r = this.renderer
    return {
      action,
      number,
      pull_request: r.pull(pull, { full: true }),
      ...(options.label ? { label: r.label(this.state.ensureLabel(options.label)) } : {}),
      repository: r.repository(),
      sender: r.user(options.sender ?? pull.user)
    }
  }

  /**
   * `push` of `branch` as it is now (its tip is `after`), by `sender` (default the repository owner).
   * `head_commit` shows the tip's git author and committer, as GitHub's payload does.
   */
  push(branch: string, options: { sender?: string; before?: string } = {}): Json {
    const after = this.state.branchSha(branch)
    if (!after) throw new Error(`no branch ${branch} in the GitHub stand-in`)
    const commit = this.state.commitOf(after)
    const r = this.renderer
    const repo = r.repository()
    const headCommit = {
      id: after,
      tree_id: commit.tree,
      distinct: true,
      message: commit.message,
      timestamp: commit.committer.date,
      url: `${String(repo.html_url)}/commit/${after}`,
      author: { name: commit.author.name, email: commit.author.email },
      committer: { name: commit.committer.name, email: commit.committer.email },
      added: [],
      removed: [],
      modified: []
    }
    const sender = options.sender ?? this.state.repo.owner
    return {
      ref: `refs/heads/${branch}`,
      before: options.before ?? commit.parents[0] ?? '0'.repeat(40),
      after,
      created: false,
      deleted: false,
      forced: false,
      base_ref: null,
      compare: `${String(repo.html_url)}/compare/${(options.before ?? commit.parents[0] ?? after).slice(0, 12)}...${after.slice(0, 12)}`,
      commits: [headCommit],
      head_commit: headCommit,
      repository: repo,
      pusher: { name: sender, email: null },
      sender: r.user(sender)
    }
  }

  /**
   * `pull_request_review` for a review in state: the review as the webhook writes it (its state in lower case,
   * a null body when it has none), its pull request, and its author as the sender.
   */
  pullRequestReview(reviewId: number, action: 'submitted' | 'edited' | 'dismissed' = 'submitted'): Json {
    const review = this.state.review(reviewId)
    if (!review) throw new Error(`no review ${reviewId} in the GitHub stand-in`)
    const pull = this.state.pull(review.pullNumber)
    if (!pull) throw new Error(`review ${reviewId} is on #${review.pullNumber}, which does not exist`)
    const r = this.renderer
    const rendered = r.review(review)
    return {
      action,
      review: {
        ...rendered,
        body: review.body === '' ? null : review.body,
        state: review.state.toLowerCase(),
        updated_at: review.submittedAt
      },
      pull_request: r.pull(pull, { full: false }),
      repository: r.repository(),
      sender: r.user(review.user)
    }
  }

  /** `workflow_run` for a run in state (`completed` by default): the run as the API renders it, and its workflow. */
  workflowRun(runId: number, action: 'requested' | 'in_progress' | 'completed' = 'completed'): Json {
    const run = this.state.run(runId)
    if (!run) throw new Error(`no workflow run ${runId} in the GitHub stand-in`)
    const workflow = this.state.workflow(run.workflowId)
    if (!workflow) throw new Error(`run ${runId} has no workflow`)
    const r = this.renderer
    return {
      action,
      workflow: r.workflow(workflow),
      workflow_run: r.workflowRun(run),
      repository: r.repository(),
      sender: r.user(run.triggeringActor)
    }
  }

  /** `schedule` carries only the repository; `workflow_dispatch` the inputs, ref and workflow file too. */
  schedule(cron = '0 3 * * *'): Json {
    return { schedule: cron, repository: this.renderer.repository() }
  }

  workflowDispatch(
    inputs: Record<string, string> = {},
    options: { sender?: string; workflow?: string } = {}
  ): Json {
    const r = this.renderer
    return {
      inputs,
      ref: `refs/heads/${this.state.repo.defaultBranch}`,
      workflow: options.workflow ?? '.github/workflows/ralph.yml',
      repository: r.repository(),
      sender: r.user(options.sender ?? this.state.repo.owner)
    }
  }
}
