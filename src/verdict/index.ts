// The verdict's judges that the code under test cannot reach (#37): canaries, the runner's report file, counts by
// name, the bytes a clone writes, and the evidence a reviewer gets. Pure, below the engine: it imports only
// `ralph` (shell words) and `text`.
export {
  CANARY_FAILURE,
  judgeCanaries,
  planCanaries,
  type Canary,
  type CanaryPlan,
  type CanaryVerdict,
  type RandomBytes
} from './canaries.js'
export { cloneBytes, parseCheckAttr, type Attributes } from './clone-checkout.js'
export { countProblems, listArgs, namesRun, parseCollected, parseListedFiles } from './counts.js'
export { reviewSection, scanDiff, type Flag } from './evidence.js'
export {
  ReportError,
  parseReport,
  type Outcome,
  type ReportRunner,
  type ReportedTest,
  type RunnerReport
} from './report.js'
export { NODE_REPORTER, reportInvocation, withRunnerArgs, type ReportInvocation } from './report-files.js'
