// Step 1, admit: the inputs read once (readRun), the clients, and whether what started the run may start a loop
// (a skip ends the step quietly, a refusal replies on the issue or fails the step). A hunt finds its branch here.
import { realpathSync } from 'node:fs'
import path from 'node:path'
import * as core from '@actions/core'
import { GITHUB_ACTIONS_IDENTITY } from '../../git/index.js'
import { readContext, type RunContext } from '../../trigger/context.js'
import { lazyClient, type Octokit } from '../../github/client.js'
import type { RetryBudget } from '../../github/retry.js'
import { GITHUB_ACTIONS_BOT, tokenActor, type TokenActor } from '../../github/own-work.js'
import { neutralizeWorkflowCommands } from '../../security/workflow-commands.js'
import { postRefusal } from '../../github/tracking.js'
import { admitEvent, ralphNameOf } from '../../trigger/admission.js'
import type { Run } from '../../trigger/types.js'
import { huntBranch as huntBranchOf, isHunt, ownBranch, planHunt, strangersNote } from '../../trigger/hunt.js'
import { InputError, readInputs, type ActionInputs } from '../inputs.js'
import { badInput, endsHere, type Step } from './ending.js'
import type { Admitted, Clients, ReadRun } from './types.js'
import { scrubOwnEnvironment } from '../own-environment.js'

/** The project's folder: the workspace joined with working-directory, its real path when there is one. */
export function projectRootOf(context: RunContext, inputs: ActionInputs): string {
  const root = path.resolve(context.workspace, inputs.workingDirectory)
  try {
    return realpathSync(root)
  } catch {
    // Not there (yet): the path as given, which the plan then names in its one-line error.
    return root
  }
}

/** The run's clients; `mayWrite` is the job kind's `writes` (jobs/kind.ts). */
export function clientsFor(inputs: ActionInputs, mayWrite: boolean): Clients {
  const budget: RetryBudget = {}
  const options = {
    budget,
    log: (m: string) => core.info(m),
    ...(mayWrite ? {} : { readOnly: 'mode: agent writes nothing to GitHub (the deliver job does)' })
  }
  const octokit = lazyClient(inputs.githubToken, options)
  const delivery = inputs.pushToken ? lazyClient(inputs.pushToken, options) : octokit
  let actor: Promise<TokenActor> | undefined
  let jobActor: Promise<TokenActor> | undefined
  const deliveryActor = () => (actor ??= delivery().then(client => tokenActor(client, inputs.botLogin)))
  return {
    octokit,
    delivery,
    deliveryActor,
    // bot-login names the delivering token's bot; a separate job token is the job's GITHUB_TOKEN.
    jobActor: inputs.pushToken
      ? () => (jobActor ??= octokit().then(client => tokenActor(client, GITHUB_ACTIONS_BOT)))
      : deliveryActor,
    budget,
    mayWrite
  }
}

/**
 * What started the run decides whether a loop runs. Answers the trigger's run, or why the step is over
 * (no agent runs either way).
 */
async function decide(inputs: ActionInputs, context: RunContext, clients: Clients): Promise<Step<Run>> {
  const { owner, repo } = context.repo
  // Events that carry no one to check, no text and no push need no API: schedule and workflow_dispatch.
  const needsApi = [
    'issue_comment',
    'issues',
    'pull_request',
    'push',
    'pull_request_review',
    'workflow_run'
  ].includes(context.eventName)
  const client = needsApi ? await clients.octokit() : (undefined as unknown as Octokit)
  const admission = await admitEvent(
    context.event,
    {
      owner,
      repo,
      projectRoot: projectRootOf(context, inputs),
      ...(inputs.ralph !== undefined ? { defaultRalph: inputs.ralph } : {}),
      ...(inputs.ralph === undefined && inputs.agent !== undefined
        ? { ralphLess: inputs.prompt !== undefined ? { prompt: inputs.prompt } : {} }
        : {}),
      delivery: { actor: clients.deliveryActor, committerEmail: GITHUB_ACTIONS_IDENTITY.email },
      reporter: clients.jobActor,
      allowedBots: inputs.allowedBots,
      label: inputs.triggerLabel,
      // Review and CI rounds: their summaries, which count them, are the job token's comments.
      commenter: clients.jobActor,
      maxFixRounds: inputs.maxFixRounds,
      ciFix: inputs.ciFix
    },
    client
  )
  if (admission.kind === 'skip') {
    core.info(neutralizeWorkflowCommands(`Nothing to do: ${admission.reason}.`))
    return { end: { finished: true } }
  }
  if (admission.kind === 'refuse') {
    // Not a no: nobody knows. The step fails (a broken token or an outage is noticed), and says so in the summary.
    if (admission.unchecked) {
      const line = `${admission.reason.charAt(0).toUpperCase()}${admission.reason.slice(1)}. No agent ran.`
      return { end: { failure: { message: line }, summary: `❌ ${line}\n`, finished: true } }
    }
    if (admission.reply && admission.issueNumber !== undefined && !clients.mayWrite) {
      core.warning(
        `Refused: ${admission.reason}. No agent ran; the deliver job replies on #${admission.issueNumber}.`
      )
      return { end: { finished: true } }
    }
    if (admission.reply && admission.issueNumber !== undefined) {
      const posted = await postRefusal(
        client,
        { owner, repo, issueNumber: admission.issueNumber },
        admission.reply,
        m => core.warning(m)
      )
      core.warning(
        `Refused: ${admission.reason}. No agent ran; ${posted ? `the reply on #${admission.issueNumber} says why` : 'no reply could be posted'}.`
      )
      return { end: { finished: true } }
    }
    return { end: { failure: { message: `Refused: ${admission.reason}.` }, finished: true } }
  }
  return admission
}

