// The delivery decision alone: what the inputs say to do with the work for each outcome. The push and the
// pull request themselves are proved end to end in delivery.e2e.test.ts.
import { decideDelivery, type DeliveryFacts } from '../../src/action/delivery-decision.js'

const facts = (over: Partial<DeliveryFacts>): DeliveryFacts => ({
  stopReason: 'all_checks_passed',
  success: true,
  addedNoCommits: false,
  openPr: true,
  onFailure: 'none',
  draft: false,
  branch: 'ralph/fix',
  ...over
})

test.each<[string, Partial<DeliveryFacts>, ReturnType<typeof decideDelivery>]>([
  ['success opens a pull request', {}, { push: true, pullRequest: 'open', draft: false }],
  [
    'success with the draft input opens a draft',
    { draft: true },
    { push: true, pullRequest: 'open', draft: true }
  ],
  [
    'success with open-pr false keeps the work local',
    { openPr: false },
    {
      push: false,
      skipped:
        'open-pr is false, so nothing was pushed: the work is on the local branch ralph/fix and in the run record'
    }
  ],
  [
    'a failure with on-failure none pushes nothing',
    { success: false, stopReason: 'max_iterations' },
    {
      push: false,
      skipped:
        'on-failure is none, so nothing was pushed: the work is on the local branch and in the run record'
    }
  ],
  [
    'a failure with on-failure push pushes, without a pull request',
    { success: false, stopReason: 'max_iterations', onFailure: 'push' },
    { push: true, pullRequest: 'none', draft: true }
  ],
  [
    'a failure with on-failure draft-pr opens a draft',
    { success: false, stopReason: 'timeout', onFailure: 'draft-pr' },
    { push: true, pullRequest: 'open', draft: true }
  ],
  [
    'gates green before any agent ran: nothing to deliver',
    { stopReason: 'already_green' },
    {
      push: false,
      skipped: 'every gate passed before any agent ran, so there was nothing to do and nothing was pushed'
    }
  ],
  [
    "a person's pull request gets verified work only",
    { pr: 7, success: false, stopReason: 'max_iterations', onFailure: 'push' },
    {
      push: false,
      skipped:
        "the gates did not pass, so nothing was pushed onto pull request #7's branch (on-failure applies to the action's own branches only)"
    }
  ],
  [
    "a person's pull request is left alone when the loop added no commits",
    { pr: 7, addedNoCommits: true },
    { push: false, skipped: 'the loop added no commits, so pull request #7 is left as it was' }
  ],
  [
    "verified work is pushed onto a person's pull request, which is not reopened",
    { pr: 7 },
    { push: true, pullRequest: 'onto-pr', draft: false }
  ]
])('%s', (_name, over, decision) => {
  expect(decideDelivery(facts(over))).toEqual(decision)
})
