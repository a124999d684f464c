// Whether what started this run (event.ts) may run a loop, and what: Run, Skip or Refuse. Nothing here runs
// anything or trusts text: the comment is parsed by grammar.ts, the task is sanitised data, and the comment
// is read from the payload as it was when the run was triggered, never fetched again.
import { NAME_RE } from '../ralph/index.js'
import {
  isDispatchTrigger,
  isIssueCommentTrigger,
  isIssuesTrigger,
  isPullRequestReviewTrigger,
  isPullRequestTrigger,
  isPushTrigger,
  isWorkflowRunTrigger,
  isScheduleTrigger,
  parseTriggerEvent,
  type IssueCommentTrigger,
  type IssuesTrigger,
  type PullRequestTrigger,
  type SentTrigger,
  type TriggerEvent
} from './event.js'
import { availableRalphs } from '../ralph/installed.js'
import { branchTip, isOwnWork, isTokenActor } from '../github/own-work.js'
import { PULL_REQUEST_MARKER } from '../report/pr-body.js'
import type { Octokit } from '../github/client.js'
import { checkActor, unnamedBotSender } from './permissions.js'
import { HUNT_REPORT_MARKER } from '../report/hunt.js'
import { placeWork, sameRepoPull } from './pull-branch.js'
import { parseRalphCommand } from './grammar.js'
import { quote as code } from './quote.js'
import { refusalReply, usage } from './replies.js'
import { composeTask } from './sanitize.js'
import { commandRalph, ralphNameOf, resolveRalph } from './ralph-choice.js'
import { admitCiFailure } from './ci-round.js'
import { roundSettings } from './fix-rounds.js'
import { admitReview } from './review-round.js'
import type { Admission, Refuse, Run, Skip, TriggerSettings } from './types.js'

/**
 * Decides whether this event runs a loop. Skips are silent (not a `/ralph` comment, an edit, the action's
 * own push); refusals carry a reply. For comments and labels the actor is checked first (checkActor), so
 * no one without write access learns more than "you may not".
 */
export async function admitEvent(
  event: SentTrigger | { eventName: string; payload: unknown },
  settings: TriggerSettings,
  octokit: Octokit
): Promise<Admission> {
  const trigger = 'name' in event ? event : parseTriggerEvent(event.eventName, event.payload)
  if (isIssueCommentTrigger(trigger)) return planComment(trigger, settings, octokit)
  if (isIssuesTrigger(trigger)) return planLabel(trigger, settings, octokit)
  if (isPullRequestTrigger(trigger)) return planPullRequestEvent(trigger, settings, octokit)
  // Rounds decide by their own rules, before the bot rule: a workflow_run's sender is often github-actions[bot].
  if (isPullRequestReviewTrigger(trigger) || isWorkflowRunTrigger(trigger)) {
    const rounds = roundSettings(settings)
    if (!rounds)
      return { kind: 'refuse', reason: `a ${trigger.name} round needs the account the action comments as` }
    return isPullRequestReviewTrigger(trigger)
      ? admitReview(trigger, rounds, octokit)
      : admitCiFailure(trigger, rounds, octokit)
  }
  // The events above check who asked through the API (a bot among them). Any other starts a loop unasked, so
  // a bot that sent it (renovate's push, an App's dispatch) is refused here, quietly: one log line.
  const kind = trigger.name === 'unsupported' ? trigger.eventName : trigger.name
  const bot = unnamedBotSender(`this ${kind} event`, trigger.from, settings.allowedBots)
  if (bot) return skip(bot)
  if (isPushTrigger(trigger)) {
    if (trigger.deleted)
      return skip(`the push deleted ${trigger.ref.startsWith('refs/tags/') ? 'a tag' : 'a branch'}`)
    if (!trigger.ref.startsWith('refs/heads/')) return skip(`the push was to ${trigger.ref}, not a branch`)
    // With a PAT the action's own pushes trigger workflows: a loop must not start a loop.
    if (trigger.ref.startsWith('refs/heads/ralph/'))
      return skip("the push was to a ralph/ branch, the action's own work")
    const own = await ownDelivery(octokit, settings, trigger.sender, trigger.ref.slice('refs/heads/'.length))
    return own ? skip(own) : defaultRun(trigger, settings, trigger.sender)
  }
  if (isScheduleTrigger(trigger)) return defaultRun(trigger, settings)
  if (isDispatchTrigger(trigger)) return defaultRun(trigger, settings, trigger.sender)
  if (trigger.name === 'pull_request_review_comment')
    return skip('review comments on a diff do not start loops: write /ralph in the conversation')
  return {
    kind: 'refuse',
    reason:
      `ralph-action does not run on '${trigger.eventName}' events: use issue_comment, issues (labeled), ` +
      `pull_request, pull_request_review, push, schedule, workflow_dispatch or workflow_run`
  }
}

