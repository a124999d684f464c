// Reading and extending an agent's command line without ever duplicating what the user wrote.
import path from 'node:path'

/** Python's Path(argv0).stem: `/usr/bin/claude`, `claude.exe` and `claude.cmd` all give `claude`. */
export function programStem(argv0: string | undefined): string {
  if (!argv0) return ''
  const base = path.basename(argv0.replace(/\\/g, '/'))
  const dot = base.lastIndexOf('.')
  return dot > 0 ? base.slice(0, dot) : base
}

/** Tokens before a lone `--` (after it everything is a positional argument). */
function optionsPart(argv: string[]): string[] {
  const end = argv.indexOf('--')
  return end === -1 ? argv : argv.slice(0, end)
}

/** The user gave one of these options, as `--name`, `--name=value` or a short `-x` / `-xVALUE`. */
export function hasOption(argv: string[], names: string[]): boolean {
  return optionsPart(argv.slice(1)).some(token =>
    names.some(name =>
      name.startsWith('--')
        ? token === name || token.startsWith(`${name}=`)
        : token === name || (token.startsWith(name) && !token.startsWith('--'))
    )
  )
}

/** The value of `--name value`, `--name=value` or `-x value` (the last one wins, as CLIs read them). */
export function optionValue(argv: string[], names: string[]): string | undefined {
  let value: string | undefined
  const tokens = optionsPart(argv.slice(1))
  tokens.forEach((token, i) => {
    for (const name of names) {
      if (token === name && i + 1 < tokens.length) value = tokens[i + 1]
      else if (name.startsWith('--') && token.startsWith(`${name}=`)) value = token.slice(name.length + 1)
    }
  })
  return value
}

/** Index of the first token equal to one of `words` (a subcommand), before any `--`; -1 when absent. */
export function subcommandIndex(argv: string[], words: string[]): number {
  const tokens = optionsPart(argv)
  for (let i = 1; i < tokens.length; i++) if (words.includes(tokens[i])) return i
  return -1
}

/** `tokens` inserted right after position `index`. */
export function insertAfter(argv: string[], index: number, tokens: string[]): string[] {
  return [...argv.slice(0, index + 1), ...tokens, ...argv.slice(index + 1)]
}

const SHELLS = new Set(['bash', 'sh', 'zsh', 'dash'])

/**
 * The program a `bash -c 'SCRIPT'` wrapper runs first (aider takes its prompt with --message, so it runs as
 * `bash -c 'aider … --message "$(cat -)"'`), skipping `VAR=value` assignments and `exec`/`env`.
 */
export function wrappedProgram(argv: string[]): string | undefined {
  if (!SHELLS.has(programStem(argv[0]))) return undefined
  const c = argv.indexOf('-c')
  const script = c === -1 ? undefined : argv[c + 1]
  if (script === undefined) return undefined
  for (const word of script.trim().split(/\s+/)) {
    if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(word) || word === 'exec' || word === 'env') continue
    return word.replace(/^['"]|['"]$/g, '')
  }
  return undefined
}
