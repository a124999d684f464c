// A round of gates during which protected paths changed does not count: the failing run that says so.
import type { CheckRun } from '../types.js'
import { revertsLine } from './reverts-line.js'
import type { Revert } from './types.js'

/**
 * The failing run that voids a round of gates during which protected paths changed: the code a gate runs
 * (the agent's) could have rewritten a later gate's script or a test not yet loaded. They are put back before
 * the next round.
 */
export function changedDuringGates(changes: readonly Revert[]): CheckRun {
  return {
    name: 'protected paths',
    run: '(the action: what judges the agent, unchanged while it judges)',
    passed: false,
    exitCode: null,
    timedOut: false,
    durationMs: 0,
    outputBytes: 0,
    tail: `While the gates ran, protected paths changed: ${revertsLine(changes)}. Gates that run code which rewrites what judges it do not count; leave those paths alone.`,
    log: ''
  }
}
