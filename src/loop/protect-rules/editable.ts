// `editable` (#37): the paths the agent may change. Every other path is protected: put back before each round of
// gates (a new one removed), and a delivered commit that changes one is refused. The strongest rule, and the
// simplest to explain: `editable: src/**`.
import type { ProtectRule } from '../protect/index.js'

/** The one rule `editable` stands for: every path, except those its globs name. */
export function editableRule(editable: readonly string[]): ProtectRule {
  return {
    glob: '**',
    scope: 'all',
    why: `not editable (editable: ${editable.join(', ')})`,
    except: [...editable]
  }
}
