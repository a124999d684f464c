// Nightly bug hunts are idempotent: a ralph keeps at most one open pull request, on its own branch
// (`ralph/<name>`, the action's default), and a run that finds it continues that branch and updates the PR
// instead of opening another. `max-open-prs` caps the hunts' open PRs across the repository, so a matrix
// fan-out cannot flood it. A failed hunt can keep ONE issue labelled `ralph` up to date.
import { recoverBy, type Octokit } from './client.js'
import { postComment } from './comments.js'
import { isOwnWork, isTokenActor, tokenActor, type TokenActor } from './own-work.js'
import { PULL_REQUEST_MARKER } from './pr-body.js'
import { fit } from './tracking.js'
import { HUNT_REPORT_MARKER } from './trigger.js'

export interface RalphPull {
  number: number
  url: string
  headRef: string
  headSha: string
  baseRef: string
  title: string
  updatedAt: string
}

export interface HuntTarget {
  owner: string
  repo: string
  ralphName: string
  /** The `branch` input when the workflow sets one; default `ralph/<name>`. */
  branch?: string
  /**
   * The account the action opens pull requests with: only a pull request it opened (and marked) is
   * continued, never a person's on the same branch.
   */
  actor: TokenActor
}

export type HuntPlan =
  /** An open PR of this ralph exists: continue its branch (fetch it, do not recreate it) and update it. */
  | { kind: 'continue'; branch: string; pull: RalphPull }
  /** No open PR: start the branch fresh from the base. `openPulls`: the hunts' open PRs (when capped). */
  | { kind: 'new'; branch: string; openPulls?: number }
  /** At the cap and nothing to continue: the run ends without running an agent. */
  | { kind: 'capped'; reason: string; openPulls: RalphPull[] }
  /** The branch has an open pull request the action did not open: it is not taken over; nothing runs. */
  | { kind: 'not-ours'; reason: string; pull: RalphPull }

/** The branch a ralph's hunts work on: the action's default branch for a ralph. */
export const huntBranch = (ralphName: string): string => `ralph/${ralphName}`

// Branches of `/ralph` runs on issues are a person's request, not a hunt: not counted against the cap.
const ISSUE_BRANCH = /^ralph\/issue-\d+$/

/**
 * The open pull requests on this ralph's hunt branch (in this repository), newest first: `own` the one the
 * action opened (its author is the token's actor, its body carries the marker), `other` one it did not.
 */
export async function findOpenRalphPull(
  octokit: Octokit,
  target: HuntTarget
): Promise<{ own?: RalphPull; other?: RalphPull }> {
  const branch = target.branch ?? huntBranch(target.ralphName)
  const pulls = await octokit.paginate(octokit.rest.pulls.list, {
    owner: target.owner,
    repo: target.repo,
    state: 'open',
    // GitHub needs the owner: prefix, or it ignores the filter and lists every PR.
    head: `${target.owner}:${branch}`,
    per_page: 100
  })
  const onBranch = pulls
    .filter(p => p.head.ref === branch && sameRepo(p.head.repo?.full_name, target))
    .sort((a, b) => (a.updated_at < b.updated_at ? 1 : -1))
  const own = onBranch.find(p => isOwnWork(p, target.actor, PULL_REQUEST_MARKER))
  const other = onBranch.find(p => !isOwnWork(p, target.actor, PULL_REQUEST_MARKER))
  return { ...(own ? { own: toRalphPull(own) } : {}), ...(other ? { other: toRalphPull(other) } : {}) }
}

/** Every open pull request of a hunt in the repository (same-repository heads under `ralph/`). */
export async function openHuntPulls(
  octokit: Octokit,
  target: { owner: string; repo: string }
): Promise<RalphPull[]> {
  const pulls = await octokit.paginate(octokit.rest.pulls.list, {
    owner: target.owner,
    repo: target.repo,
    state: 'open',
    per_page: 100
  })
  return pulls
    .filter(
      p =>
        p.head.ref.startsWith('ralph/') &&
        !ISSUE_BRANCH.test(p.head.ref) &&
        sameRepo(p.head.repo?.full_name, target)
    )
    .map(toRalphPull)
}

