// Failure fingerprints: two runs of a failing check that fail the same way must look the same, even when
// timestamps, durations, addresses, temp paths or line numbers in stack frames differ.
import { createHash } from 'node:crypto'
import { tmpdir } from 'node:os'

/** Lines of each failing check's normalised output (from its end) that make up the fingerprint. */
export const FINGERPRINT_LINES = 40

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

// Order matters: whole timestamps before bare times, UUIDs before long hex runs, temp paths before numbers.
const RULES: [RegExp, string][] = [
  // eslint-disable-next-line no-control-regex -- ANSI escapes are what this rule removes
  [/\x1b\[[0-9;?]*[ -/]*[@-~]/g, ''],
  [/\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?/g, '<TIME>'],
  [/\b\d{4}[-/]\d{2}[-/]\d{2}\b/g, '<DATE>'],
  [/\b\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?\b/g, '<TIME>'],
  [
    new RegExp(
      `(?:${escapeRegExp(tmpdir())}|/tmp|/var/tmp|/private/var/folders|/var/folders)/[^\\s'"\`:)\\]]+`,
      'g'
    ),
    '<TMP>'
  ],
  [/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, '<UUID>'],
  [/\b0x[0-9a-f]+\b/gi, '<HEX>'],
  [/\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,}\b/gi, '<HEX>'],
  // Stack frames: file:line:column (node, most compilers) and Python's `File "x", line N`.
  [/(\.[A-Za-z0-9]+):\d+(?::\d+)?/g, '$1:<N>'],
  [/\bline \d+/g, 'line <N>'],
  [/\b\d+(?:\.\d+)?\s?(?:ms|µs|us|ns|s|sec|secs|seconds?|m|min|mins|minutes?|h|hrs?|hours?)\b/g, '<DUR>'],
  [/\bpid[ :=]?\d+/gi, 'pid <N>'],
  [/[ \t]+/g, ' ']
]

/** Output with the parts that change from run to run (but not the failure) replaced by placeholders. */
export function normaliseFailureOutput(text: string): string {
  let out = text
  for (const [pattern, replacement] of RULES) out = out.replace(pattern, replacement)
  return out
    .split('\n')
    .map(line => line.trim())
    .filter(line => line !== '')
    .join('\n')
}

/** The last lines (counted after normalising, so shorter or longer durations shift nothing). */
function stableTail(output: string): string {
  return normaliseFailureOutput(output).split('\n').slice(-FINGERPRINT_LINES).join('\n')
}

/**
 * One hash for an iteration's failing checks (names and the last lines of their normalised output);
 * '' when none failed. Callers pass a bounded tail of each output (a few KiB), not the whole of it.
 */
export function failureFingerprint(failures: { name: string; output: string }[]): string {
  if (failures.length === 0) return ''
  const hash = createHash('sha256')
  for (const failure of [...failures].sort((a, b) => a.name.localeCompare(b.name))) {
    hash.update(`${failure.name}\0${stableTail(failure.output)}\0`)
  }
  return hash.digest('hex').slice(0, 16)
}
