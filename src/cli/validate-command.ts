// `ralph-action validate PATH`: every problem at once, each as `file:line:column: message`, the programs its
// agent, commands and checks start included.
import path from 'node:path'
import { lintRalph, resolveRalphPath } from '../ralph/index.js'
import { parseArgs, UsageError } from './argv.js'
import type { CliIO } from './io.js'

export async function validateCommand(args: string[], io: CliIO): Promise<number> {
  const { rest } = parseArgs(args, [])
  const [pathArg, ...userArgs] = rest
  if (pathArg === undefined) throw new UsageError("Missing argument 'PATH'.")
  const resolved = resolveRalphPath(pathArg, { cwd: io.cwd, home: io.home })
  const { problems, warnings } = lintRalph(resolved.file, {
    cwd: io.cwd,
    env: io.env,
    userArgs,
    checkPrograms: true
  })
  const shown = path.relative(io.cwd, resolved.file) || resolved.file
  for (const [p, kind] of [
    ...problems.map(p => [p, ''] as const),
    ...warnings.map(p => [p, 'warning: '] as const)
  ]) {
    const where = [p.line, p.column].filter(n => n !== undefined).join(':')
    io.stderr(`${path.relative(io.cwd, p.file) || shown}${where ? `:${where}` : ''}: ${kind}${p.message}\n`)
  }
  if (problems.length > 0) {
    io.stderr(`${problems.length} problem${problems.length === 1 ? '' : 's'} in ${shown}.\n`)
    return 1
  }
  io.stdout(`${shown}: OK\n`)
  return 0
}