const skip = (reason: string): Skip => ({ kind: 'skip', reason })

/** Whether `login` may start a loop in this repository (permissions.ts decides). */
const actorOf = (octokit: Octokit, settings: TriggerSettings, login: string): ReturnType<typeof checkActor> =>
  checkActor(octokit, {
    owner: settings.owner,
    repo: settings.repo,
    login,
    allowedBots: settings.allowedBots
  })

/** A permission check that could not be made fails the step; it is not a refusal, so no one is told "no". */
const couldNotCheck = (reason: string): Refuse => ({ kind: 'refuse', reason, unchecked: true })

/** Refusals that reply to `login` on the issue (or comment) that asked. */
const refuser =
  (login: string, where: { issueNumber: number; commentId?: number }) =>
  (reason: string, extra = ''): Refuse => ({
    kind: 'refuse',
    reason,
    reply: refusalReply(login, reason, extra),
    ...where
  })

/**
 * Why an event is the loop's own delivery and must start nothing (a loop never starts a loop), or
 * undefined: its sender is the account the action delivers with, or the branch's tip is a loop's commit.
 */
async function ownDelivery(
  octokit: Octokit,
  settings: TriggerSettings,
  sender: string,
  branch: string
): Promise<string | undefined> {
  if (!settings.delivery) return undefined
  const actor = await settings.delivery.actor()
  if (actor.kind === 'user' && actor.login.toLowerCase() === sender.toLowerCase())
    return `${sender}, the account the action pushes and opens pull requests with, sent this event: it is a loop's own delivery, not a request`
  const tip = await branchTip(octokit, { owner: settings.owner, repo: settings.repo }, branch)
  if (tip && tip.committerEmail === settings.delivery.committerEmail)
    return `the tip of ${branch} (${tip.sha.slice(0, 12)}) is a loop's own commit, so a loop's push started this event`
  return undefined
}

function defaultRun(trigger: TriggerEvent, settings: TriggerSettings, sender?: string): Run {
  const ralphName = ralphNameOf(settings.defaultRalph)
  return {
    kind: 'run',
    event: trigger.name,
    ...(settings.defaultRalph !== undefined ? { ralph: settings.defaultRalph } : {}),
    ...(ralphName ? { ralphName } : {}),
    args: {},
    task: '',
    continueBranch: false,
    ...(sender ? { actor: { login: sender } } : {})
  }
}

