// Whom a per-requester budget counts a run against: the person an event's admission checked, never a schedule's
// or a CI round's (they have none, and count against the repository's budget only).
import { describe, expect, test } from '@jest/globals'
import { requesterOf } from '../../src/action/budget.js'

describe('requesterOf', () => {
  const alice = { login: 'alice', role: 'write' as const }
  test.each(['issue_comment', 'issues', 'pull_request', 'pull_request_target', 'pull_request_review'])(
    'a run started by %s counts against the person who asked',
    event => {
      expect(requesterOf({ event, actor: alice } as Parameters<typeof requesterOf>[0])).toBe('alice')
    }
  )
  test.each(['workflow_run', 'schedule', 'workflow_dispatch', 'push'])(
    'a run started by %s counts against no one',
    event => {
      expect(requesterOf({ event, actor: alice } as Parameters<typeof requesterOf>[0])).toBeUndefined()
    }
  )
})
