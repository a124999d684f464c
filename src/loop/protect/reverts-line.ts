// How protected paths put back are said: one line, each path shown safely (a name need not be UTF-8).
import { showPath } from '../../text/tree-path.js'
import type { Revert } from './types.js'

/** One line for the prompt, the log and the record: each path and why. */
export function revertsLine(reverts: readonly Revert[]): string {
  return reverts.map(r => `${showPath(r.path)} (${r.why})`).join(', ')
}
