export { runGit, gitBytes, gitOrThrow, GitError, type GitResult, type GitOptions } from './git.js'
export {
  GitWorkspace,
  DIFF_PATCH_CHARS,
  TREE_GIT_MS,
  type Workspace,
  type WorkspaceDiff
} from './workspace.js'
export { createWorktree, type Worktree } from './worktree.js'
export { DEFAULT_MAX_FILE_BYTES, megabytes, parseFileSize } from './file-size.js'
export { GitRepo, configEnv, type ConfigEntries, type ExecOptions } from './repo.js'
export { authConfig, basicAuthHeader, extraHeaderKey, repositoryUrl, type GitAuth } from './auth.js'
export {
  prepareBranch,
  configureIdentity,
  hasDiff,
  commitsSince,
  changedFiles,
  changedWorkflowFiles,
  formatPatch,
  GITHUB_ACTIONS_IDENTITY,
  type BaseSource,
  type CommitIdentity,
  type IdentityOptions,
  type PrepareBranchOptions,
  type PreparedBranch
} from './branch.js'
export {
  withoutPersistedCredentials,
  hidePersistedCredentials,
  putBackHeld,
  restoreCredentials,
  type CredentialOptions,
  type HiddenCredentials,
  type HeldCredential,
  type RestoreReport
} from './credentials.js'
export { snapshotGitDir, restoreGitDir, type GitDirSnapshot } from './snapshot.js'
export { openInTree, treeHazard } from './tree-scan.js'
export {
  pushBranch,
  classifyPushFailure,
  OWNED_BRANCH_PREFIX,
  PUSH_FAILURE,
  GITHUB_PUSH_ERRORS,
  type PushFailure,
  type PushFailureKind,
  type PushOptions,
  type PushResult
} from './push.js'
export {
  pushWithRetry,
  failedInTransit,
  inTransit,
  maybeLanded,
  gitSaid,
  retryInTransit,
  resultInTransit,
  RemoteRetryingRepo,
  TRANSIENT_GIT_ERRORS,
  TRANSIENT_PUSH_ERRORS,
  type PushRetry,
  type RemoteCalls,
  type RemoteRetry
} from './remote-retry.js'
export { fetchTree, type TreeSource } from './fetch-tree.js'
