// One security policy: which variables are secret, the agent's environment, the hermetic git environment,
// the agent's own user (its spawn, and killing everything it left), and the workflow commands it may not print.
export {
  SECRET_VARIABLES,
  RUNNER_FILE_COMMANDS,
  agentEnvironment,
  agentMayKeep,
  isSecretVariable,
  removedVariables,
  withoutSecretVariables,
  type AgentEnvOptions
} from './env.js'
export { configEnv, hermeticGitEnvironment, type ConfigEntries } from './git-env.js'
export {
  AGENT_USER_NAME,
  DEFAULT_AGENT_MAX_PROCESSES,
  DEFAULT_AGENT_USER,
  MIN_AGENT_MAX_PROCESSES,
  SHARED_TEMP_FOLDERS,
  asAgent,
  isolateAgent,
  isolation,
  isolationPrivilege
} from './isolation.js'
export { agentUserEnvironment } from './agent-env.js'
export {
  IsolationError,
  type AgentCommand,
  type AgentIsolation,
  type AgentUser,
  type IsolateOptions,
  type IsolationSetting,
  type IsolationState,
  type Privilege
} from './isolation-types.js'
export { processesOf, zombiesOf } from './processes.js'
export { guardRunnerFiles, type RunnerFilesGuard } from './runner-files.js'
export { WorkflowCommandFilter, neutralizeWorkflowCommands } from './workflow-commands.js'