/**
 * What tonight's hunt does: continue its open PR, start a new branch, or stop at the cap. `maxOpenPrs`
 * undefined = no cap. Continuing never counts against the cap (it opens nothing).
 */
export async function planHunt(
  octokit: Octokit,
  target: HuntTarget & { maxOpenPrs?: number }
): Promise<HuntPlan> {
  const branch = target.branch ?? huntBranch(target.ralphName)
  const { own, other } = await findOpenRalphPull(octokit, target)
  if (own) return { kind: 'continue', branch: own.headRef, pull: own }
  // Someone else's work on the hunt's branch: continuing it would present their commits as the loop's.
  if (other)
    return {
      kind: 'not-ours',
      reason:
        `pull request #${other.number} on ${branch} was not opened by this action (its author is not the ` +
        `account the action opens pull requests with, or it lacks the action's marker), so the hunt does not ` +
        `take it over: close it, or move its work to another branch`,
      pull: other
    }
  if (target.maxOpenPrs === undefined) return { kind: 'new', branch }
  const open = await openHuntPulls(octokit, target)
  if (open.length >= target.maxOpenPrs)
    return {
      kind: 'capped',
      reason:
        `${open.length} hunt pull request${open.length === 1 ? ' is' : 's are'} open ` +
        `(${open.map(p => `#${p.number}`).join(', ') || 'none'}) and max-open-prs is ${target.maxOpenPrs}: ` +
        `review or close one to let ${target.ralphName} open another`,
      openPulls: open
    }
  return { kind: 'new', branch, openPulls: open.length }
}

// --- failure reports -------------------------------------------------------------------------------

export interface FailureReport {
  owner: string
  repo: string
  ralphName: string
  runUrl: string
  /** One line: the stop reason and its detail. */
  reason: string
  /** Markdown below it (e.g. the iteration table); cut to fit. */
  details?: string
  /** Default `ralph`. */
  label?: string
  now?: Date
}

export interface ReportedIssue {
  number: number
  url: string
  operation: 'created' | 'updated'
  /** Consecutive failures this issue has seen. */
  failures: number
}

const REPORT_RE = /^<!-- ralph-action:hunt-failure ralph=([A-Za-z0-9_-]+) failures=(\d+) first=([0-9-]+) -->/

const reportMarker = (ralphName: string, failures: number, first: string): string =>
  `${HUNT_REPORT_MARKER} ralph=${ralphName} failures=${failures} first=${first} -->`

/**
 * Opens, or updates, the one open issue that says this ralph's hunt failed: found by its label and the
 * marker in its body, so the next failure edits it (and comments, so watchers hear) instead of filing a
 * duplicate. A closed report is left closed: the next failure opens a new one.
 */
export async function reportFailure(octokit: Octokit, report: FailureReport): Promise<ReportedIssue> {
  const label = report.label ?? 'ralph'
  const today = (report.now ?? new Date()).toISOString().slice(0, 10)
  const repo = { owner: report.owner, repo: report.repo }
  const actor = await tokenActor(octokit)
  const existing = await findFailureReport(octokit, { ...repo, ralphName: report.ralphName, label, actor })
  if (existing) {
    const failures = existing.failures + 1
    const body = renderReport(report, failures, existing.first, today)
    await octokit.rest.issues.update({ ...repo, issue_number: existing.number, body })
    await postComment(
      octokit,
      { ...repo, issueNumber: existing.number },
      fit(
        `Failed again on ${today} (${failures} in a row): ${oneLine(report.reason)} — [the run](${report.runUrl})`
      )
    )
    return { number: existing.number, url: existing.url, operation: 'updated', failures }
  }
  const { data } = await octokit.rest.issues.create({
    ...repo,
    title: `Nightly hunt ${report.ralphName} failed`,
    body: renderReport(report, 1, today, today),
    labels: [label],
    // Its marker finds it, should GitHub have opened it without answering.
    request: recoverBy(
      async () =>
        (await findFailureReport(octokit, { ...repo, ralphName: report.ralphName, label, actor }))?.issue
    )
  })
  return { number: data.number, url: data.html_url, operation: 'created', failures: 1 }
}

