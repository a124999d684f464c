// The action's settings as the steps read them (inputs.ts reads them from the runner's INPUT_* variables).
import type { BudgetSetting } from './budget-inputs.js'
import type { HoldoutInput } from './holdout-inputs.js'
import type { AgentCliName } from '../agents/clis.js'
import type { ModelProxySettings } from '../proxy/agent.js'
import type { IsolationSetting } from '../security/index.js'

export type OnFailure = 'none' | 'push' | 'draft-pr'

export interface ActionInputs {
  /** A folder holding RALPH.md, a RALPH.md, or an installed ralph's name; or undefined with `prompt`. */
  ralph?: string
  /** An inline task for a ralph-less run. */
  prompt?: string
  /** Overrides the ralph's `agent:`. */
  agent?: string
  /** Gate commands added to the ralph's `checks:`. */
  checks: string[]
  /** Run the gates before iteration 1 (default true). */
  baseline: boolean
  /** Stop `already_green` when the baseline passes: no agent runs. auto: for a hunt's ralph only (plan decides). */
  skipIfGreen: boolean | 'auto'
  /** Run the gates together; undefined: the ralph's `checks_parallel:`. */
  parallelChecks?: boolean
  /** Commands run before the baseline and on the clean checkout; undefined: the ralph's `setup:`. */
  setup?: string[]
  /** clean or tree; undefined: the ralph's `verify:`, else clean. */
  verify?: 'clean' | 'tree'
  /** `{{ args.name }}` values, in the order given. */
  args: [name: string, value: string][]
  maxIterations: number
  maxCostUsd?: number
  maxTimeSeconds?: number
  /** Files over this many bytes are not delivered (default 50 MB). */
  maxFileBytes?: number
  agentTimeoutSeconds?: number
  /** undefined: the ralph's `completion_tag:`, else COMPLETE; '' : the gates alone decide. */
  completionTag?: string
  branch?: string
  base?: string
  openPr: boolean
  draft: boolean
  prTitle?: string
  labels: string[]
  reviewers: string[]
  assignees: string[]
  onFailure: OnFailure
  githubToken: string
  /** Given explicitly (a PAT or App token); undefined means `githubToken` pushes. */
  pushToken?: string
  uploadArtifacts: boolean
  artifactName?: string
  retentionDays?: number
  workingDirectory: string
  dryRun: boolean
  /**
   * `run` (a loop and its delivery, in one job), `list` (the installed ralphs as matrix JSON; nothing runs),
   * `agent` (the loop in a read-only job, its work uploaded as a delivery artifact) or `deliver` (a later job,
   * which runs no agent: it checks that artifact and delivers it).
   */
  mode: 'run' | 'list' | 'agent' | 'deliver' | 'reserve'
  /** deliver: the agent job's delivery artifact (its `delivery` output); undefined: it made none. */
  delivery?: string
  /** The most jobs (workflow runs) one loop may span: 1, no continuation. */
  continueJobs: number
  /** The run id of the chain's previous run, whose loop this job goes on with (a `workflow_dispatch` run). */
  resume?: string
  /** Bot logins (`name[bot]`) that may start a loop with a comment or a label. */
  allowedBots: string[]
  /** The bot an installation token (GITHUB_TOKEN, an App's) delivers as: its marked work is the action's own. */
  botLogin: string
  /** The most open pull requests scheduled hunts may keep; undefined: no cap. */
  maxOpenPrs?: number
  /** A failed scheduled hunt opens (or updates) one issue labelled `ralph`. */
  reportIssue: boolean
  /** The label that starts a loop on `issues: labeled`. */
  triggerLabel: string
  /** false: run the agent exactly as written (no preset flags); a ralph's `presets: false` also turns them off. */
  presets: boolean
  /** Credential variables the agent may keep (names or PREFIX* patterns); none by default. */
  allowEnv: string[]
  /** `protected-paths`: `auto`, `none` or globs (auto among them, maybe); undefined: the ralph's `protected:`, else auto. */
  protectedPaths?: string[]
  /** `editable`: globs of the paths the agent may change (every other is protected); undefined: the ralph's. */
  editable?: string[]
  /** `holdout`, `holdout-path`, `holdout-feedback`: gates the agent never sees (#37); undefined: none. */
  holdout?: HoldoutInput
  /** Claude Code's --max-turns per agent run. */
  maxTurns?: number
  /** `user`: the agent runs as its own user (or the step fails); `auto`: where possible; `none`: as the job's user. */
  isolation: IsolationSetting
  /** The agent's user with isolation (created on first use). */
  agentUser: string
  /** With isolation, the most processes (and threads) the agent's user may have at once (RLIMIT_NPROC). */
  agentMaxProcesses: number
  /**
   * Install the agent CLI before the loop: `{}` for the agent command's own CLI at the tested version, or a
   * named CLI, at a version of the user's choosing.
   */
  installAgent?: { name?: AgentCliName; version?: string }
  /** Run the agent behind the model proxy (src/proxy/): the proxy holds the key and meters every token. */
  modelProxy?: ModelProxySettings
  /** `ci-fix`: the workflows (name, file or path) whose failures on the action's pull request start a round. */
  ciFix: string[]
  /** Review and CI rounds per pull request, counted from its own markers. */
  maxFixRounds: number
  /** Resolve a review's threads once their fix is pushed (GraphQL resolveReviewThread). */
  resolveThreads: boolean
  /** The repository's budget (budget-inputs.ts): undefined when none is given. */
  budget?: BudgetSetting
}
