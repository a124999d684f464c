// The reference's checks of a list of named entries (`commands:`, `checks:`): each a mapping with a valid
// name and a run, names unique, timeouts positive; and the small readers of frontmatter values they share.
import { NAME_RE, VALID_NAME_CHARS_MSG } from './args.js'
import type { FrontmatterPositions, SourcePos } from './frontmatter.js'
import { pyStrip } from './pystr.js'
import type { PyDict, PyValue } from './pyvalue.js'
import type { RalphCommand } from './types.js'

export interface RunListMessages {
  notAList: string
  missingFields: string
  duplicate: (name: string) => string
  badTimeout: (name: string, value: PyValue) => string
}

// `commands:` (the reference's rules) and `checks:` (ours, the same rules): a list of {name, run, timeout?}.
export function validateRunList(
  fm: PyDict,
  key: string,
  label: 'Command' | 'Check',
  defaultTimeout: number,
  positions: FrontmatterPositions,
  report: (message: string, pos?: SourcePos) => void,
  messages: RunListMessages
): RalphCommand[] {
  const raw = field(fm, key)
  if (raw === null) return []
  if (!Array.isArray(raw)) {
    const entry = positions.entry(fm, key)
    report(messages.notAList, entry.value ?? entry.key)
    return []
  }
  const result: RalphCommand[] = []
  const seen = new Set<string>()
  raw.forEach((item, index) => {
    const itemPos = positions.item(raw, index)
    if (!(item instanceof Map) || !item.has('name') || !item.has('run')) {
      report(messages.missingFields, itemPos)
      return
    }
    const at = (k: string): SourcePos | undefined => positions.entry(item, k).value ?? itemPos
    const name = item.get('name') as PyValue
    const run = item.get('run') as PyValue
    const nameOk = isNonEmptyString(name)
    const runOk = isNonEmptyString(run)
    if (!nameOk) report(`${label} 'name' must be a non-empty string.`, at('name'))
    if (!runOk) report(`${label} 'run' must be a non-empty string.`, at('run'))
    if (!nameOk) return
    let ok = runOk
    if (!NAME_RE.test(name)) {
      report(`${label} name '${name}' contains invalid characters. ${VALID_NAME_CHARS_MSG}`, at('name'))
      ok = false
    } else if (seen.has(name)) {
      report(messages.duplicate(name), at('name'))
      ok = false
    } else {
      seen.add(name)
    }
    const rawTimeout = item.has('timeout') ? (item.get('timeout') as PyValue) : null
    let timeout = defaultTimeout
    if (rawTimeout !== null) {
      if (!isValidTimeout(rawTimeout)) {
        report(messages.badTimeout(name, rawTimeout), at('timeout'))
        ok = false
      } else {
        timeout = Number(rawTimeout)
      }
    }
    if (ok) result.push({ name, run: run as string, timeout })
  })
  return result
}

export function checkNames(
  names: string[],
  label: 'Arg',
  at: (index: number) => SourcePos | undefined,
  report: (message: string, pos?: SourcePos) => void
): void {
  const seen = new Set<string>()
  names.forEach((name, index) => {
    if (!NAME_RE.test(name)) {
      report(`${label} name '${name}' contains invalid characters. ${VALID_NAME_CHARS_MSG}`, at(index))
    } else if (seen.has(name)) {
      report(`Duplicate ${label.toLowerCase()} name '${name}'.`, at(index))
    } else {
      seen.add(name)
    }
  })
}

/** `fm.get(key)`: absent and null are the same to the reference. */
export function field(dict: PyDict, key: string): PyValue {
  return dict.has(key) ? (dict.get(key) as PyValue) : null
}

/** The reference's _is_nonempty_string: a str with something left after Python's strip(). */
export function isNonEmptyString(value: PyValue): value is string {
  return typeof value === 'string' && pyStrip(value) !== ''
}

/** The reference's _is_valid_timeout: an int or float (not a bool), finite and positive. */
export function isValidTimeout(value: PyValue): boolean {
  if (typeof value === 'bigint') return value > 0n
  if (typeof value === 'number') return Number.isFinite(value) && value > 0
  return false
}
