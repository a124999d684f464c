// User args after the ralph path (`ralph run my-ralph --focus tests` or `my-ralph tests`), parsed with the
// reference's rules (cli._parse_user_args). Errors are usage errors: exit code 2.
import { stripHtmlComments } from './comments.js'
import { readFrontmatter } from './frontmatter.js'
import { PLACEHOLDER_RE } from './render.js'
import { RalphError } from './types.js'

export const NAME_RE = /^[a-zA-Z0-9_-]+$/
export const VALID_NAME_CHARS_MSG = 'Names may only contain letters, digits, hyphens, and underscores.'

/**
 * `--name value` and `--name=value` set any name (declared or not); other tokens fill the declared names in
 * order, skipping names already set by a flag; a bare `--` makes every later token positional.
 * Note the reference's CLI parser swallows the first `--` before this runs (see the spec, §9).
 */
export function parseUserArgs(tokens: string[], declared: string[]): Record<string, string> {
  // No prototype: an arg may be called `__proto__` or `constructor`.
  const result: Record<string, string> = Object.create(null)
  let positionalIndex = 0
  let flagsEnded = false
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]
    if (!flagsEnded && token === '--') {
      flagsEnded = true
      continue
    }
    if (!flagsEnded && token.startsWith('--')) {
      const rest = token.slice(2)
      let name: string
      let value: string
      const eq = rest.indexOf('=')
      if (eq >= 0) {
        name = rest.slice(0, eq)
        value = rest.slice(eq + 1)
      } else {
        name = rest
        if (i + 1 >= tokens.length) throw new RalphError(`Flag '--${name}' requires a value.`, 2)
        value = tokens[++i]
      }
      if (!NAME_RE.test(name)) {
        throw new RalphError(`Arg name '${name}' contains invalid characters. ${VALID_NAME_CHARS_MSG}`, 2)
      }
      result[name] = value
      continue
    }
    if (declared.length === 0) {
      throw new RalphError(
        `Positional argument '${token}' requires args declared in RALPH.md frontmatter. ` +
          `Use --name value syntax or add 'args: [...]' to your RALPH.md.` +
          (/^-[^-]/.test(token)
            ? ` '${token}' is not an option of run either: see 'ralph-action run --help'.`
            : ''),
        2
      )
    }
    while (positionalIndex < declared.length && Object.hasOwn(result, declared[positionalIndex])) {
      positionalIndex++
    }
    if (positionalIndex >= declared.length) {
      throw new RalphError(
        `Too many positional arguments. Expected at most ${declared.length} (${declared.join(', ')}).`,
        2
      )
    }
    result[declared[positionalIndex]] = token
    positionalIndex++
  }
  return result
}

/**
 * The args a ralph reads: the names its frontmatter declares and every `{{ args.NAME }}` in its file (in the
 * prompt, a command or a check). Undefined when the file does not parse: loading it reports that itself.
 */
export function argsRead(file: string, text: string): string[] | undefined {
  try {
    const names = new Set<string>()
    const { data, split } = readFrontmatter(file, text)
    const declared = data.get('args')
    if (declared !== undefined && declared !== null && !Array.isArray(declared)) return undefined
    for (const name of declared ?? []) if (typeof name === 'string') names.add(name)
    // Where a value can arrive: the prompt as the agent gets it (HTML comments gone), and the frontmatter.
    for (const m of `${split.yaml ?? ''}\n${stripHtmlComments(split.body)}`.matchAll(PLACEHOLDER_RE))
      if (m[1] === 'args') names.add(m[2])
    return [...names]
  } catch {
    return undefined
  }
}