async function planComment(
  trigger: IssueCommentTrigger,
  settings: TriggerSettings,
  octokit: Octokit
): Promise<Admission> {
  const { issue, comment } = trigger
  if (trigger.action !== 'created')
    return skip(`the comment was ${trigger.action || 'changed'}; only a new comment starts a loop`)
  const command = parseRalphCommand(comment.body)
  if (command.kind === 'none') return skip('the comment does not start with /ralph')
  const where = { issueNumber: issue.number, commentId: comment.id }
  const refuse = refuser(comment.author, where)
  // Who asked is checked first: someone who may not start a loop learns nothing more than that.
  const actor = await actorOf(octokit, settings, comment.author)
  if (!actor.allowed) return actor.unknown ? couldNotCheck(actor.reason) : refuse(actor.reason)
  // The payload is the comment as it was created; an edit before the run read it changes what was approved.
  if (comment.updatedAt && comment.createdAt && comment.updatedAt !== comment.createdAt)
    return refuse('the comment was edited after it was posted; post the command again in a new comment')

  const available = availableRalphs(settings.projectRoot)
  const help = usage(available)
  if (command.kind === 'invalid') return refuse(command.problem, help)

  const resolved = commandRalph(command, settings)
  if ('problem' in resolved) return refuse(resolved.problem, help)

  let work: Pick<Run, 'pr' | 'proposeTo' | 'branch' | 'base'> = { branch: `ralph/issue-${issue.number}` }
  if (issue.isPullRequest) {
    const found = await sameRepoPull(octokit, settings, issue.number)
    if ('problem' in found) return refuse(found.problem)
    const placed = await placeWork(octokit, settings, found)
    if ('problem' in placed) return refuse(placed.problem)
    work = placed
  }
  const source = `${issue.isPullRequest ? 'pull request' : 'issue'} #${issue.number}`
  return {
    kind: 'run',
    event: 'issue_comment',
    ...resolved,
    args: command.args,
    task: composeTask({
      source,
      title: issue.title,
      body: issue.body,
      author: issue.author,
      request: command.freeText,
      requester: comment.author
    }),
    taskSource: source,
    ...where,
    ...work,
    continueBranch: true,
    actor: { login: actor.login, role: actor.role }
  }
}

async function planLabel(
  trigger: IssuesTrigger,
  settings: TriggerSettings,
  octokit: Octokit
): Promise<Admission> {
  if (trigger.action !== 'labeled')
    return skip(`issues ${trigger.action || 'event'}: only labeling starts a loop`)
  const asked = labelRequest(trigger.label, settings)
  if ('skip' in asked) return skip(asked.skip)
  const { issue } = trigger
  // The marker is text anyone can write: it counts only in an issue the action opened.
  if (
    issue.body.includes(HUNT_REPORT_MARKER) &&
    settings.reporter &&
    isTokenActor({ login: issue.author, type: issue.authorType }, await settings.reporter())
  )
    return skip("the issue is a nightly hunt's failure report")
  const refuse = refuser(trigger.sender, { issueNumber: issue.number })
  const actor = await actorOf(octokit, settings, trigger.sender)
  if (!actor.allowed) return actor.unknown ? couldNotCheck(actor.reason) : refuse(actor.reason)
  const { named } = asked
  if (named !== undefined && !NAME_RE.test(named))
    return refuse(`${code(named)} is not a ralph name`, usage(availableRalphs(settings.projectRoot)))
  const resolved = resolveRalph(named, settings)
  if ('problem' in resolved) return refuse(resolved.problem, usage(availableRalphs(settings.projectRoot)))
  const source = `issue #${issue.number}`
  return {
    kind: 'run',
    event: 'issues',
    ...resolved,
    args: {},
    task: composeTask({ source, title: issue.title, body: issue.body, author: issue.author }),
    taskSource: source,
    issueNumber: issue.number,
    branch: `ralph/issue-${issue.number}`,
    continueBranch: true,
    actor: { login: actor.login, role: actor.role }
  }
}

/**
 * Whether a label applied to an issue or a pull request asks for a loop: `trigger-label` itself, or
 * `<trigger-label>:<ralph>`, which names the ralph (GitHub keeps the label's case).
 */
function labelRequest(
  label: string | undefined,
  settings: TriggerSettings
): { named?: string } | { skip: string } {
  const wanted = (settings.label ?? 'ralph').toLowerCase()
  const applied = (label ?? '').toLowerCase()
  if (applied === wanted) return {}
  if (applied.startsWith(`${wanted}:`)) return { named: (label ?? '').slice(wanted.length + 1).trim() }
  return { skip: `the label ${JSON.stringify(label ?? '')} is not '${wanted}'` }
}

// A pull request's text becomes the task, so these are the only actions that ask for a loop.
const PULL_REQUEST_ACTIONS = ['opened', 'reopened', 'synchronize', 'labeled']

