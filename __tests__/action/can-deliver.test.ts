// What a run's delivery may need, decided before any agent runs: a push (checked by a dry run), and a pull
// request opened with the job's GITHUB_TOKEN (checked against the repository's setting).
import { deliveryNeeds } from '../../src/action/can-deliver.js'

const inputs = {
  mode: 'run' as const,
  openPr: true,
  onFailure: 'none' as const,
  draft: false,
  continueJobs: 1
}

test.each<[string, Partial<Parameters<typeof deliveryNeeds>[0]>, number | undefined, boolean, boolean]>([
  ['the defaults: a pull request with GITHUB_TOKEN', {}, undefined, true, true],
  [
    'a push-token opens the pull request: the setting is not GITHUB_TOKEN’s',
    { pushToken: 'ghp_x' },
    undefined,
    true,
    false
  ],
  ["a person's pull request is pushed onto, none opened", {}, 7, true, false],
  ['open-pr false and on-failure none: nothing is ever pushed', { openPr: false }, undefined, false, false],
  [
    'open-pr false, on-failure push: pushed, no pull request',
    { openPr: false, onFailure: 'push' },
    undefined,
    true,
    false
  ],
  [
    'open-pr false, on-failure draft-pr: a draft is opened',
    { openPr: false, onFailure: 'draft-pr' },
    undefined,
    true,
    true
  ],
  ['a chain hands its work on by a push', { openPr: false, continueJobs: 3 }, undefined, true, false],
  ["two-job mode's agent job pushes nothing", { mode: 'agent' }, undefined, false, false],
  ['the deliver job runs no agent: nothing to check before one', { mode: 'deliver' }, undefined, false, false]
])('%s', (_name, over, pr, push, pullRequestAsActions) => {
  expect(deliveryNeeds({ ...inputs, ...over }, pr)).toEqual({ push, pullRequestAsActions })
})
