export { checkEventPayload, startGitHubApi } from './server.js'
export type {
  GitHubApi,
  GitHubApiOptions,
  RecordedRequest,
  Violation,
  ViolationKind,
  Unimplemented,
  ResponseProblem
} from './server.js'
export { GitHubState, GITHUB_ACTIONS_BOT } from './state.js'
export type {
  Account,
  AccountType,
  CommentRecord,
  CustomRole,
  Failures,
  InjectedFailure,
  IssueRecord,
  LabelRecord,
  PullRecord,
  ReactionRecord,
  RepoRole
} from './state.js'
export { MAX_BODY_LENGTH } from './handlers.js'
