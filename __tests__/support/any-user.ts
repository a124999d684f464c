// Programs of this checkout that another user must run (the sudo runner, nobody), apart from jest: the e2e
// harness also runs outside it (npm run local).
import { chmodSync, copyFileSync, mkdtempSync, readdirSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'

const copies = new Map<string, string>()

/**
 * The files of `dir` that `keep` names, copied (once a process) into a folder every user may read, for runs as
 * another user: a checkout inside a private folder (`mktemp -d` is 0700, as CI's fresh clone may be) is not.
 * Answers the copy's folder.
 */
export function copyForAnyUser(dir: string, keep: (name: string) => boolean): string {
  const known = copies.get(dir)
  if (known) return known
  const copy = realpathSync(mkdtempSync(path.join(tmpdir(), 'ralph-any-user-')))
  chmodSync(copy, 0o755)
  for (const entry of readdirSync(dir, { withFileTypes: true }))
    if (entry.isFile() && keep(entry.name))
      copyFileSync(path.join(dir, entry.name), path.join(copy, entry.name))
  process.once('exit', () => rmSync(copy, { recursive: true, force: true }))
  copies.set(dir, copy)
  return copy
}

/** The built CLI (dist/cli/index.js, one self-contained file) where every user may run it. */
export const cliForAnyUser = (): string =>
  path.join(
    copyForAnyUser(path.resolve('dist/cli'), name => /\.(js|json)$/.test(name)),
    'index.js'
  )
