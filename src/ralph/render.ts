// Turning the RALPH.md body into the prompt, byte for byte as the reference does (engine._assemble_prompt):
// strip, remove HTML comments, strip, substitute placeholders in one pass, append the credit trailer.
import { stripHtmlComments } from './comments.js'
import { parseFrontmatter, splitFrontmatter } from './frontmatter.js'
import { PY_WS_CLASS, pyLstrip, pyStrip } from './pystr.js'
import { pyFormatFixed1 } from './pyvalue.js'
import { shlexQuote, shlexSplit } from './shlex.js'
import type { PlaceholderValues } from './types.js'

const NAME = '[a-zA-Z0-9_-]+'

/**
 * `{{ kind.name }}` for the three kinds. Whitespace (Python's `\s`: newlines and tabs too) is allowed after
 * `{{` and before `}}`, none around the dot. Kinds are lowercase. Groups: 1 = kind, 2 = name.
 */
export const PLACEHOLDER_RE = new RegExp(
  `\\{\\{[${PY_WS_CLASS}]*(commands|args|ralph)\\.(${NAME})[${PY_WS_CLASS}]*\\}\\}`,
  'g'
)

const ARGS_RE = new RegExp(`\\{\\{[${PY_WS_CLASS}]*args\\.(${NAME})[${PY_WS_CLASS}]*\\}\\}`, 'g')

/** Appended verbatim after substitution when `credit` is on (no trailing newline). */
export const CREDIT_TRAILER =
  '\n\n---\n\n' +
  'IMPORTANT: When you make any git commits, include the following trailer ' +
  'at the end of your commit message:\n\n' +
  'Co-authored-by: Ralphify <noreply@ralphify.co>'

/**
 * Fills placeholders in a single pass: inserted values are never scanned again. A known kind with an unknown
 * name becomes '' (`{{ args.nope }}`); anything else (`{{ env.X }}`, `{{ commands }}`) stays literal.
 */
export function renderPlaceholders(template: string, values: PlaceholderValues): string {
  return template.replace(PLACEHOLDER_RE, (_m, kind: keyof PlaceholderValues, name: string) =>
    lookup(values[kind], name)
  )
}

/**
 * Puts arg values into a command's `run` string before it is shell-split: each `{{ args.x }}` becomes the
 * shlex-quoted value, so any value is one argv token; an arg that was not given becomes nothing (not '').
 * `{{ commands.x }}` and `{{ ralph.x }}` are left as they are, like the reference.
 */
export function resolveArgsInRun(run: string, args: Record<string, string>): string {
  return run.replace(ARGS_RE, (_m, name: string) => (Object.hasOwn(args, name) ? shlexQuote(args[name]) : ''))
}

/** A command's argv: args resolved into `run`, then split like Python's shlex.split (throws ShlexError). */
export function commandArgv(run: string, args: Record<string, string>): string[] {
  return shlexSplit(resolveArgsInRun(run, args))
}

/** The reference runs a command from the ralph's folder when its arg-resolved `run` starts with `./`. */
export function runsFromRalphDir(resolvedRun: string): boolean {
  return pyLstrip(resolvedRun).startsWith('./')
}

/** The body as a template: stripped, HTML comments removed, stripped again (Python's whitespace rules). */
export function promptTemplate(text: string): string {
  return pyStrip(stripHtmlComments(pyStrip(splitFrontmatter(text).body)))
}

/** The last RALPH.md text whose frontmatter parsed, and its template (see {@link ralphTemplate}). */
let lastParsed: { file: string; text: string; template: string } | undefined

/**
 * RALPH.md as re-read now, as a template: like the reference, the frontmatter is parsed again (broken YAML
 * throws RalphError) but only the body is used. Parsing is a pure function of the text, so the last text
 * that parsed is remembered: a loop re-reading an unchanged file skips the YAML parse (a text that fails
 * is never remembered, so it fails every time).
 */
export function ralphTemplate(text: string, file = 'RALPH.md'): string {
  if (lastParsed !== undefined && lastParsed.text === text && lastParsed.file === file)
    return lastParsed.template
  parseFrontmatter(file, text)
  const template = promptTemplate(text)
  lastParsed = { file, text, template }
  return template
}

/**
 * The prompt for one iteration from RALPH.md as re-read now. Like the reference, the frontmatter is parsed
 * again (broken YAML throws RalphError and so fails the iteration) but only the body is used.
 */
export function assemblePrompt(
  text: string,
  values: PlaceholderValues,
  credit: boolean,
  file = 'RALPH.md'
): string {
  const prompt = renderPlaceholders(ralphTemplate(text, file), values)
  return credit ? prompt + CREDIT_TRAILER : prompt
}

/** The reference's format_duration: `0.5s` below a minute, then `2m 30s`, then `1h 15m`. */
// Byte-identical to ralphify (prompts and the CLI's log): the reports' padded, ms-based formatDuration is loop/overview.ts.
export function formatDuration(seconds: number): string {
  const tenths = pyFormatFixed1(seconds)
  if (Number(tenths) < 60) return `${tenths}s`
  // Round half up on the total, as the reference does (int(seconds + 0.5)).
  const total = Math.trunc(seconds + 0.5)
  const minutes = Math.floor(total / 60)
  if (minutes < 60) return `${minutes}m ${total % 60}s`
  return `${Math.floor(minutes / 60)}h ${minutes % 60}m`
}

/** Appended to a command's output when it ran out of time (the dash is an em dash, U+2014). */
export function timeoutMarker(name: string, timeoutSeconds: number): string {
  return `\n\n[Command '${name}' timed out after ${formatDuration(timeoutSeconds)} — output may be incomplete]`
}

function lookup(table: Record<string, string> | undefined, name: string): string {
  return table !== undefined && Object.hasOwn(table, name) ? table[name] : ''
}
