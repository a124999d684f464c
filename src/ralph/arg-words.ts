// `{{ args.X }}` in a command's `run` becomes the value, shell-quoted, before `run` is split into words: so
// any value is exactly one word, but only where the placeholder is a word of its own. Inside a larger word,
// and above all inside the author's quotes (`bash -c 'echo {{ args.x }}'`), the value's quoting and the
// author's combine, and a value can close the author's quotes and go on as a script. The reference does the
// same, so `ralph run` keeps it; `validate` warns, and the action refuses such a ralph for runs whose values
// come from a comment, a label or a pull request. The safe ways: a word of its own, or the environment.
import { PLACEHOLDER_RE } from './render.js'

const WHITESPACE = new Set([' ', '\t', '\r', '\n'])

/** The variable a command finds an arg's value in: `RALPH_ARG_FOCUS` for `focus`, `RALPH_ARG_A_B` for `a-b`. */
export const argEnvName = (name: string): string => `RALPH_ARG_${name.toUpperCase().replace(/-/g, '_')}`

/** Every command gets each arg's value in its environment, besides where `run` places it. */
export function argEnvironment(args: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(args).map(([name, value]) => [argEnvName(name), value]))
}

/**
 * The arg placeholders of `run` that are not a word of their own (glued to other characters, or inside
 * quotes), in order. Words are found as shlex's POSIX mode finds them: quotes and backslashes, split at
 * blanks.
 */
export function argsInsideWords(run: string): { name: string; placeholder: string }[] {
  const found: { name: string; placeholder: string }[] = []
  const placeholders = new Map<number, RegExpMatchArray>()
  for (const m of run.matchAll(PLACEHOLDER_RE)) if (m[1] === 'args') placeholders.set(m.index ?? 0, m)
  let quote: string | undefined
  let inWord = false
  for (let i = 0; i < run.length; i++) {
    const m = placeholders.get(i)
    if (m) {
      const end = i + m[0].length
      const glued = quote !== undefined || inWord || (end < run.length && !WHITESPACE.has(run[end]))
      if (glued) found.push({ name: m[2], placeholder: m[0] })
      inWord = true
      i = end - 1
      continue
    }
    const ch = run[i]
    if (quote === "'") {
      if (ch === "'") quote = undefined
    } else if (quote === '"') {
      if (ch === '\\') i++
      else if (ch === '"') quote = undefined
    } else if (WHITESPACE.has(ch)) {
      inWord = false
    } else {
      inWord = true
      if (ch === '\\') i++
      else if (ch === "'" || ch === '"') quote = ch
    }
  }
  return found
}
