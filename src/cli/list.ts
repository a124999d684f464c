// `ralph-action list`: the repository's installed ralphs as JSON, for a `strategy.matrix`.
import { listInstalledRalphs } from '../ralph/index.js'
import { parseArgs } from './argv.js'
import type { CliIO } from './main.js'

export async function listCommand(args: string[], io: CliIO): Promise<number> {
  parseArgs(args, [])
  // Only the project's own ralphs: a matrix runs on a runner whose home has none of the user's.
  const names = listInstalledRalphs(io.cwd, '/nonexistent')
  io.stdout(`${JSON.stringify({ ralph: names })}\n`)
  return 0
}
