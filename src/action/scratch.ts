// The action's own work folders (a download, a handover), under RUNNER_TEMP: never the agent's tree.
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'

/** A new folder in RUNNER_TEMP for what is downloaded or packed; its caller removes it when done. */
export function scratch(prefix: string): string {
  return mkdtempSync(path.join(process.env.RUNNER_TEMP || tmpdir(), prefix))
}
