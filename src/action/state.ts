// What main tells post (core.saveState → GITHUB_STATE → STATE_* in post). Written as main goes, so a main
// step that is killed still leaves post enough to finish the record, upload it and write the summary.
import * as core from '@actions/core'

/** As post reads it: a text field is undefined when main did not save it. */
export interface SavedState {
  /** Set at main's start: the same bundle runs as post when it is there (as actions/checkout does). */
  isPost: boolean
  /** The run record's folder, once the plan is made. */
  recordDir?: string | undefined
  artifactName?: string | undefined
  ralphName?: string | undefined
  /** The branch the loop commits to. */
  branch?: string | undefined
  /** The record was uploaded by main. */
  uploaded: boolean
  /** Main wrote the job summary. */
  summaryWritten: boolean
  /** Main reached its end (whatever the outcome). */
  finished: boolean
  /** The tracking comment: JSON `{ issueNumber, commentId, ralphName, branch, actor, maxIterations }`. */
  tracking?: string | undefined
  /** The value of RALPH_ACTION_RUN the loop's processes carry: post kills its leftovers when main did not. */
  runMark?: string | undefined
  /** While the loop runs as the agent's user: what to undo (IsolationState as JSON), if main cannot. */
  isolation?: string | undefined
  /** While the loop runs: the file holding .git's snapshot, for post to put back if main cannot. */
  gitSnapshot?: string | undefined
  /** Until main has put the checkout's credential back: the file holding it (isolation only), for post. */
  credentials?: string | undefined
  /** While the loop runs behind the model proxy as the agent's user: `{ uid, privilege }` of its egress rules. */
  egress?: string | undefined
  /** While the run holds a lease of the repository's budget (LeaseState as JSON): post settles it if main did not. */
  lease?: string | undefined
  /** The most the model proxy has had covered by the lease (dollars): a killed main spent no more than this. */
  leaseCovered?: string | undefined
}

type Key = Exclude<keyof SavedState, 'isPost'>

export function readState(): SavedState {
  const text = (name: string): string | undefined => core.getState(name) || undefined
  return {
    isPost: core.getState('isPost') === 'true',
    recordDir: text('recordDir'),
    artifactName: text('artifactName'),
    ralphName: text('ralphName'),
    branch: text('branch'),
    uploaded: core.getState('uploaded') === 'true',
    summaryWritten: core.getState('summaryWritten') === 'true',
    finished: core.getState('finished') === 'true',
    tracking: text('tracking'),
    runMark: text('runMark'),
    isolation: text('isolation'),
    gitSnapshot: text('gitSnapshot'),
    credentials: text('credentials'),
    egress: text('egress'),
    lease: text('lease'),
    leaseCovered: text('leaseCovered')
  }
}

/** What this process saved (post reads it from the environment; main's later steps from here). */
const saved = new Map<string, string>()

export function saveState(key: Key | 'isPost', value: string | boolean): void {
  saved.set(key, String(value))
  core.saveState(key, String(value))
}

/** Whether this process has saved `key` as true: main's later steps asking what its earlier ones did. */
export const savedHere = (key: Key): boolean => saved.get(key) === 'true'
