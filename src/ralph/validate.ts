// Validating a ralph's frontmatter with the reference's rules and messages (cli._build_run_config), in its
// order, so that the first problem we report is the error ralphify would report. Our own keys (checks,
// checks_parallel, completion_tag, guardrails, presets, setup, verify) are checked last: a ralph the reference accepts fails here only because of them.
import fs from 'node:fs'
import path from 'node:path'
import { parseUserArgs } from './args.js'
import { argEnvName, argsInsideWords } from './arg-words.js'
import { readFrontmatter } from './frontmatter.js'
import type { FrontmatterPositions, FrontmatterSplit, SourcePos } from './frontmatter.js'
import { PLACEHOLDER_RE } from './render.js'
import { closest } from '../text/closest.js'
import { pyRepr } from './pyvalue.js'
import { missingAgentProgram, missingCommandProgram, missingGateProgram } from './programs.js'
import type { PyDict, PyValue } from './pyvalue.js'
import { RALPH_MARKER } from './resolve.js'
import { checkNames, field, isNonEmptyString, validateRunList } from './run-list.js'
import { parseProtectSetting } from './protect.js'
import { parseEditableSetting } from './editable.js'
import { ShlexError, shlexSplit } from './shlex.js'
import { readRegularFile, TreeFileError } from './tree-file.js'
import { fileProblem, RalphError } from './types.js'
import type { Ralph, RalphProblem } from './types.js'

/** The reference's default command timeout, in seconds. */
export const DEFAULT_COMMAND_TIMEOUT = 60
/** Our default check timeout, in seconds. */
export const DEFAULT_CHECK_TIMEOUT = 600

export interface LoadOptions {
  /** The project root: the agent and commands run here; `./agent` and empty PATH entries resolve against it. */
  cwd: string
  /** Where PATH comes from for the agent lookup (default: process.env). */
  env?: Record<string, string | undefined>
  /** The user's arg tokens after the ralph path; parsed with the reference's rules (errors exit 2). */
  userArgs?: string[]
  /** Don't require the agent to be on PATH (e.g. to lint a ralph before the agent is installed). */
  skipAgentLookup?: boolean
  /** The file's content when already read; otherwise it is read from `file`. */
  text?: string
  /** Read RALPH.md only if it is a regular file and not a link, even one inside the project (the action's rule). */
  noLinks?: boolean
  /**
   * Also find the programs its commands and checks start (the reference finds a command's only when it
   * runs it, after the loop has started): a missing one is a problem at its `run:` line.
   */
  checkPrograms?: boolean
}

/** A validated ralph plus the user's args parsed against its declared `args`. */
export interface LoadedRalph extends Ralph {
  /** From `LoadOptions.userArgs`; {} when none were given. */
  argValues: Record<string, string>
  /** What is valid but unsafe (an arg placeholder inside a larger word of a command): for validate to say. */
  warnings: RalphProblem[]
}

/**
 * Reads and validates RALPH.md (or the RALPH.md inside a folder). Throws RalphError with the first problem,
 * its message verbatim as the reference prints it, and every problem found in `problems`.
 */
export function loadRalph(file: string, opts: LoadOptions): LoadedRalph {
  const { ralph, problems, fatal } = inspectRalph(file, opts)
  if (fatal) throw fatal
  if (!ralph) {
    const first = problems[0]
    throw new RalphError(first.message, first.exitCode, problems)
  }
  return ralph
}

/** Every problem in the ralph, first the one the reference would report; [] when it is valid. */
export function validateRalph(file: string, opts: LoadOptions): RalphProblem[] {
  return inspectRalph(file, opts).problems
}

/** The problems (as validateRalph) and the warnings: what `validate` prints. */
export function lintRalph(
  file: string,
  opts: LoadOptions
): { problems: RalphProblem[]; warnings: RalphProblem[]; suggestions: string[] } {
  const { ralph, problems, warnings } = inspectRalph(file, opts)
  // #37: the strongest protection, and the simplest to explain; a suggestion, never a warning.
  const suggestions =
    ralph && ralph.checks.length > 0 && ralph.editable === undefined
      ? [
          'suggestion: name the paths the agent may change, e.g. `editable: [src/**]`: every other path is put back before the gates and refused at delivery'
        ]
      : []
  return { problems, warnings: warnings ?? [], suggestions }
}

