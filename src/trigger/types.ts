// What admission (admission.ts) decides, and what it is given: the settings from the workflow, and a plan
// that is a Run, a Skip or a Refuse. Types only, so the planners and the action share them without a cycle.
import type { TriggerEvent } from './event.js'
import type { TokenActor } from '../github/own-work.js'

export interface TriggerSettings {
  owner: string
  repo: string
  /** Where `.agents/ralphs/` is (the working directory). */
  projectRoot: string
  /** The action's `ralph` input: what runs when the trigger names no ralph. */
  defaultRalph?: string
  /**
   * Without a `ralph` input, a trigger that names no ralph runs a ralph-less loop (the workflow gives
   * `agent`): its task is the issue, and `prompt`, if given, its preamble (whose `{{ args.X }}` a comment may set).
   */
  ralphLess?: { prompt?: string }
  /**
   * The loop's own deliveries, which never start a loop: the account its pushes and pull requests are made
   * with (asked lazily, once), and the email its commits carry.
   */
  delivery?: { actor: () => Promise<TokenActor>; committerEmail: string }
  /** The account the action opens failure reports with: only its issues carry a report marker that counts. */
  reporter?: () => Promise<TokenActor>
  /** The action's `allowed-bots` input. */
  allowedBots?: string[]
  /** The label that starts a loop on `issues: labeled` (and `<label>:<ralph>` names one). Default `ralph`. */
  label?: string
  /** Review and CI rounds (fix-rounds.ts): the account the action comments with; else `reporter`'s. */
  commenter?: () => Promise<TokenActor>
  /** max-fix-rounds; default DEFAULT_MAX_FIX_ROUNDS. */
  maxFixRounds?: number
  /** ci-fix; default none. */
  ciFix?: string[]
}

export interface PullRef {
  number: number
  headRef: string
  headSha: string
  baseRef?: string
  /** Always true in a plan: fork pull requests are refused. */
  sameRepo: true
}

export interface Run {
  kind: 'run'
  event: TriggerEvent['name']
  /**
   * What to run: an installed ralph's folder (absolute) when the trigger named one, else the `ralph` input
   * as given; undefined when neither (a `prompt` run).
   */
  ralph?: string
  /** The ralph's name, for branches and messages. */
  ralphName?: string
  /** From the comment; merge over the `args` input (the comment wins). Never holds `task`/`task_file`. */
  args: Record<string, string>
  /** Sanitised markdown: issue title, body and what was asked. '' when the trigger carries no text. */
  task: string
  /** `issue #12` / `pull request #7`, for the data block. */
  taskSource?: string
  issueNumber?: number
  /** The triggering comment: 👀 goes on it (else on the issue). */
  commentId?: number
  pr?: PullRef
  /** `ralph/issue-<N>`, or the pull request's own branch; undefined = the action's default. */
  branch?: string
  /** The branch may exist already and must be continued, not recreated from the base. */
  continueBranch: boolean
  /** The base to start from and open the pull request against, when the trigger decides it (a hunt's open PR). */
  base?: string
  /**
   * A pull request whose own branch is not its author's to give (the default branch, a protected one,
   * someone else's): the loop works on `branch` (`ralph/pr-<N>`) and proposes into its head branch.
   */
  proposeTo?: { number: number; headRef: string; reason: string }
  /** What the summary should say about where the run went (a stranger's pull request left alone). */
  notes?: string[]
  /** Who started it and their role; undefined for schedule, push and workflow_dispatch without a sender. */
  actor?: { login: string; role?: string }
  /** A round on the action's own pull request (a review, a CI failure): what to answer once it is done. */
  round?: FixRound
  /** false: no tracking comment (a round's one comment on the pull request is its summary, answer-round.ts). */
  tracking?: false
}

/** One line comment's thread of a review, as the round answers it. */
export interface ReviewThreadRef {
  /** The thread's first comment: replies go to it (GitHub takes no reply to a reply). */
  replyTo: number
  /** The GraphQL id resolveReviewThread takes; undefined when the threads could not be read. */
  threadId?: string
  /** Resolved before the round: it gets no reply and is not resolved again. */
  resolved: boolean
}

interface RoundBase {
  /** The marker's key, unique per request: `review-<id>`, `ci-<head sha>`. */
  key: string
  /** This round's number on the pull request (1 = the first), counted from its markers. */
  number: number
  /** max-fix-rounds. */
  max: number
  pullNumber: number
}

/** A writer's review on the action's own pull request. */
export interface ReviewRound extends RoundBase {
  kind: 'review'
  reviewId: number
  reviewer: string
  reviewUrl: string
  threads: ReviewThreadRef[]
}

/** What the action says once per pull request (fix-rounds.ts): the max-fix-rounds cap, a CI round's budget spent. */
export type OnceNotice = 'cap' | 'budget'

/** A failing CI run on the action's own pull request. */
export interface CiRound extends RoundBase {
  kind: 'ci'
  /** The notices said on the pull request already: a CI round, which no one asked for, does not repeat them. */
  said: OnceNotice[]
  runId: number
  runUrl: string
  workflow: string
  conclusion: string
  headSha: string
  /** The failing jobs the task shows, for the run record. */
  failedJobs: { id: number; name: string; url: string }[]
}

export type FixRound = ReviewRound | CiRound

export interface Skip {
  kind: 'skip'
  reason: string
}

export interface Refuse {
  kind: 'refuse'
  /** One line for the log and the step's failure message. */
  reason: string
  /** Markdown for a reply on the issue; undefined when there is nowhere (or no one) to reply to. */
  reply?: string
  issueNumber?: number
  commentId?: number
  /** The check itself could not be made (GitHub did not answer, or answered an error): not a no. */
  unchecked?: true
}

export type Admission = Run | Skip | Refuse
