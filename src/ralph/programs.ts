// Which programs a ralph will start, found before anything runs: a missing one is said at once, in one
// line, instead of after the agent has run (and been paid for).
import fs from 'node:fs'
import { pyStrRepr } from './pyvalue.js'
import { RALPH_MARKER } from './resolve.js'
import { resolveArgsInRun, runsFromRalphDir } from './render.js'
import { shlexSplit } from './shlex.js'
import { which } from './which.js'

// bash's keywords and builtins (`compgen -k; compgen -b`): a gate may start with one, and none is a file.
const BASH_WORDS = new Set(
  (
    'if then else elif fi case esac for select while until do done in function time { } ! [[ ]] coproc ' +
    '. : [ alias bg bind break builtin caller cd command compgen complete compopt continue declare dirs ' +
    'disown echo enable eval exec exit export false fc fg getopts hash help history jobs kill let local ' +
    'logout mapfile popd printf pushd pwd read readarray readonly return set shift shopt source suspend ' +
    'test times trap true type typeset ulimit umask unalias unset wait'
  ).split(' ')
)

/** Characters after which a gate's words are bash's to expand: its programs cannot be known beforehand. */
const EXPANDS = /[$`'"\\*?[\]{}~()<>=]/

/**
 * The programs a gate's bash line starts, where that can be known without running bash: the first word of
 * each simple command (after `NAME=value` assignments). Lines with quoting or expansions yield only their
 * first command's program; keywords, builtins and paths (the agent may be asked to write them) are left out.
 */
function gatePrograms(run: string): string[] {
  const simple = !/[$`'"\\(){}<>]/.test(run)
  const segments = simple ? run.split(/&&|\|\||[;|&\n]/) : [run.split(/&&|\|\||[;|&\n]/)[0]]
  const programs: string[] = []
  for (const segment of segments) {
    const words = segment.trim().split(/\s+/)
    while (words.length > 0 && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[0])) words.shift()
    const word = words[0]
    if (!word || EXPANDS.test(word) || /^-|\//.test(word) || BASH_WORDS.has(word)) continue
    if (!programs.includes(word)) programs.push(word)
  }
  return programs
}

/** The program a `commands:` entry starts (its args filled in), and the folder a relative one is found in. */
function commandProgram(
  run: string,
  userArgs: Record<string, string>,
  dirs: { ralphDir: string; projectRoot: string }
): { program: string; cwd: string; runString: string } | undefined {
  const runString = resolveArgsInRun(run, userArgs)
  let argv: string[]
  try {
    argv = shlexSplit(runString)
  } catch {
    return undefined // the run itself reports the syntax, as the reference does
  }
  if (argv.length === 0) return undefined
  return {
    program: argv[0],
    cwd: runsFromRalphDir(runString) ? dirs.ralphDir : dirs.projectRoot,
    runString
  }
}

/**
 * Whether `program` can be found: a bare name on PATH (executable), a path as a file relative to `cwd`.
 * A file that exists but is not executable counts as found: running it gives the precise error.
 */
function programFound(program: string, cwd: string, searchPath: string | undefined): boolean {
  if (!program.includes('/')) return which(program, { cwd, path: searchPath }) !== null
  try {
    return fs.statSync(program.startsWith('/') ? program : `${cwd.replace(/\/+$/, '')}/${program}`).isFile()
  } catch {
    return false
  }
}

/** The reference's message for a command whose program is missing (it says so when the command runs). */
export const commandNotFound = (name: string, runString: string): string =>
  `Command '${name}' binary not found: ${pyStrRepr(runString)}. Check the 'commands' field in your ${RALPH_MARKER} frontmatter.`

/** The problem with a `commands:` entry whose program cannot be found, or undefined. */
export function missingCommandProgram(
  command: { name: string; run: string },
  userArgs: Record<string, string>,
  dirs: { ralphDir: string; projectRoot: string },
  searchPath: string | undefined
): string | undefined {
  const found = commandProgram(command.run, userArgs, dirs)
  if (found && !programFound(found.program, found.cwd, searchPath))
    return commandNotFound(command.name, found.runString)
  return undefined
}

/** The problem with a gate whose program cannot be found (bash would say "command not found"), or undefined. */
export function missingGateProgram(
  check: { name: string; run: string },
  cwd: string,
  searchPath: string | undefined
): string | undefined {
  const program = gatePrograms(check.run).find(p => !programFound(p, cwd, searchPath))
  if (program === undefined) return undefined
  const command = check.run === check.name ? '' : ` (its command: ${check.run})`
  return `Check '${check.name}' cannot run: '${program}' is not on PATH${command}. Install it, or fix the check.`
}

/** The problem with an agent whose program cannot be found, in the reference's words, or undefined. */
export function missingAgentProgram(
  agentArgv: string[],
  cwd: string,
  searchPath: string | undefined
): string | undefined {
  const program = agentArgv[0]
  if (program === undefined || which(program, { cwd, path: searchPath })) return undefined
  return `Agent command '${program}' not found on PATH.`
}