async function planPullRequestEvent(
  trigger: PullRequestTrigger,
  settings: TriggerSettings,
  octokit: Octokit
): Promise<Admission> {
  const full = `${settings.owner}/${settings.repo}`.toLowerCase()
  if (trigger.name === 'pull_request_target')
    return {
      kind: 'refuse',
      reason:
        'ralph-action does not run on pull_request_target: it runs with secrets on code the pull request ' +
        'may have changed; use pull_request, or a /ralph comment'
    }
  // A fork's pull request is normal, not the workflow's mistake: the run ends green, saying why.
  if ((trigger.head.repo ?? '').toLowerCase() !== full)
    return skip(
      `pull request #${trigger.number} comes from a fork (${trigger.head.repo ?? 'a deleted repository'}); loops run only on branches of ${settings.owner}/${settings.repo}`
    )
  if (!PULL_REQUEST_ACTIONS.includes(trigger.action))
    return skip(
      `pull request ${trigger.action || 'event'}: only opened, reopened, synchronize and labeled start a loop`
    )
  let named: string | undefined
  if (trigger.action === 'labeled') {
    const asked = labelRequest(trigger.label, settings)
    if ('skip' in asked) return skip(asked.skip)
    named = asked.named
    if (named !== undefined && !NAME_RE.test(named))
      return skip(`the label names ${JSON.stringify(named)}, which is not a ralph name`)
  }
  // Whoever made the event must be a writer (a triage user may reopen a pull request): the same check as a comment.
  const actor = await actorOf(octokit, settings, trigger.sender)
  // A definite no is quiet (a reply on every pull request a bot opens would be noise); a check that could
  // not be made fails the step, so a broken token is noticed.
  if (!actor.allowed)
    return actor.unknown
      ? couldNotCheck(actor.reason)
      : skip(`${actor.reason}, so this pull request event starts no loop`)
  // Whatever the action: the loop's own pull request or push starts nothing.
  const own = await ownDelivery(octokit, settings, trigger.sender, trigger.head.ref)
  if (own) return skip(own)
  // The task is the pull request's text, so its author decides too, not whoever caused the event (a writer's
  // push or label on an outsider's pull request): a writer, or the action itself.
  const author = await pullAuthorMayAsk(octokit, settings, trigger)
  if (author !== true)
    return 'refuse' in author
      ? couldNotCheck(author.refuse)
      : skip(`pull request #${trigger.number} was opened by ${author.skip}, so it starts no loop`)
  const resolved = named !== undefined ? resolveRalph(named, settings) : {}
  if ('problem' in resolved) return skip(resolved.problem)
  const work = await placeWork(octokit, settings, {
    number: trigger.number,
    headRef: trigger.head.ref,
    headSha: trigger.head.sha,
    ...(trigger.base.ref ? { baseRef: trigger.base.ref } : {}),
    sameRepo: true,
    author: { login: trigger.author, type: trigger.authorType },
    body: trigger.body
  })
  if ('problem' in work) return { kind: 'refuse', reason: work.problem }
  const plan = defaultRun(trigger, settings, trigger.sender)
  return {
    ...plan,
    ...resolved,
    actor: { login: actor.login, role: actor.role },
    task: composeTask({
      source: `pull request #${trigger.number}`,
      title: trigger.title,
      body: trigger.body,
      author: trigger.author
    }),
    taskSource: `pull request #${trigger.number}`,
    ...work,
    continueBranch: true
  }
}

/** Whether a pull request's author may ask for a loop: a writer, or the action (its own marked pull request). */
async function pullAuthorMayAsk(
  octokit: Octokit,
  settings: TriggerSettings,
  trigger: PullRequestTrigger
): Promise<true | { skip: string } | { refuse: string }> {
  const user = { login: trigger.author, type: trigger.authorType }
  if (
    settings.delivery &&
    isOwnWork({ user, body: trigger.body }, await settings.delivery.actor(), PULL_REQUEST_MARKER)
  )
    return true
  const author = await actorOf(octokit, settings, trigger.author)
  if (author.allowed) return true
  return author.unknown
    ? { refuse: author.reason }
    : { skip: `${trigger.author || 'an unknown account'} (${author.reason})` }
}

// Where the admission's plans come from: `ralphNameOf` is the action's too.
export { ralphNameOf }
