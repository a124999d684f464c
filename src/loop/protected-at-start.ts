// What the put-back of protected paths would undo before the agent has done anything: a person's own work (a
// vendored folder not yet committed, an edit of a test not yet committed). The loop refuses to start on such a
// tree rather than leave those files alone: they sit where what judges the agent lives, so left alone the agent
// could rewrite them and the gates would trust them, and git holds no copy to put them back from. Committed (or
// moved out), they are the start commit's, protected like the rest. A fresh checkout (CI) never has any.
import { findChanges, revertsLine, type Protection } from './protect/index.js'

/** Paths named in the refusal; the rest are counted. */
const MOST_NAMED = 5

/**
 * Why the loop may not start on this tree (one line naming the paths and the fix), or undefined when the tree
 * is, where paths are protected, the start commit's.
 */
export async function protectedWorkBeforeTheLoop(protection: Protection): Promise<string | undefined> {
  const found = await findChanges(protection)
  if (found.length === 0) return undefined
  const more = found.length > MOST_NAMED ? `, and ${found.length - MOST_NAMED} more` : ''
  return `the work tree already differs from the start commit where paths are protected, and the put-back before each gate run would undo it (a new file deleted, an edit reverted): ${revertsLine(found.slice(0, MOST_NAMED))}${more}. Nothing was changed: commit these files (or move them out of the protected paths) and start again, or set protected (protected-paths) to none.`
}
