// The action's settings, typed, from the INPUT_* variables the runner sets (action.yml's defaults already
// filled in). Every problem is an InputError whose one-line message names the input and the fix.
import { AGENT_CLIS, agentCli, type AgentCliName } from '../agents/clis.js'
import {
  ModelProxyError,
  modelProxySettings,
  type GivenProxySettings,
  type ModelProxySettings
} from '../proxy/agent.js'
import { NAME_RE, parseDuration, parseEditableSetting, parseProtectSetting } from '../ralph/index.js'
import { DEFAULT_MAX_FILE_BYTES, parseFileSize } from '../git/index.js'
import { GITHUB_ACTIONS_BOT } from '../github/own-work.js'
import { DEFAULT_MAX_FIX_ROUNDS } from '../trigger/fix-rounds.js'
import { readBudgetSetting, type GivenBudget } from './budget-inputs.js'
import { readHoldout, type GivenHoldout, type HoldoutInput } from './holdout-inputs.js'
import {
  AGENT_USER_NAME,
  DEFAULT_AGENT_MAX_PROCESSES,
  DEFAULT_AGENT_USER,
  MIN_AGENT_MAX_PROCESSES
} from '../security/index.js'

import type { ActionInputs } from './input-types.js'

export type { ActionInputs, OnFailure } from './input-types.js'

/** Bad input: the message is one line, for `core.setFailed`. */
export class InputError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'InputError'
  }
}

/** What the runner names the variable of an input: upper case, spaces to `_`, hyphens kept. */
export const inputVariable = (name: string): string => `INPUT_${name.replace(/ /g, '_').toUpperCase()}`

type Env = Record<string, string | undefined>

/** The most jobs a chain may span: each job is a workflow run that may spend up to max-time. */
export const MOST_CONTINUE_JOBS = 20

const quote = (value: string): string =>
  JSON.stringify(value.length > 60 ? `${value.slice(0, 57)}...` : value)

class InputReader {
  constructor(private readonly env: Env) {}

  /** The input's value trimmed; undefined when empty. */
  text(name: string): string | undefined {
    const value = (this.env[inputVariable(name)] ?? '').trim()
    return value === '' ? undefined : value
  }

  /** YAML 1.2 core booleans, as `core.getBooleanInput` reads them. */
  boolean(name: string, fallback: boolean): boolean {
    const value = this.text(name)
    if (value === undefined) return fallback
    if (['true', 'True', 'TRUE'].includes(value)) return true
    if (['false', 'False', 'FALSE'].includes(value)) return false
    throw new InputError(`Input '${name}' must be true or false, got ${quote(value)}.`)
  }

  /** Non-empty lines, trimmed. */
  lines(name: string): string[] {
    return (this.env[inputVariable(name)] ?? '')
      .split(/\r?\n/)
      .map(line => line.trim())
      .filter(line => line !== '')
  }

  /** Comma or newline separated, trimmed, empty items dropped, each once. */
  list(name: string): string[] {
    const items = (this.env[inputVariable(name)] ?? '')
      .split(/[,\n]/)
      .map(item => item.trim())
      .filter(item => item !== '')
    for (const item of items)
      if (/\s/.test(item))
        throw new InputError(
          `Input '${name}' has ${quote(item)}: separate the items with commas or newlines.`
        )
    return [...new Set(items)]
  }

  positiveInteger(name: string): number | undefined {
    const value = this.text(name)
    if (value === undefined) return undefined
    if (!/^\d+$/.test(value) || Number(value) < 1)
      throw new InputError(`Input '${name}' must be a whole number of at least 1, got ${quote(value)}.`)
    return Number(value)
  }

  dollars(name: string): number | undefined {
    const value = this.text(name)
    if (value === undefined) return undefined
    const m = /^\$?\s*(\d+(?:\.\d+)?|\.\d+)$/.exec(value)
    if (!m)
      throw new InputError(
        `Input '${name}' must be an amount in US dollars like 5 or 2.50, got ${quote(value)}.`
      )
    return Number(m[1])
  }

  /** A file size (`50 MB`, `500 KB`, a bare number of megabytes), in bytes. */
  fileSize(name: string, fallback: number): number {
    const value = this.text(name)
    if (value === undefined) return fallback
    const bytes = parseFileSize(value)
    if (bytes === undefined)
      throw new InputError(
        `Input '${name}' must be a size like 50 MB, 500 KB or 1 GB (a bare number is megabytes), got ${quote(value)}.`
      )
    return bytes
  }

