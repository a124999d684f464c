// A failed hunt keeps ONE issue labelled `ralph` up to date: opened, updated on the next failure, closed
// when a hunt succeeds. The body is report/hunt.ts's.
import { postComment } from './comments.js'
import { recoverBy, type Octokit } from './client.js'
import { isTokenActor, type TokenActor } from './own-work.js'
import { fit } from '../text/markdown.js'
import { MAX_COMMENT_CHARS } from '../report/tracking.js'
import { oneLine, renderReport, REPORT_RE, type FailureReport } from '../report/hunt.js'

export interface ReportedIssue {
  number: number
  url: string
  operation: 'created' | 'updated'
  /** Consecutive failures this issue has seen. */
  failures: number
}

/**
 * Opens, or updates, the one open issue that says this ralph's hunt failed: found by its label and the
 * marker in its body, so the next failure edits it (and comments, so watchers hear) instead of filing a
 * duplicate. A closed report is left closed: the next failure opens a new one.
 */
export async function reportFailure(
  octokit: Octokit,
  report: FailureReport & { actor: TokenActor }
): Promise<ReportedIssue> {
  const label = report.label ?? 'ralph'
  const today = (report.now ?? new Date()).toISOString().slice(0, 10)
  const repo = { owner: report.owner, repo: report.repo }
  const { actor } = report
  const existing = await findFailureReport(octokit, { ...repo, ralphName: report.ralphName, label, actor })
  if (existing) {
    const failures = existing.failures + 1
    const body = renderReport(report, failures, existing.first, today)
    await octokit.rest.issues.update({ ...repo, issue_number: existing.number, body })
    await postComment(
      octokit,
      { ...repo, issueNumber: existing.number },
      fit(
        `Failed again on ${today} (${failures} in a row): ${oneLine(report.reason)} — [the run](${report.runUrl})`,
        MAX_COMMENT_CHARS
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
  target: {
    owner: string
    repo: string
    ralphName: string
    runUrl: string
    pullUrl?: string
    label?: string
    /** The account the job token acts as, which opened the reports. */
    actor: TokenActor
  }
): Promise<number | undefined> {
  const repo = { owner: target.owner, repo: target.repo }
  const existing = await findFailureReport(octokit, {
    ...target,
    label: target.label ?? 'ralph'
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
