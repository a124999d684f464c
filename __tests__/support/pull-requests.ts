// The pull requests the trigger e2e files set up on the GitHub stand-in (the action's own, a person's), and the
// one line the action logs when an event starts nothing. Shared by rounds*.e2e and triggers-round-three.e2e.
import type { GitHubState, PullRecord } from './github-api/index.js'

/** The hidden line the action's pull request bodies carry (written out here: a test pins the product's text). */
export const OWN_MARKER = '<!-- ralph-action:pull-request -->'

/** The action's branch for issue 1, the one its pull request is on unless a test says. */
export const OWN_BRANCH = 'ralph/issue-1'

/** What these helpers need of a project: its remote's git and its GitHub stand-in's state. */
export interface PullProject {
  remoteGit(...args: string[]): string
  api: { state: GitHubState }
}

/** A person's pull request from a branch made on the remote from `base` (main unless said). */
export function personsPull(
  p: PullProject,
  fields: Partial<PullRecord> & { head: string; user: string; title?: string }
): PullRecord {
  p.remoteGit('branch', fields.head, fields.base ?? 'main')
  return p.api.state.addPull({ title: 'Mine', base: 'main', ...fields })
}

/** The action's own pull request: its branch on the remote (from main), opened by its bot with its marker. */
export function actionsPull(p: PullProject, head = OWN_BRANCH): PullRecord {
  return personsPull(p, {
    title: 'ralph: fix-tests',
    body: `${OWN_MARKER}\nWhat the loop did.`,
    head,
    user: 'github-actions[bot]'
  })
}

/** The `Nothing to do: …` lines a run logged (one when an event starts nothing, quietly). */
export const nothingToDo = (run: { main: { stdout: string } }): string[] =>
  run.main.stdout.split('\n').filter(line => line.startsWith('Nothing to do:'))