/** After a hunt that succeeded: closes this ralph's open failure report, saying why. Answers its number. */
export async function closeFailureReport(
  octokit: Octokit,
  target: { owner: string; repo: string; ralphName: string; runUrl: string; pullUrl?: string; label?: string }
): Promise<number | undefined> {
  const repo = { owner: target.owner, repo: target.repo }
  const existing = await findFailureReport(octokit, {
    ...target,
    label: target.label ?? 'ralph',
    actor: await tokenActor(octokit)
  })
  if (!existing) return undefined
  const pr = target.pullUrl ? ` and opened ${target.pullUrl}` : ''
  await postComment(
    octokit,
    { ...repo, issueNumber: existing.number },
    `The hunt ${target.ralphName} succeeded in [this run](${target.runUrl})${pr}; closing.`
  )
  await octokit.rest.issues.update({ ...repo, issue_number: existing.number, state: 'closed' })
  return existing.number
}

/** The open report of this ralph's hunt: labelled, marked, and opened by the token's actor (a marker alone is text anyone can write). */
async function findFailureReport(
  octokit: Octokit,
  target: { owner: string; repo: string; ralphName: string; label: string; actor: TokenActor }
): Promise<{ number: number; url: string; failures: number; first: string; issue: ListedIssue } | undefined> {
  const issues = await octokit.paginate(octokit.rest.issues.listForRepo, {
    owner: target.owner,
    repo: target.repo,
    state: 'open',
    labels: target.label,
    per_page: 100
  })
  for (const issue of issues) {
    if (issue.pull_request || !isTokenActor(issue.user, target.actor)) continue
    const m = REPORT_RE.exec(issue.body ?? '')
    if (m && m[1] === target.ralphName)
      return { number: issue.number, url: issue.html_url, failures: Number(m[2]), first: m[3], issue }
  }
  return undefined
}

type ListedIssue = Awaited<ReturnType<Octokit['rest']['issues']['listForRepo']>>['data'][number]

function renderReport(report: FailureReport, failures: number, first: string, today: string): string {
  const times = failures === 1 ? 'once' : `${failures} times in a row, since ${first}`
  return fit(
    [
      reportMarker(report.ralphName, failures, first),
      `### The nightly hunt \`${report.ralphName}\` failed`,
      '',
      `**Latest (${today}):** ${oneLine(report.reason)} — [the run](${report.runUrl})`,
      '',
      `It has failed ${times}.`,
      ...(report.details ? ['', report.details] : []),
      '',
      `_ralph-action updates this issue on the next failure instead of opening another, and closes it when a ` +
        `hunt succeeds. Labelling it does not start a loop._`
    ].join('\n')
  )
}

const oneLine = (text: string): string => {
  const flat = text.replace(/\s+/g, ' ').trim()
  return flat.length > 500 ? `${flat.slice(0, 499)}…` : flat
}

function sameRepo(fullName: string | undefined, target: { owner: string; repo: string }): boolean {
  return (fullName ?? '').toLowerCase() === `${target.owner}/${target.repo}`.toLowerCase()
}

interface ListedPull {
  number: number
  html_url: string
  title: string
  updated_at: string
  head: { ref: string; sha: string }
  base: { ref: string }
}

function toRalphPull(p: ListedPull): RalphPull {
  return {
    number: p.number,
    url: p.html_url,
    headRef: p.head.ref,
    headSha: p.head.sha,
    baseRef: p.base.ref,
    title: p.title,
    updatedAt: p.updated_at
  }
}
