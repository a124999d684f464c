// The CLI front-end: `ralph-action run|prompt|validate|scaffold|loop|list|budget`. Bad input gets one line and a
// non-zero exit; a stack trace means a bug of ours.
import path from 'node:path'
import { RalphError } from '../ralph/index.js'
import { closest } from '../text/closest.js'
import { UsageError } from './argv.js'
import { budgetCommand } from './budget-command.js'
import { HELP, VERSION, helpFor } from './help.js'
import { listCommand } from './list.js'
import { loopCommand } from './loop-command.js'
import { promptCommand } from './prompt-command.js'
import { runCommand } from './run-command.js'
import { scaffoldRalph, starterAgentHint } from './scaffold.js'
import { validateCommand } from './validate-command.js'
import type { CliIO } from './io.js'

/** Exit codes, documented in the README. */
export const EXIT = { ok: 0, config: 1, usage: 2, unsuccessful: 3, cancelled: 130, bug: 70 } as const

type Command = (args: string[], io: CliIO) => Promise<number>

const COMMANDS: Record<string, Command> = {
  run: runCommand,
  prompt: promptCommand,
  validate: validateCommand,
  loop: loopCommand,
  list: listCommand,
  budget: budgetCommand,
  scaffold: async (args, io) => {
    const name = args.find(a => !a.startsWith('-'))
    const file = scaffoldRalph(io.cwd, name)
    const hint = starterAgentHint(io.env, io.cwd)
    io.stdout(
      `Created ${file}\n${hint ? `${hint}\n` : ''}Edit the file, then run: ralph-action run ${name ?? '.'} -n 5 --commit\n`
    )
    return EXIT.ok
  }
}

export async function main(argv: string[], io: CliIO): Promise<number> {
  const [name, ...rest] = argv
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.stdout(name === 'help' && rest[0] ? helpFor(rest[0]) : HELP)
    return EXIT.ok
  }
  if (name === '--version' || name === '-V') {
    io.stdout(`ralph-action ${VERSION}\n`)
    return EXIT.ok
  }
  const command = COMMANDS[name]
  if (!command) {
    const near = closest(name, [...Object.keys(COMMANDS), '--help', '--version'])
    const what = !name.startsWith('-')
      ? `No such command '${name}'.`
      : near
        ? `No such option '${name}'.`
        : `No such option '${name}': options come after a command (ralph-action run my-ralph ${name}).`
    io.stderr(
      `Error: ${what}${near ? ` Did you mean '${near}'?` : ''}\nTry 'ralph-action --help' for help.\n`
    )
    return EXIT.usage
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    const end = rest.indexOf('--')
    const at = Math.max(rest.indexOf('--help'), rest.indexOf('-h'))
    if (end === -1 || at < end) {
      io.stdout(helpFor(name))
      return EXIT.ok
    }
  }
  try {
    return await command(rest, io)
  } catch (error) {
    if (!(error instanceof UsageError || error instanceof RalphError)) throw error
    // One rule: a mistake on the command line exits 2 and points at --help; a problem with a file, a
    // program or the machine exits 1. Either way each line starts with "Error:".
    const usage = error instanceof UsageError || error.exitCode === EXIT.usage
    for (const line of errorLines(error, io.cwd)) io.stderr(`Error: ${line}\n`)
    if (usage) io.stderr(`Try 'ralph-action ${name} --help' for help.\n`)
    return usage ? EXIT.usage : EXIT.config
  }
}

/** The error's lines; a ralph problem with a position is `file:line:column: message`, like validate prints it. */
function errorLines(error: UsageError | RalphError, cwd: string): string[] {
  const problem = error instanceof RalphError ? error.problems[0] : undefined
  if (problem?.line !== undefined) {
    const where = [path.relative(cwd, path.resolve(cwd, problem.file)) || problem.file, problem.line]
    if (problem.column !== undefined) where.push(problem.column)
    return [`${where.join(':')}: ${problem.message}`]
  }
  return error.message.split('\n')
}
