// The held-out folder (#37) as a workflow's earlier step makes it: the job's user's, 0700, outside the workspace,
// holding `files` (paths relative to it, as they are laid into the clean checkout). Removed after the file's tests.
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll } from '@jest/globals'

/** A maker of held-out folders for one test file; each folder is removed after all its tests. */
export function heldOutFolders(): (files: Record<string, string>) => string {
  const made: string[] = []
  afterAll(() => {
    for (const dir of made) rmSync(dir, { recursive: true, force: true })
  })
  return files => {
    const parent = mkdtempSync(path.join(tmpdir(), 'ralph-holdout-e2e-'))
    made.push(parent)
    const dir = path.join(parent, 'holdout')
    for (const [file, text] of Object.entries(files)) {
      mkdirSync(path.dirname(path.join(dir, file)), { recursive: true })
      writeFileSync(path.join(dir, file), text)
    }
    chmodSync(dir, 0o700)
    return dir
  }
}
