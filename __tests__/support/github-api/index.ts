// A stand-in for api.github.com that keeps state and checks every request against GitHub's OpenAPI
// description (@octokit/openapi). Usage:
//
//   const api = await startGitHubApi({ owner: 'acme', repo: 'widgets', gitDir: bareRemote })
//   api.state.addUser('alice', { role: 'maintain' })          // role_name maintain, legacy permission write
//   api.state.failures.unresolvedNodeAfterCreate.labels = 1   // first addLabels after pulls.create: 422
//   api.state.readOnlyTokens.add(token)                       // a `contents: read` job token: writes get 403
//   const comment = api.state.addComment(api.state.addIssue({ title: 'Bug' }).number, { body: '/ralph', user: 'alice' })
//   writeFileSync(eventPath, JSON.stringify(api.events.issueComment(comment.id)))
//   // run the action with { ...api.env, GITHUB_TOKEN… }, or getOctokit(token, { baseUrl: api.url })
//   expect(api.violations).toEqual([])     // nothing the real API would have refused (or silently ignored)
//   expect(api.unimplemented).toEqual([])  // nothing answered 501
//   expect(api.responseProblems).toEqual([])  // the stand-in itself answered within the description
//   expect(api.writesBy(token)).toEqual([])    // that token tried to change nothing (`POST /repos/…` each)
//   expect(api.state.pulls[0]).toMatchObject({ head: 'ralph/issue-1', labels: ['ralph'] })
//
//   // Workflow runs, dispatches, and another run's artifacts (startGitHubApi({ …, artifacts: artifactService })):
//   const run = api.state.addRun({ id: 4001, workflowPath: '.github/workflows/ralph.yml', headBranch: 'ralph/x',
//     workflowRunBackendId: artifacts.workflowRunBackendId })  // its artifacts: the uploads under that backend id
//   api.state.workflow('ralph.yml')!.dispatchInputs = { resume: {} }  // on: workflow_dispatch: inputs: resume
//   expect(api.state.dispatches).toMatchObject([{ ref: 'main', inputs: { resume: '4001' } }])  // each queued a run
//   api.state.actionsPermission.set(token, 'read')            // `actions: read`: a dispatch with it gets 403
//   await api.close()
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
  DispatchRecord,
  Failures,
  InjectedFailure,
  IssueRecord,
  LabelRecord,
  PullRecord,
  ReactionRecord,
  RepoRole,
  ReviewCommentRecord,
  ReviewCommentSeed,
  ReviewRecord,
  ReviewState,
  ReviewThreadRecord,
  JobRecord,
  WorkflowInput,
  WorkflowRecord,
  WorkflowRunRecord
} from './state.js'
export { MAX_BODY_LENGTH } from './handlers.js'
