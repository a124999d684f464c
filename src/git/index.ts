export { runGit, gitOrThrow, GitError, type GitResult, type GitOptions } from './git.js'
export {
  GitWorkspace,
  createWorktree,
  DIFF_PATCH_CHARS,
  type Workspace,
  type WorkspaceDiff,
  type Worktree
} from './workspace.js'
