// Command-line parsing with the reference CLI's (click's) semantics, so `ralph-action run` is a drop-in for
// `ralph run`: options may stand anywhere (interspersed), unknown options are kept as user args, and the
// first `--` is consumed.
import { parseDuration } from '../ralph/index.js'
import { closest } from '../text/closest.js'

export class UsageError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'UsageError'
  }
}

/** `duration`: seconds, or a number with a unit (90s, 2m, 1h). */
export type OptionKind = 'flag' | 'string' | 'int' | 'float' | 'duration' | 'strings'

export interface OptionSpec {
  /** The key in the parsed result. */
  key: string
  names: string[]
  kind: OptionKind
  help: string
  metavar?: string
}

export interface ParsedArgs {
  options: Record<string, string | number | boolean | string[] | undefined>
  /** Positional tokens (the PATH first) and unknown options, in order. */
  rest: string[]
  /** The name each option was given by (`-n` or `--max-iterations`), for messages about its value. */
  typed: Record<string, string>
}

function convert(spec: OptionSpec, name: string, raw: string): string | number {
  if (spec.kind === 'int') {
    // click accepts surrounding whitespace and a sign, nothing else.
    if (!/^\s*[+-]?\d+\s*$/.test(raw))
      throw new UsageError(`Invalid value for '${name}': '${raw}' is not a valid integer.`)
    return Number.parseInt(raw, 10)
  }
  if (spec.kind === 'duration') {
    const seconds = parseDuration(raw, 's')
    if (seconds === undefined)
      throw new UsageError(
        `Invalid value for '${name}': '${raw}' is not a positive duration: give seconds (90) or a number with a unit (90s, 2m, 1h).`
      )
    return seconds
  }
  if (spec.kind === 'float') {
    // Python's float(): decimal or exponent notation, inf, infinity, nan; surrounding whitespace allowed.
    const text = raw.trim()
    const match = /^([+-]?)(?:(inf|infinity)|(nan)|((?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?))$/i.exec(text)
    if (!match) throw new UsageError(`Invalid value for '${name}': '${raw}' is not a valid float.`)
    if (match[3]) return Number.NaN
    const sign = match[1] === '-' ? -1 : 1
    return match[2] ? sign * Number.POSITIVE_INFINITY : Number(text)
  }
  return raw
}

/** Parses `tokens` against `specs`; throws UsageError with click's wording for a bad option value. */
export function parseArgs(tokens: string[], specs: OptionSpec[]): ParsedArgs {
  const byName = new Map<string, OptionSpec>()
  for (const spec of specs) for (const name of spec.names) byName.set(name, spec)
  const options: ParsedArgs['options'] = {}
  const rest: string[] = []
  const typed: Record<string, string> = {}
  const take = (spec: OptionSpec, name: string, value: string): void => {
    const converted = convert(spec, name, value)
    typed[spec.key] = name
    if (spec.kind === 'strings') options[spec.key] = [...((options[spec.key] as string[]) ?? []), value]
    else options[spec.key] = converted
  }

  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]
    if (token === '--') {
      rest.push(...tokens.slice(i + 1))
      break
    }
    if (token.startsWith('--')) {
      const eq = token.indexOf('=')
      const name = eq === -1 ? token : token.slice(0, eq)
      const spec = byName.get(name)
      if (!spec) {
        rest.push(token)
        continue
      }
      if (spec.kind === 'flag') {
        if (eq !== -1) throw new UsageError(`Option '${name}' does not take a value.`)
        options[spec.key] = true
        typed[spec.key] = name
        continue
      }
      if (eq !== -1) take(spec, name, token.slice(eq + 1))
      else if (i + 1 < tokens.length) take(spec, name, tokens[++i])
      else throw new UsageError(`Option '${name}' requires an argument.`)
      continue
    }
    if (token.startsWith('-') && token.length > 1) {
      // Short options, possibly combined (`-sn3`); an unknown one keeps the whole token as a user arg.
      if (!byName.has(`-${token[1]}`)) {
        rest.push(token)
        continue
      }
      for (let j = 1; j < token.length; j++) {
        const name = `-${token[j]}`
        const spec = byName.get(name)
        if (!spec) {
          rest.push(`-${token.slice(j)}`)
          break
        }
        if (spec.kind === 'flag') {
          options[spec.key] = true
          typed[spec.key] = name
          continue
        }
        const attached = token.slice(j + 1)
        if (attached !== '') take(spec, name, attached)
        else if (i + 1 < tokens.length) take(spec, name, tokens[++i])
        else throw new UsageError(`Option '${name}' requires an argument.`)
        break
      }
      continue
    }
    rest.push(token)
  }
  return { options, rest, typed }
}

/** The options block of a help text. */
export function formatOptions(specs: OptionSpec[]): string {
  const rows = specs.map(spec => {
    const value =
      spec.kind === 'flag' ? '' : ` ${spec.metavar ?? spec.kind.toUpperCase().replace('STRINGS', 'TEXT')}`
    return [`${spec.names.join(', ')}${value}`, spec.help]
  })
  const width = Math.max(...rows.map(([left]) => left.length)) + 2
  return rows.map(([left, help]) => `  ${left.padEnd(width)}${help}`).join('\n')
}

/** The long option `token` (`--max-iteration`, `--max-iteration=2`) was probably meant to be, if one is close. */
export function closeOption(token: string, specs: OptionSpec[]): string | undefined {
  return closest(
    token.split('=')[0],
    specs.flatMap(spec => spec.names.filter(n => n.startsWith('--')))
  )
}
