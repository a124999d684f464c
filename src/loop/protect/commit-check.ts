// The commit check of protected paths: which paths a delivered commit changes that it may not (the delivery's
// last check; the restore before each gate run makes it empty). Read from git, decided by the rules.
import { GitRepo } from '../../git/index.js'
import { splitNul } from '../../text/tree-path.js'
import { ruleFor } from './glob.js'
import type { ProtectRule, Revert } from './types.js'

/** The paths of `changed` (relative to the top) that the delivered commit may not change, with why. */
export function protectedChanges(
  rules: readonly ProtectRule[],
  changed: readonly { path: string; inBase: boolean }[],
  guardrails?: string
): Revert[] {
  return changed.flatMap(({ path: file, inBase }) => {
    if (file === guardrails) return []
    const rule = ruleFor(rules, file, inBase)
    return rule ? [{ path: file, why: rule.why }] : []
  })
}

/**
 * The protected paths a commit changes against the start commit (the delivery's last check: the restore before
 * each gate run makes this empty). `rules` and `guardrails` as status.json's `protected` records them.
 */
export async function protectedInCommit(
  dir: string,
  base: string,
  commit: string,
  rules: readonly ProtectRule[],
  guardrails?: string
): Promise<Revert[]> {
  const out = await new GitRepo(dir).bytes([
    'diff',
    '--name-status',
    '-z',
    '--no-renames',
    base,
    commit,
    '--'
  ])
  const fields = splitNul(out)
  const changed: { path: string; inBase: boolean }[] = []
  for (let i = 0; i + 1 < fields.length; i += 2)
    changed.push({ path: fields[i + 1], inBase: fields[i] !== 'A' })
  return protectedChanges(rules, changed, guardrails)
}
