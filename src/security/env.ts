// Which variables are secret, and the environment the agent (and every process of the loop) gets: the
// job's, minus GitHub and Actions credentials and the runner's file commands, plus what the user allows back.
// One list for the agent, the action's own git, and the scrub of the action's /proc/<pid>/environ.

/** Credentials a process of the loop never gets unless the user allows them (a `*` ends a prefix). */
export const SECRET_VARIABLES = [
  'GITHUB_TOKEN',
  'GH_TOKEN',
  'GH_ENTERPRISE_TOKEN',
  'GITHUB_ENTERPRISE_TOKEN',
  'ACTIONS_RUNTIME_TOKEN',
  'ACTIONS_RUNTIME_URL',
  'ACTIONS_ID_TOKEN_REQUEST_*',
  'ACTIONS_RESULTS_URL',
  'ACTIONS_CACHE_URL',
  // Every action input: `with: github-token: …` arrives as INPUT_GITHUB-TOKEN.
  'INPUT_*',
  // The action's saved state between its main and post steps.
  'STATE_*'
]

/**
 * The files the runner reads back after the step: whoever can append to them sets the environment (LD_PRELOAD)
 * and PATH of every later step, this action's post step included, and its outputs, state and summary. Never
 * given to a process of the loop, whatever the allow-list says.
 */
export const RUNNER_FILE_COMMANDS = [
  'GITHUB_ENV',
  'GITHUB_PATH',
  'GITHUB_OUTPUT',
  'GITHUB_STATE',
  'GITHUB_STEP_SUMMARY'
] as const

export interface AgentEnvOptions {
  /**
   * Names (or `PREFIX*` patterns) kept even though they are secret, e.g. a read-only `GH_TOKEN` the user wants
   * the agent to have. The user's decision, named in their workflow.
   */
  allow?: string[]
  /** Variables set for the agent on top (after scrubbing, so the user can set one the job did not have). */
  set?: Record<string, string>
  /** Variables removed whatever `allow` says (the model keys, when the model proxy holds them). */
  remove?: string[]
}

const matches = (name: string, pattern: string): boolean =>
  pattern.endsWith('*')
    ? name.toUpperCase().startsWith(pattern.slice(0, -1).toUpperCase())
    : name.toUpperCase() === pattern.toUpperCase()

/** True for a credential variable (ignoring any allow-list). */
export function isSecretVariable(name: string): boolean {
  return SECRET_VARIABLES.some(pattern => matches(name, pattern))
}

const isFileCommand = (name: string): boolean =>
  (RUNNER_FILE_COMMANDS as readonly string[]).includes(name.toUpperCase())

/** Whether a process of the loop may keep `name`, given the user's allow-list. */
export function agentMayKeep(name: string, allow: readonly string[] = []): boolean {
  if (isFileCommand(name)) return false
  return !isSecretVariable(name) || allow.some(pattern => matches(name, pattern))
}

/** The agent's environment: `base` (the job's) without credentials except those `allow` names, plus `set`. */
export function agentEnvironment(base: NodeJS.ProcessEnv, options: AgentEnvOptions = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {}
  for (const [name, value] of Object.entries(base))
    if (
      value !== undefined &&
      agentMayKeep(name, options.allow) &&
      !options.remove?.some(p => matches(name, p))
    )
      env[name] = value
  return { ...env, ...options.set }
}

/** Names of the variables `agentEnvironment` removed from `base`, for the record (values never). */
export function removedVariables(base: NodeJS.ProcessEnv, options: AgentEnvOptions = {}): string[] {
  const kept = agentEnvironment(base, options)
  return Object.keys(base)
    .filter(name => base[name] !== undefined && !(name in kept))
    .sort()
}

/**
 * Runs `fn` with the secret variables (but those `allow` names) taken out of this process's environment, so
 * that nothing started meanwhile inherits them: not the agent, and not a git hook or filter the loop's own git
 * commands might run. They are put back afterwards (the artifact upload needs ACTIONS_RUNTIME_TOKEN).
 */
export async function withoutSecretVariables<T>(
  fn: () => Promise<T>,
  allow: readonly string[] = []
): Promise<T> {
  const saved: Record<string, string | undefined> = {}
  for (const key of Object.keys(process.env))
    if (isSecretVariable(key) && !agentMayKeep(key, allow)) {
      saved[key] = process.env[key]
      delete process.env[key]
    }
  try {
    return await fn()
  } finally {
    Object.assign(process.env, saved)
  }
}