/** Every key a runtime reads: ralphify's, then ours. */
const KNOWN_KEYS = [
  'agent',
  'commands',
  'args',
  'credit',
  'checks',
  'checks_parallel',
  'completion_tag',
  'editable',
  'guardrails',
  'presets',
  'protected',
  'setup',
  'verify'
]
/** Args the action fills for a run on an issue (or a review), whether the ralph declares them or not. */
const ACTION_ARGS = ['task', 'task_file', 'review', 'review_file']

/** Keys no runtime reads (`chek:` leaves a ralph without gates): one warning each, with the key meant. */
function unknownKeys(file: string, fm: PyDict, positions: FrontmatterPositions): RalphProblem[] {
  const found: RalphProblem[] = []
  for (const key of fm.keys()) {
    const name = String(key)
    if (KNOWN_KEYS.includes(name)) continue
    const meant = closest(name, KNOWN_KEYS, Math.min(2, Math.max(1, name.length - 2)))
    found.push({
      file,
      ...positions.entry(fm, key).key,
      exitCode: 1,
      rule: 'unknown-key',
      message: `Unknown frontmatter key '${name}'${meant ? `: did you mean '${meant}'?` : ''} No runtime reads it, so it changes nothing.`
    })
  }
  return found
}

/**
 * `{{ commands.X }}` with no command X, and `{{ args.X }}` with X not among the declared args: each renders
 * as nothing. Args are checked only when the ralph declares them (else any --X fills one); placeholders in
 * HTML comments are dropped before rendering, so they do not count.
 */
function namingNothing(
  file: string,
  split: FrontmatterSplit,
  commands: { name: string }[],
  declared: string[] | null
): RalphProblem[] {
  const body = split.body
  const comments = [...body.matchAll(/<!--[\s\S]*?-->/g)].map(m => [m.index, m.index + m[0].length])
  const found: RalphProblem[] = []
  for (const match of body.matchAll(PLACEHOLDER_RE)) {
    const [, kind, name] = match
    if (comments.some(([from, to]) => match.index >= from && match.index < to)) continue
    const known =
      kind === 'commands'
        ? commands.map(c => c.name)
        : kind === 'args' && declared !== null
          ? [...declared, ...ACTION_ARGS]
          : undefined
    if (!known || known.includes(name)) continue
    const before = body.slice(0, match.index)
    const line = split.bodyStartLine + (before.match(/\n/g)?.length ?? 0)
    const column = match.index - before.lastIndexOf('\n')
    const meant = closest(name, known)
    found.push({
      file,
      line,
      column,
      exitCode: 1,
      rule: 'names-nothing',
      message: `${match[0]} names no ${kind === 'commands' ? 'command' : 'declared arg'}${meant ? ` (did you mean ${kind}.${meant}?)` : ''}, so it renders as nothing.`
    })
  }
  return found
}

interface Inspection {
  ralph?: LoadedRalph
  problems: RalphProblem[]
  warnings?: RalphProblem[]
  /** A problem that stops everything (unreadable file, broken YAML), thrown as is by loadRalph. */
  fatal?: RalphError
}