  /** A duration: a number of minutes, or a number with a unit (s, m, h). Answers seconds. */
  duration(name: string): number | undefined {
    const value = this.text(name)
    if (value === undefined) return undefined
    const seconds = parseDuration(value, 'm')
    if (seconds === undefined)
      throw new InputError(
        `Input '${name}' must be a number of minutes (like 30 or 1.5) or have a unit (90s, 45m, 2h), got ${quote(value)}.`
      )
    return seconds
  }
}

/**
 * Git's rules for a branch name (`git check-ref-format --branch`), checked here so a bad name fails before
 * the loop runs rather than at the push after it. Answers the problem, or undefined when the name is fine.
 */
export function branchNameProblem(name: string): string | undefined {
  if (name.startsWith('-')) return 'it starts with -'
  if (name.startsWith('refs/')) return 'give the branch name without refs/heads/'
  // eslint-disable-next-line no-control-regex
  if (/[\x00-\x20\x7f~^:?*[\\]/.test(name)) return 'it holds a space, a control character or one of ~^:?*[\\'
  if (name.includes('..') || name.includes('@{') || name === '@') return 'it holds .., @{ or is @'
  if (name.endsWith('/') || name.endsWith('.') || name.endsWith('.lock')) return 'it ends with /, . or .lock'
  if (name.split('/').some(part => part === '' || part.startsWith('.')))
    return 'a part between slashes is empty or starts with .'
  return undefined
}

// The artifact service refuses these in names.
const ARTIFACT_NAME_FORBIDDEN = /["<>|*?:\r\n\\/]/

const VERSION = /^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?$/

/** `install-agent`: false (or empty), true, a CLI's name, or `name@version`. */
function installAgentInput(value: string | undefined): ActionInputs['installAgent'] {
  if (value === undefined || ['false', 'False', 'FALSE'].includes(value)) return undefined
  if (['true', 'True', 'TRUE'].includes(value)) return {}
  const names = AGENT_CLIS.map(cli => cli.name).join(', ')
  const [name, version, ...rest] = value.split('@')
  if (rest.length > 0 || !agentCli(name))
    throw new InputError(
      `Input 'install-agent' must be true, false, or one of ${names} (optionally @version, e.g. ${AGENT_CLIS[0].name}@${AGENT_CLIS[0].version}), got ${quote(value)}.`
    )
  if (version !== undefined && !VERSION.test(version))
    throw new InputError(
      `Input 'install-agent' has the version ${quote(version)}: give an exact version like ${agentCli(name)?.version}.`
    )
  return { name: name as AgentCliName, ...(version !== undefined ? { version } : {}) }
}

/** Reads and checks every input; throws InputError for the first problem. */
export function readInputs(env: Env = process.env): ActionInputs {
  const read = new InputReader(env)
  const mode = read.text('mode') ?? 'run'
  if (mode !== 'run' && mode !== 'list' && mode !== 'agent' && mode !== 'deliver' && mode !== 'reserve')
    throw new InputError(`Input 'mode' must be run, agent, deliver, reserve or list, got ${quote(mode)}.`)
  if (mode === 'list') return listInputs(read)
  const ralph = read.text('ralph')
  const prompt = read.text('prompt')
  const agent = read.text('agent')
  if (ralph !== undefined && prompt !== undefined)
    throw new InputError(
      "Inputs 'ralph' and 'prompt' were both given: use 'ralph' for a RALPH.md, or 'prompt' (with 'agent') for an inline task."
    )
  // `agent` alone: a ralph-less loop whose task is the issue a comment or a label starts it on.
  if (ralph === undefined && prompt === undefined && agent === undefined)
    throw new InputError(
      "Input 'ralph' is required: name a folder holding RALPH.md (e.g. ralph: .agents/ralphs/fix-tests), or give 'prompt' and 'agent' for an inline task (or 'agent' alone, for runs on an issue)."
    )
  if (prompt !== undefined && agent === undefined)
    throw new InputError(
      "Input 'prompt' needs 'agent': the command that reads the prompt on stdin, e.g. agent: claude -p --permission-mode acceptEdits."
    )

  const args: [string, string][] = []
  read.lines('args').forEach((line, index) => {
    const eq = line.indexOf('=')
    const name = eq < 0 ? '' : line.slice(0, eq).trim()
    if (eq < 0 || !NAME_RE.test(name))
      throw new InputError(
        `Input 'args' line ${index + 1} (${quote(line)}) is not name=value: write one name=value per line; names use letters, digits, - and _.`
      )
    args.push([name, line.slice(eq + 1).trim()])
  })

  const completionRaw = env[inputVariable('completion-tag')]
  let completionTag: string | undefined
  if (completionRaw !== undefined && completionRaw.trim() !== '') {
    completionTag = completionRaw.trim() === 'none' ? '' : completionRaw.trim()
    if (/[<>\s]/.test(completionTag))
      throw new InputError(
        `Input 'completion-tag' must be one word without spaces or < >, got ${quote(completionTag)} (use none to let the gates alone decide).`
      )
  }

  const allowedBots = read.list('allowed-bots')
  for (const bot of allowedBots)
    // The permission check matches a bot with or without its suffix (trigger/permissions.ts): so does the input.
    if (!/^[A-Za-z0-9-]+(?:\[bot\])?$/.test(bot))
      throw new InputError(
        `Input 'allowed-bots' has ${quote(bot)}: give bot logins as they appear, like my-app[bot] (the [bot] suffix may be left out).`
      )
  const botLogin = read.text('bot-login') ?? GITHUB_ACTIONS_BOT
  if (!/^[A-Za-z0-9-]+\[bot\]$/.test(botLogin))
    throw new InputError(
      `Input 'bot-login' must be a bot login as it appears, like my-app[bot], got ${quote(botLogin)}.`
    )
  const triggerLabel = read.text('trigger-label') ?? 'ralph'
  if (/,/.test(triggerLabel))
    throw new InputError(`Input 'trigger-label' must be one label, got ${quote(triggerLabel)}.`)

  const onFailure = read.text('on-failure') ?? 'none'
  if (onFailure !== 'none' && onFailure !== 'push' && onFailure !== 'draft-pr')
    throw new InputError(`Input 'on-failure' must be none, push or draft-pr, got ${quote(onFailure)}.`)

  const branch = read.text('branch')
  const base = read.text('base')
  for (const [name, value] of [
    ['branch', branch],
    ['base', base]
  ] as const) {
    const problem = value === undefined ? undefined : branchNameProblem(value)
    if (problem)
      throw new InputError(`Input '${name}' is not a valid branch name (${problem}): ${quote(value!)}.`)
  }

  const artifactName = read.text('artifact-name')
  if (artifactName !== undefined && ARTIFACT_NAME_FORBIDDEN.test(artifactName))
    throw new InputError(
      `Input 'artifact-name' may not hold any of " : < > | * ? \\ / or a newline, got ${quote(artifactName)}.`
    )
  const isolation = read.text('isolation') ?? 'auto'
  if (isolation !== 'auto' && isolation !== 'user' && isolation !== 'none')
    throw new InputError(`Input 'isolation' must be auto, user or none, got ${quote(isolation)}.`)
  const agentUser = read.text('agent-user') ?? DEFAULT_AGENT_USER
  if (!AGENT_USER_NAME.test(agentUser))
    throw new InputError(
      `Input 'agent-user' must be a user name (lower-case letters, digits, - and _, starting with a letter), got ${quote(agentUser)}.`
    )
  const agentMaxProcesses = read.positiveInteger('agent-max-processes') ?? DEFAULT_AGENT_MAX_PROCESSES
  if (agentMaxProcesses < MIN_AGENT_MAX_PROCESSES)
    throw new InputError(
      `Input 'agent-max-processes' must be at least ${MIN_AGENT_MAX_PROCESSES} (threads count, and a node program alone has about ten), got ${agentMaxProcesses}.`
    )
  const continueJobs = read.positiveInteger('continue-jobs') ?? 1
  if (continueJobs > MOST_CONTINUE_JOBS)
    throw new InputError(
      `Input 'continue-jobs' must be between 1 and ${MOST_CONTINUE_JOBS}, got ${quote(read.text('continue-jobs') ?? '')}.`
    )
  const retentionDays = read.positiveInteger('retention-days')
  if (retentionDays !== undefined && retentionDays > 90)
    throw new InputError(`Input 'retention-days' must be between 1 and 90, got ${retentionDays}.`)

  const inputs: ActionInputs = {
    checks: read.lines('checks'),
    baseline: read.boolean('baseline', true),
    skipIfGreen: skipIfGreenMode(read.text('skip-if-green')),
    args,
    maxIterations: read.positiveInteger('max-iterations') ?? 10,
    // Read here, in the inputs' order, so the first bad one is the one named.
    ...given('maxCostUsd', read.dollars('max-cost')),
    ...given('maxTimeSeconds', read.duration('max-time')),
    ...budgetInput(
      {
        budget: read.text('budget'),
        perRequester: read.text('budget-per-requester'),
        ledgerRef: read.text('ledger-ref'),
        lease: read.text('lease')
      },
      mode
    ),
    maxFileBytes: read.fileSize('max-file-size', DEFAULT_MAX_FILE_BYTES),
    ...given('agentTimeoutSeconds', read.duration('agent-timeout')),
    ...given('completionTag', completionTag),
    openPr: read.boolean('open-pr', true),
    draft: read.boolean('draft', false),
    labels: read.list('labels'),
    reviewers: read.list('reviewers'),
    assignees: read.list('assignees'),
    onFailure,
    githubToken: read.text('github-token') ?? '',
    uploadArtifacts: read.boolean('upload-artifacts', true),
    workingDirectory: read.text('working-directory') ?? '.',
    dryRun: read.boolean('dry-run', false),
    mode,
    allowedBots,
    botLogin,
    reportIssue: read.boolean('report-issue', false),
    triggerLabel,
    presets: read.boolean('presets', true),
    allowEnv: read.list('allow-env'),
    isolation,
    agentUser,
    agentMaxProcesses,
    continueJobs,
    ciFix: workflowNames(read.lines('ci-fix')),
    maxFixRounds: read.positiveInteger('max-fix-rounds') ?? DEFAULT_MAX_FIX_ROUNDS,
    resolveThreads: read.boolean('resolve-threads', false)
  }
  const resume = read.text('resume')
  if (resume !== undefined && !/^[1-9][0-9]{0,19}$/.test(resume))
    throw new InputError(
      `Input 'resume' must be the run id of the chain's previous run (digits, as \${{ github.run_id }} gives it), got ${quote(resume)}.`
    )
  const optional = {
    resume,
    ralph,
    prompt,
    agent,
    branch,
    base,
    prTitle: read.text('pr-title'),
    pushToken: read.text('push-token'),
    delivery: mode === 'deliver' ? read.text('delivery') : undefined,
    artifactName,
    retentionDays,
    maxOpenPrs: read.positiveInteger('max-open-prs'),
    parallelChecks:
      read.text('parallel-checks') === undefined ? undefined : read.boolean('parallel-checks', false),
    setup: read.lines('setup').length > 0 ? read.lines('setup') : undefined,
    verify: parseVerify(read.text('verify')),
    maxTurns: read.positiveInteger('max-turns'),
    protectedPaths: protectedPathsInput(read.lines('protected-paths')),
    editable: editableInput(read.lines('editable')),
    holdout: holdoutInput({
      commands: read.lines('holdout'),
      path: read.text('holdout-path'),
      ref: read.text('holdout-ref'),
      feedback: read.text('holdout-feedback')
    }),
    installAgent: installAgentInput(read.text('install-agent')),
    modelProxy: modelProxyInputs({
      on: modelProxyMode(read.text('model-proxy')),
      upstream: read.text('model-upstream'),
      caFile: read.text('model-ca'),
      allowedHosts: read.list('allowed-hosts'),
      network: read.text('agent-network')
    })
  }
  for (const [key, value] of Object.entries(optional))
    if (value !== undefined) (inputs as unknown as Record<string, unknown>)[key] = value

  const chained = inputs.continueJobs > 1 || inputs.resume !== undefined
  if (chained && mode !== 'run')
    throw new InputError(
      `Inputs 'continue-jobs' and 'resume' work in mode: run only (a loop in two-job mode, mode: ${mode}, is one job long).`
    )
  if (chained && !inputs.uploadArtifacts)
    throw new InputError(
      "Inputs 'continue-jobs' and 'resume' need upload-artifacts: true: the next run goes on from this run's record artifact."
    )
  if (inputs.continueJobs > 1 && !inputs.githubToken)
    throw new InputError(
      "Input 'continue-jobs' needs 'github-token' (its default): the job dispatches the next run and pushes the branch between jobs."
    )
  const delivers = inputs.openPr || inputs.onFailure !== 'none'
  if (!inputs.dryRun && delivers && !inputs.githubToken && !inputs.pushToken)
    throw new InputError(
      "Input 'github-token' is empty: leave it at its default (${{ github.token }}) or pass a token, or set open-pr: false and on-failure: none."
    )
  return inputs
}

function holdoutInput(given: GivenHoldout): HoldoutInput | undefined {
  const read = readHoldout(given)
  if ('problem' in read) throw new InputError(read.problem)
  return read.holdout
}

function budgetInput(
  given: GivenBudget,
  mode: Exclude<ActionInputs['mode'], 'list'>
): Pick<ActionInputs, 'budget'> {
  const setting = readBudgetSetting(given, mode)
  if ('problem' in setting) throw new InputError(setting.problem)
  return setting
}

/** The input as given, or no key at all when it was not: ActionInputs never holds an undefined. */
function given<K extends keyof ActionInputs>(
  key: K,
  value: ActionInputs[K] | undefined
): Partial<Pick<ActionInputs, K>> {
  return value === undefined ? {} : ({ [key]: value } as Pick<ActionInputs, K>)
}

/** `mode: list` reads only what it needs: nothing runs, so no ralph, prompt or token is required. */
function listInputs(read: InputReader): ActionInputs {
  return {
    checks: [],
    baseline: true,
    skipIfGreen: false,
    args: [],
    maxIterations: 1,
    openPr: false,
    draft: false,
    labels: [],
    reviewers: [],
    assignees: [],
    onFailure: 'none',
    githubToken: read.text('github-token') ?? '',
    uploadArtifacts: false,
    workingDirectory: read.text('working-directory') ?? '.',
    dryRun: false,
    mode: 'list',
    allowedBots: [],
    botLogin: GITHUB_ACTIONS_BOT,
    reportIssue: false,
    triggerLabel: 'ralph',
    presets: true,
    allowEnv: [],
    isolation: 'none',
    agentUser: DEFAULT_AGENT_USER,
    agentMaxProcesses: DEFAULT_AGENT_MAX_PROCESSES,
    continueJobs: 1,
    ciFix: [],
    maxFixRounds: DEFAULT_MAX_FIX_ROUNDS,
    resolveThreads: false
  }
}

/** `ci-fix`: workflow names may hold spaces, so items are split on commas and lines only. */
function workflowNames(lines: string[]): string[] {
  return [
    ...new Set(
      lines
        .flatMap(line => line.split(','))
        .map(item => item.trim())
        .filter(Boolean)
    )
  ]
}

/** `protected-paths`: globs one a line or comma separated (a comma inside `{a,b}` is the glob's); undefined when empty. */
function protectedPathsInput(lines: string[]): string[] | undefined {
  if (lines.length === 0) return undefined
  const globs = lines.flatMap(line => line.split(/,(?![^{]*\})/).map(item => item.trim())).filter(Boolean)
  const parsed = parseProtectSetting(globs)
  if ('problem' in parsed) throw new InputError(`Input 'protected-paths': ${parsed.problem}.`)
  return parsed
}

/** `editable`: globs one a line or comma separated, like protected-paths; undefined when empty. */
function editableInput(lines: string[]): string[] | undefined {
  const globs = lines.flatMap(line => line.split(/,(?![^{]*\})/).map(item => item.trim())).filter(Boolean)
  const parsed = parseEditableSetting(globs)
  if (parsed !== undefined && 'problem' in parsed)
    throw new InputError(`Input 'editable': ${parsed.problem}.`)
  return parsed
}

/** `verify`: clean or tree; empty leaves it to the ralph's `verify:` (else clean). */
function parseVerify(value: string | undefined): 'clean' | 'tree' | undefined {
  if (value === undefined || value === 'clean' || value === 'tree') return value
  throw new InputError(
    `Input 'verify' must be clean or tree, got ${quote(value)} (clean: the gates pass again on a clean checkout of the commit before it is pushed).`
  )
}

/** `skip-if-green`: auto (the default: on for a hunt's ralph), true or false. */
function skipIfGreenMode(value: string | undefined): boolean | 'auto' {
  if (value === undefined || value === 'auto') return 'auto'
  if (['true', 'True', 'TRUE'].includes(value)) return true
  if (['false', 'False', 'FALSE'].includes(value)) return false
  throw new InputError(`Input 'skip-if-green' must be auto, true or false, got ${quote(value)}.`)
}

/** `model-proxy`: auto (the default: on for a preset whose key the job holds), or a YAML boolean. */
function modelProxyMode(value: string | undefined): boolean | 'auto' {
  if (value === undefined || value.toLowerCase() === 'auto') return 'auto'
  if (['true', 'True', 'TRUE'].includes(value)) return true
  if (['false', 'False', 'FALSE'].includes(value)) return false
  throw new InputError(`Input 'model-proxy' must be auto, true or false, got ${quote(value)}.`)
}

/** The model proxy's inputs: with auto, validated as if on; plan decides once the agent is known. */
function modelProxyInputs(given: GivenProxySettings): ModelProxySettings | undefined {
  try {
    return modelProxySettings(given)
  } catch (error) {
    if (error instanceof ModelProxyError) throw new InputError(error.message.replace(/^The setting/, 'Input'))
    throw error
  }
}
