// The agent's environment: the job's, minus GitHub and Actions credentials, plus what the user allows back.
// Agents in CI have leaked tokens (a prompt injection only has to run `env`); the action pushes and opens
// the pull request itself, after the gates, so the agent never needs a GitHub write token.

/** Removed from every agent's environment (a `*` ends a prefix). */
export const AGENT_ENV_DENYLIST = [
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

export interface AgentEnvOptions {
  /**
   * Names (or `PREFIX*` patterns) kept even though the deny-list removes them, e.g. a read-only `GH_TOKEN`
   * the user wants the agent to have. The user's decision, named in their workflow.
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

/** True when the deny-list removes `name` from the agent's environment (ignoring the allow-list). */
export function isCredentialVariable(name: string): boolean {
  return AGENT_ENV_DENYLIST.some(pattern => matches(name, pattern))
}

/** The agent's environment: `base` (the job's) without credentials, except those `allow` names, plus `set`. */
export function agentEnvironment(base: NodeJS.ProcessEnv, options: AgentEnvOptions = {}): NodeJS.ProcessEnv {
  const allow = options.allow ?? []
  const env: NodeJS.ProcessEnv = {}
  for (const [name, value] of Object.entries(base)) {
    if (value === undefined) continue
    if (isCredentialVariable(name) && !allow.some(pattern => matches(name, pattern))) continue
    if (options.remove?.some(pattern => matches(name, pattern))) continue
    env[name] = value
  }
  return { ...env, ...options.set }
}

/** Names of the variables `agentEnvironment` removed from `base`, for the record (values never). */
export function removedVariables(base: NodeJS.ProcessEnv, options: AgentEnvOptions = {}): string[] {
  const kept = agentEnvironment(base, options)
  return Object.keys(base)
    .filter(name => base[name] !== undefined && !(name in kept))
    .sort()
}