function inspectRalph(fileArg: string, opts: LoadOptions): Inspection {
  let file = fileArg
  if (opts.text === undefined && isDirectory(path.resolve(opts.cwd, file)))
    file = path.join(file, RALPH_MARKER)
  const absolute = path.resolve(opts.cwd, file)

  let text: string
  try {
    text = opts.text ?? readUtf8(absolute, opts.noLinks === true)
  } catch (error) {
    const fatal = error instanceof RalphError ? error : new RalphError(String(error))
    return { problems: fatal.problems.length ? fatal.problems : [problemOf(file, fatal)], fatal }
  }

  let fm: PyDict
  let positions: FrontmatterPositions
  let split: FrontmatterSplit
  try {
    ;({ data: fm, positions, split } = readFrontmatter(file, text))
  } catch (error) {
    if (!(error instanceof RalphError)) throw error
    return { problems: error.problems.length ? error.problems : [problemOf(file, error)], fatal: error }
  }

  const problems: RalphProblem[] = []
  const report = (message: string, pos?: SourcePos, exitCode: 1 | 2 = 1): void => {
    problems.push({ file, ...pos, message, exitCode })
  }
  const where = (dict: PyDict, key: string): SourcePos | undefined => {
    const entry = positions.entry(dict, key)
    return entry.value ?? entry.key
  }

  // agent
  const rawAgent = field(fm, 'agent')
  let agentArgv: string[] = []
  if (!isNonEmptyString(rawAgent)) {
    // The reference's words, then, when there is no frontmatter at all, what one looks like.
    const none = split.yaml === null
    report(
      `Missing or empty 'agent' field in ${RALPH_MARKER} frontmatter.` +
        (none
          ? ` The file has no frontmatter: start it with a '---' line, then 'agent: <command>', then '---'.`
          : ''),
      where(fm, 'agent')
    )
  } else {
    try {
      agentArgv = shlexSplit(rawAgent)
      const missing = opts.skipAgentLookup
        ? undefined
        : missingAgentProgram(agentArgv, opts.cwd, (opts.env ?? process.env).PATH)
      if (missing) report(missing, where(fm, 'agent'))
    } catch (error) {
      if (!(error instanceof ShlexError)) throw error
      report(`Malformed 'agent' field in ${RALPH_MARKER} frontmatter: ${error.message}`, where(fm, 'agent'))
    }
  }

  // commands
  const commands = validateRunList(fm, 'commands', 'Command', DEFAULT_COMMAND_TIMEOUT, positions, report, {
    notAList: `'commands' must be a list of {name, run} mappings.`,
    missingFields: `Each command must have 'name' and 'run' fields.`,
    duplicate: name => `Duplicate command name '${name}'.`,
    badTimeout: (name, value) =>
      `Command '${name}' has invalid timeout: ${pyRepr(value)}. Must be a positive number.`
  })

  // Valid, as in the reference, but unsafe: an arg placeholder inside a larger word of a command.
  const warnings: RalphProblem[] = []
  const rawCommands = field(fm, 'commands')
  for (const item of Array.isArray(rawCommands) ? rawCommands : []) {
    if (!(item instanceof Map)) continue
    const run = item.get('run')
    if (typeof run !== 'string') continue
    for (const arg of argsInsideWords(run)) {
      const pos = positions.entry(item, 'run')
      warnings.push({
        file,
        ...(pos.value ?? pos.key),
        exitCode: 1,
        rule: 'arg-in-word',
        message:
          `Command '${String(item.get('name'))}' puts ${arg.placeholder} inside a larger word of its run, ` +
          `where a value with quotes can change how the command splits. Make it a word of its own, or read ` +
          `$${argEnvName(arg.name)} in a script.`
      })
    }
  }

  // args
  const rawArgs = field(fm, 'args')
  let declared: string[] | null = null
  let argsValid = true
  if (rawArgs !== null) {
    argsValid = false
    if (!Array.isArray(rawArgs)) {
      report(`'args' must be a list of strings.`, where(fm, 'args'))
    } else if (!rawArgs.every(item => typeof item === 'string')) {
      const index = rawArgs.findIndex(item => typeof item !== 'string')
      report(`'args' items must be strings, got non-string value.`, positions.item(rawArgs, index))
    } else {
      const before = problems.length
      checkNames(rawArgs as string[], 'Arg', index => positions.item(rawArgs, index), report)
      argsValid = problems.length === before
      declared = rawArgs as string[]
    }
  }

  // user args: the reference parses them after `args` and before `credit`
  let argValues: Record<string, string> = Object.create(null)
  if (argsValid && opts.userArgs && opts.userArgs.length > 0) {
    try {
      argValues = parseUserArgs(opts.userArgs, declared ?? [])
    } catch (error) {
      if (!(error instanceof RalphError)) throw error
      report(error.message, undefined, error.exitCode)
    }
  }

  // credit
  const rawCredit = field(fm, 'credit')
  let credit = true
  if (rawCredit !== null) {
    if (typeof rawCredit !== 'boolean') {
      report(`'credit' must be true or false, got ${pyRepr(rawCredit)}.`, where(fm, 'credit'))
    } else {
      credit = rawCredit
    }
  }

  // ours: checks
  const checks = validateRunList(fm, 'checks', 'Check', DEFAULT_CHECK_TIMEOUT, positions, report, {
    notAList: `'checks' must be a list of {name, run} mappings, e.g. checks: [{name: tests, run: npm test}].`,
    missingFields: `Each check must have 'name' and 'run' fields, e.g. {name: tests, run: npm test}.`,
    duplicate: name => `Duplicate check name '${name}'. Give each check its own name.`,
    badTimeout: (name, value) =>
      `Check '${name}' has invalid timeout: ${pyRepr(value)}. Must be a positive number of seconds, e.g. timeout: 600.`
  })

  // ours: true or false
  const flag = (key: string, example: string): boolean | undefined => {
    const raw = field(fm, key)
    if (raw === null || typeof raw === 'boolean') return raw ?? undefined
    report(`'${key}' must be true or false, got ${pyRepr(raw)}. Example: ${example}`, where(fm, key))
    return undefined
  }
  const checksParallel = flag(
    'checks_parallel',
    'checks_parallel: true (the checks run together; they must not share a build folder)'
  )

  // ours: completion_tag
  const rawTag = field(fm, 'completion_tag')
  let completionTag: string | undefined
  if (rawTag !== null) {
    if (!isNonEmptyString(rawTag) || /[\n\r]/.test(rawTag)) {
      report(
        `'completion_tag' must be a non-empty string on one line, got ${pyRepr(rawTag)}. ` +
          `Example: completion_tag: COMPLETE`,
        where(fm, 'completion_tag')
      )
    } else {
      completionTag = rawTag
    }
  }

  // ours: guardrails
  const rawGuardrails = field(fm, 'guardrails')
  let guardrails: string | undefined
  if (rawGuardrails !== null) {
    if (!isNonEmptyString(rawGuardrails)) {
      report(
        `'guardrails' must be the path of a file (relative to the project root), got ${pyRepr(rawGuardrails)}. ` +
          `Example: guardrails: .ralph/guardrails.md`,
        where(fm, 'guardrails')
      )
    } else {
      guardrails = rawGuardrails
    }
  }

  // ours: presets
  const presets = flag('presets', 'presets: false (run the agent exactly as written)')

  // ours: protected (auto, none, or globs)
  const rawProtected = field(fm, 'protected')
  let protectedPaths: string[] | undefined
  if (rawProtected !== null) {
    const words = typeof rawProtected === 'string' ? [rawProtected] : rawProtected
    const parsed =
      Array.isArray(words) && words.length > 0 && words.every(isNonEmptyString)
        ? parseProtectSetting(words as string[])
        : { problem: `it must be auto, none or a list of globs, got ${pyRepr(rawProtected)}` }
    if ('problem' in parsed)
      report(
        `'protected': ${parsed.problem}. Example: protected: [auto, docs/spec/**]`,
        where(fm, 'protected')
      )
    else protectedPaths = parsed
  }
  // ours: editable (globs)
  const rawEditable = field(fm, 'editable')
  let editable: string[] | undefined
  if (rawEditable !== null) {
    const words = typeof rawEditable === 'string' ? [rawEditable] : rawEditable
    const parsed =
      Array.isArray(words) && words.length > 0 && words.every(isNonEmptyString)
        ? parseEditableSetting(words as string[])
        : { problem: `it must be a glob or a list of globs, got ${pyRepr(rawEditable)}` }
    if (parsed === undefined || 'problem' in parsed)
      report(
        `'editable': ${parsed?.problem ?? 'it names no path'}. Example: editable: [src/**]`,
        where(fm, 'editable')
      )
    else editable = parsed
  }
  // ours: setup (one command, or a list of them) and verify
  const rawSetup = field(fm, 'setup')
  let setup: string[] | undefined
  if (rawSetup !== null) {
    const list = typeof rawSetup === 'string' ? [rawSetup] : rawSetup
    if (!Array.isArray(list) || list.length === 0 || !list.every(isNonEmptyString))
      report(
        `'setup' must be a command or a list of commands, got ${pyRepr(rawSetup)}. Example: setup: npm ci`,
        where(fm, 'setup')
      )
    else setup = list as string[]
  }
  const rawVerify = field(fm, 'verify')
  let verify: 'clean' | 'tree' | undefined
  if (rawVerify !== null) {
    if (rawVerify !== 'clean' && rawVerify !== 'tree')
      report(
        `'verify' must be clean or tree, got ${pyRepr(rawVerify)}. Example: verify: clean (the gates pass again on a clean checkout of the commit before it is delivered)`,
        where(fm, 'verify')
      )
    else verify = rawVerify
  }

  if (problems.length === 0 && opts.checkPrograms) {
    const env = opts.env ?? process.env
    const dirs = { ralphDir: realPath(path.dirname(absolute)), projectRoot: opts.cwd }
    // Every item is valid here (no problems so far), so the lists line up with the frontmatter's.
    const runPosition = (key: string, index: number): SourcePos | undefined => {
      const item = (fm.get(key) as PyValue[])[index]
      return item instanceof Map
        ? (positions.entry(item, 'run').value ?? positions.item(fm.get(key) as PyValue[], index))
        : undefined
    }
    commands.forEach((command, index) => {
      const missing = missingCommandProgram(command, argValues, dirs, env.PATH)
      if (missing) report(missing, runPosition('commands', index))
    })
    checks.forEach((check, index) => {
      const missing = missingGateProgram(check, opts.cwd, env.PATH)
      if (missing) report(missing, runPosition('checks', index))
    })
  }
  // A ralph without gates whose unknown key was meant as `checks` would loop with nothing to judge its work.
  for (const unknown of unknownKeys(file, fm, positions))
    if (!fm.has('checks') && unknown.message.includes("did you mean 'checks'?"))
      problems.push({
        ...unknown,
        message: `${unknown.message.replace(/ No runtime reads it.*$/, '')} Without it this ralph has no gates, and would loop with nothing to judge its work: fix the key.`
      })
    else warnings.push(unknown)
  warnings.push(...namingNothing(file, split, commands, declared))
  if (problems.length > 0) return { problems, warnings }

  // The reference resolves the folder and the file separately: a symlinked RALPH.md keeps its folder's name.
  const dir = realPath(path.dirname(absolute))
  const ralph: LoadedRalph = {
    file: realPath(absolute),
    dir,
    name: path.basename(dir),
    agent: rawAgent as string,
    agentArgv,
    commands,
    args: declared ?? [],
    credit,
    checks,
    argValues,
    warnings
  }
  if (completionTag !== undefined) ralph.completionTag = completionTag
  if (guardrails !== undefined) ralph.guardrails = guardrails
  if (presets !== undefined) ralph.presets = presets
  if (protectedPaths !== undefined) ralph.protected = protectedPaths
  if (editable !== undefined) ralph.editable = editable
  if (checksParallel !== undefined) ralph.checksParallel = checksParallel
  if (setup !== undefined) ralph.setup = setup
  if (verify !== undefined) ralph.verify = verify
  if (rawCredit !== null) ralph.creditWritten = true
  return { ralph, problems, warnings }
}

function readUtf8(file: string, noLinks: boolean): string {
  let bytes: Buffer
  try {
    bytes = noLinks ? readRegularFile(file) : fs.readFileSync(file)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT') throw new RalphError(`${RALPH_MARKER} not found at '${file}'.`)
    if (error instanceof TreeFileError)
      throw new RalphError(`${error.message}. Make it a regular file of the project.`)
    throw new RalphError(`Cannot read ${file}: ${fileProblem(error)}.`)
  }
  try {
    // Strict like Python's read_text(encoding="utf-8"); the BOM is kept here and dropped by the splitter.
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes)
  } catch {
    throw new RalphError(`${file}: ${RALPH_MARKER} is not valid UTF-8 text. Save it as UTF-8.`)
  }
}

function problemOf(file: string, error: RalphError): RalphProblem {
  return { file, message: error.message, exitCode: error.exitCode }
}

function isDirectory(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory()
  } catch {
    return false
  }
}

function realPath(p: string): string {
  try {
    return fs.realpathSync(p)
  } catch {
    return p
  }
}
