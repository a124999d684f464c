// Evidence for what no gate sees: lines the delivery adds that touch the test runner's names (ending the process,
// replacing an assertion, pytest's internals, an always-true `__eq__`, the module table, exit hooks) or read the
// variables a runner sets (so code can tell it is under test). Flagged in the pull request under "Review these",
// with file and line; never a refusal: an honest change may do any of these.
import { code } from '../text/markdown.js'

export interface Flag {
  /** The file as git's diff names it (C-quoted by git when its name is not plain). */
  file: string
  /** The line in the delivered file. */
  line: number
  /** What it touches, in words. */
  what: string
}

/** One pattern per kind of flag: what it matches on an added line, and what the flag says. */
const PATTERNS: { what: string; test: RegExp }[] = [
  {
    what: 'ends the process (`process.exit`)',
    test: /\bprocess\s*\.\s*(?:exit|reallyExit|abort)\s*\(|\bos\s*\.\s*_exit\s*\(/
  },
  {
    what: 'replaces an assertion (`assert.*` or `expect` assigned)',
    // Not a declaration (`const assert = require('assert')`), a comparison or an arrow's parameter.
    test: /(?<!\b(?:const|let|var)\s+)\b(?:assert(?:\s*\.\s*strict)?(?:\s*\.\s*\w+)?|(?:globalThis|global|window)\s*\.\s*(?:expect|assert|test|it)|expect(?:\s*\.\s*\w+)?)\s*=(?![=>])/
  },
  { what: "extends or replaces jest's matchers (`expect.extend`)", test: /\bexpect\s*\.\s*extend\s*\(/ },
  { what: "reaches into pytest's internals (`_pytest`)", test: /\b_pytest\b/ },
  { what: 'defines `__eq__` (a value that may equal anything)', test: /\bdef\s+__eq__\s*\(|\b__eq__\s*=/ },
  { what: 'changes the module table (`sys.modules`)', test: /\bsys\s*\.\s*modules\b/ },
  {
    what: 'runs code at exit (`atexit`)',
    test: /\batexit\b|\bprocess\s*\.\s*on\s*\(\s*['"](?:exit|beforeExit)['"]/
  },
  {
    what: "reads the test runner's environment",
    test: /\b(?:NODE_TEST_CONTEXT|JEST_WORKER_ID|PYTEST_CURRENT_TEST|PYTEST_XDIST_WORKER|VITEST(?:_WORKER_ID|_POOL_ID)?)\b/
  }
]

/** The flags of one added line of `file`. */
function flagsOf(file: string, line: number, text: string): Flag[] {
  return PATTERNS.filter(p => p.test.test(text)).map(p => ({ file, line, what: p.what }))
}

/** The path a `+++ b/<path>` line names (`/dev/null` for a deleted file). */
function newPath(header: string): string | undefined {
  const name = header.slice(4).replace(/\t.*$/, '')
  if (name === '/dev/null') return undefined
  const unquoted = name.startsWith('"') ? name.slice(1, -1) : name
  const bare = unquoted.replace(/^b\//, '')
  return name.startsWith('"') ? `"${bare}"` : bare
}

/**
 * The flags of the lines a unified diff adds (`git diff base commit`, any context), with their line in the
 * delivered file. Removed lines are not the delivery's; a binary file has no lines.
 */
export function scanDiff(diff: string): Flag[] {
  const flags: Flag[] = []
  let file: string | undefined
  let line = 0
  for (const text of diff.split('\n')) {
    if (text.startsWith('diff --git ')) {
      file = undefined
      continue
    }
    if (text.startsWith('+++ ')) {
      file = newPath(text)
      continue
    }
    const hunk = /^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(text)
    if (hunk) {
      line = Number(hunk[1])
      continue
    }
    if (file === undefined) continue
    if (text.startsWith('+')) {
      flags.push(...flagsOf(file, line, text.slice(1)))
      line++
    } else if (text.startsWith(' ')) line++
  }
  return flags
}

/** The pull request's section for the flags (empty when there are none): one line each, file:line first. */
export function reviewSection(flags: readonly Flag[], most = 50): string {
  if (flags.length === 0) return ''
  const lines = flags.slice(0, most).map(f => `- ${code(`${f.file}:${f.line}`)}: ${f.what}`)
  if (flags.length > most) lines.push(`- and ${flags.length - most} more`)
  return [
    '### Review these',
    '',
    'The delivered code touches what a test runner judges by. No gate refuses these; a reviewer should look:',
    '',
    ...lines,
    ''
  ].join('\n')
}
