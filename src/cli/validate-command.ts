// `ralph-action validate PATH`: every problem at once, each as `file:line:column: message`, the programs its
// agent, commands and checks start included.
import path from 'node:path'
import { lintRalph, resolveRalphPath, type RalphProblem } from '../ralph/index.js'
import { parseArgs, UsageError } from './argv.js'
import type { CliIO } from './io.js'

export async function validateCommand(args: string[], io: CliIO): Promise<number> {
  const { rest } = parseArgs(args, [])
  const [pathArg, ...userArgs] = rest
  if (pathArg === undefined) throw new UsageError("Missing argument 'PATH'.")
  const resolved = resolveRalphPath(pathArg, { cwd: io.cwd, home: io.home })
  const { problems, warnings, suggestions } = lintRalph(resolved.file, {
    cwd: io.cwd,
    env: io.env,
    userArgs,
    checkPrograms: true
  })
  const shown = path.relative(io.cwd, resolved.file) || resolved.file
  for (const p of problems) io.stderr(problemLine(p, io.cwd))
  for (const p of warnings) io.stderr(problemLine(p, io.cwd, 'warning: '))
  if (problems.length > 0) {
    io.stderr(`${problems.length} problem${problems.length === 1 ? '' : 's'} in ${shown}.\n`)
    return 1
  }
  io.stdout(
    `${shown}: OK${warnings.length > 0 ? `, with ${warnings.length} warning${warnings.length === 1 ? '' : 's'}` : ''}\n`
  )
  for (const line of suggestions) io.stdout(`${shown}: ${line}\n`)
  return 0
}

/** `file:line:column: [kind]message`, the file relative to `cwd`. */
export function problemLine(p: RalphProblem, cwd: string, kind = ''): string {
  const where = [p.line, p.column].filter(n => n !== undefined).join(':')
  return `${path.relative(cwd, p.file) || p.file}${where ? `:${where}` : ''}: ${kind}${p.message}\n`
}
