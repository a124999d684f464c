// The `/ralph` comment grammar: its first line, tokenised without a shell, names and arg names checked.
import { NAME_RE, ShlexError, shlexSplit } from '../ralph/index.js'
import { RESERVED_ARGS } from '../ralph/installed.js'
import { quote as code, safe } from './quote.js'
import { hiddenOnCommandLine, sanitizeText } from './sanitize.js'

export const COMMAND_USAGE = '/ralph [RALPH_NAME] [--arg value | --arg=value]… [-- free text]'

export type RalphCommand =
  /** The first line does not start with `/ralph`: not for us. */
  | { kind: 'none' }
  | {
      kind: 'command'
      /** The ralph named (validated against NAME_RE); undefined = the action's default. */
      name?: string
      /** Each value one string, exactly as typed between quotes: never split again, never evaluated. */
      args: Record<string, string>
      /** After `--` on the first line, then the comment's other lines. */
      freeText: string
    }
  | { kind: 'invalid'; problem: string }

const COMMAND_RE = /^\/ralph(?=\s|$)/i
// A value a command could read as an option (`--force`, `-rf`); negative numbers are values.
const OPTION_LIKE = /^-(?!\d+(?:\.\d+)?$)/
const MAX_VALUE_CHARS = 1000

/**
 * Parses a comment body: only a comment whose very first characters are `/ralph` is a command, so what a
 * reader sees first is the command: not after an empty line, white space, an invisible character or an
 * HTML comment, and not indented into a code block. The first line is tokenised with shell-style quoting
 * (Python's shlex rules, no expansion: `$(…)` and backticks are characters like any other).
 */
export function parseRalphCommand(body: string): RalphCommand {
  if (!COMMAND_RE.test(body)) return { kind: 'none' }
  // The command is the first line as posted, read before anything is sanitised or cut; the rest is free
  // text, sanitised with the task once the actor has been checked (composeTask).
  const end = body.search(/[\r\n]/)
  const raw = end < 0 ? body : body.slice(0, end)
  const rest = end < 0 ? '' : body.slice(end + 1).trim()
  const hidden = hiddenOnCommandLine(raw)
  if (hidden)
    return {
      kind: 'invalid',
      problem: `the command line holds ${hidden}, so what would run is not what a reader sees: write it again in plain text`
    }
  const first = sanitizeText(raw, { singleLine: true, maxChars: Number.MAX_SAFE_INTEGER })
  const m = COMMAND_RE.exec(first)
  if (!m) return { kind: 'none' }
  const [head, tail] = splitAtDoubleDash(first.slice(m[0].length))
  let tokens: string[]
  try {
    tokens = shlexSplit(head)
  } catch (error) {
    const why = error instanceof ShlexError ? error.message.toLowerCase() : String(error)
    return { kind: 'invalid', problem: `the command line could not be read (${why}): close every quote` }
  }
  const args: Record<string, string> = Object.create(null)
  let name: string | undefined
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]
    if (token.startsWith('--')) {
      const eq = token.indexOf('=')
      const argName = eq < 0 ? token.slice(2) : token.slice(2, eq)
      let value: string
      if (eq >= 0) value = token.slice(eq + 1)
      else if (i + 1 < tokens.length && !tokens[i + 1].startsWith('--')) value = tokens[++i]
      else return { kind: 'invalid', problem: `${code(token)} needs a value: write --${safe(argName)} VALUE` }
      if (!NAME_RE.test(argName))
        return {
          kind: 'invalid',
          problem: `${code(`--${argName}`)} is not an arg name: use letters, digits, - and _`
        }
      if ((RESERVED_ARGS as readonly string[]).includes(argName))
        return {
          kind: 'invalid',
          problem: `${code(`--${argName}`)} is set by the action: put the task after --`
        }
      if (Object.hasOwn(args, argName))
        return { kind: 'invalid', problem: `${code(`--${argName}`)} is given twice` }
      if (OPTION_LIKE.test(value))
        return {
          kind: 'invalid',
          problem: `the value of ${code(`--${argName}`)} starts with -, so a command could read it as an option`
        }
      if (value.length > MAX_VALUE_CHARS)
        return {
          kind: 'invalid',
          problem: `the value of ${code(`--${argName}`)} is over ${MAX_VALUE_CHARS} characters`
        }
      args[argName] = value
      continue
    }
    if (token.startsWith('-'))
      return { kind: 'invalid', problem: `${code(token)} is not understood: args are --name value` }
    if (i === 0) {
      if (!NAME_RE.test(token))
        return {
          kind: 'invalid',
          problem: `${code(token)} is not a ralph name: names use letters, digits, - and _ (no paths)`
        }
      name = token
      continue
    }
    return {
      kind: 'invalid',
      problem: `${code(token)} is not understood: give args as --name value, and free text after --`
    }
  }
  const freeText = [tail?.trim() ?? '', rest].filter(Boolean).join('\n\n')
  return { kind: 'command', ...(name !== undefined ? { name } : {}), args: { ...args }, freeText }
}

/** Splits at the first stand-alone `--` outside quotes; the tail is kept verbatim (it is free text). */
export function splitAtDoubleDash(line: string): [head: string, tail: string | undefined] {
  let quote: string | undefined
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]
    if (quote) {
      if (ch === '\\' && quote === '"') i++
      else if (ch === quote) quote = undefined
      continue
    }
    if (ch === '\\') {
      i++
      continue
    }
    if (ch === '"' || ch === "'") {
      quote = ch
      continue
    }
    const wordStart = i === 0 || /\s/.test(line[i - 1])
    if (wordStart && line.startsWith('--', i) && (i + 2 === line.length || /\s/.test(line[i + 2])))
      return [line.slice(0, i), line.slice(i + 2)]
  }
  return [line, undefined]
}