/**
 * A hunt continues its open pull request's branch (updating the PR, never opening a second), or starts its
 * branch fresh; at `max-open-prs` with nothing to continue it ends without running.
 */
async function huntBranch(admitted: Omit<Admitted, 'hunt'>): Promise<Step<Run>> {
  const { inputs, context, clients, trigger } = admitted
  const ralphName = trigger.ralphName ?? ralphNameOf(inputs.ralph)
  // Without a token nothing is pushed (inputs.ts): a dry run or a local trial has no pull request to find.
  if (!ralphName || (!inputs.openPr && inputs.maxOpenPrs === undefined) || !inputs.githubToken) return trigger
  const hunt = await planHunt(await clients.octokit(), {
    ...context.repo,
    ralphName,
    actor: await clients.deliveryActor(),
    ...(inputs.branch !== undefined ? { branch: inputs.branch } : {}),
    ...(inputs.maxOpenPrs !== undefined ? { maxOpenPrs: inputs.maxOpenPrs } : {})
  })
  if (hunt.kind === 'capped') {
    core.notice(`The hunt ${ralphName} did not run: ${hunt.reason}.`)
    return { end: { finished: true } }
  }
  const wanted = inputs.branch ?? huntBranchOf(ralphName)
  const note = strangersNote(wanted, hunt.branch, hunt.strangers)
  if (note) core.warning(`${note}.`)
  const notes = note ? { notes: [...(trigger.notes ?? []), note] } : {}
  if (hunt.kind === 'new') return { ...trigger, ...notes, branch: hunt.branch }
  core.info(
    `Continuing ${hunt.branch}: its pull request #${hunt.pull.number} is still open and will be updated.`
  )
  // Its pull request's base, whatever ref this run was started on: the same PR is found and updated.
  return { ...trigger, ...notes, branch: hunt.branch, continueBranch: true, base: hunt.pull.baseRef }
}

/**
 * A run on a branch the action names (`ralph/issue-<N>`, `ralph/pr-<N>`) moves to a suffixed branch of its
 * own when a stranger's pull request is open on it: that pull request is never updated nor pushed onto.
 */
async function claimBranch(admitted: Omit<Admitted, 'hunt'>): Promise<Run> {
  const { inputs, context, clients, trigger } = admitted
  if (trigger.branch === undefined || trigger.pr !== undefined || !inputs.githubToken) return trigger
  const claimed = await ownBranch(
    await clients.octokit(),
    { ...context.repo, actor: await clients.deliveryActor() },
    trigger.branch
  )
  const note = strangersNote(trigger.branch, claimed.branch, claimed.strangers)
  if (!note) return trigger
  core.warning(`${note}.`)
  return { ...trigger, branch: claimed.branch, notes: [...(trigger.notes ?? []), note] }
}

/** The inputs and the context, read once; bad input ends the step in one line. */
export function readRun(): Step<ReadRun> {
  try {
    const inputs = readInputs()
    for (const token of [inputs.githubToken, inputs.pushToken]) if (token) core.setSecret(token)
    const context = readContext()
    scrubOwnEnvironment()
    return { inputs, context }
  } catch (error) {
    if (error instanceof InputError) return { end: badInput(error) }
    throw error
  }
}

/** Whether what started the run starts a loop, and on which branch. */
export async function admit({ inputs, context }: ReadRun, clients: Clients): Promise<Step<Admitted>> {
  const decided = await decide(inputs, context, clients)
  if (endsHere(decided)) return decided
  if (decided.proposeTo) core.info(`${decided.proposeTo.reason}.`)
  if (!isHunt(decided))
    return {
      inputs,
      context,
      clients,
      trigger: await claimBranch({ inputs, context, clients, trigger: decided }),
      hunt: false
    }
  const trigger = await huntBranch({ inputs, context, clients, trigger: decided })
  if (endsHere(trigger)) return trigger
  return { inputs, context, clients, trigger, hunt: true }
}
