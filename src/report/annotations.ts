// Failing gate output → file:line annotations, for the formats people's checks print: tsc, ESLint (stylish),
// jest, vitest, node's test runner, pytest, go (build and test) and rustc. GitHub shows at most 10 error
// annotations a step, so the first 10 distinct places are kept, in the order the output gave them.
import { existsSync, statSync } from 'node:fs'
import path from 'node:path'

export const MAX_ANNOTATIONS = 10
const MAX_MESSAGE_CHARS = 1000

/** A place in the output, as printed (the path may be relative to the check's folder, or absolute). */
export interface FoundProblem {
  file: string
  line: number
  column?: number
  message: string
  /** The test's name or the rule, when the format gives one. */
  title?: string
  /** Where in the output it was found (for ordering). */
  at: number
}

/** An annotation ready for `core.error(message, { file, startLine, startColumn, title })`. */
export interface Annotation {
  /** Relative to the repository root, with forward slashes. */
  file: string
  line: number
  column?: number
  title?: string
  message: string
}

// eslint-disable-next-line no-control-regex
const ANSI = /\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07]*\x07/g

const stripAnsi = (text: string): string => text.replace(ANSI, '')

type Parser = (lines: string[]) => FoundProblem[]

const clean = (message: string): string => {
  const text = message.trim().replace(/\n{3,}/g, '\n\n')
  return text.length > MAX_MESSAGE_CHARS ? `${text.slice(0, MAX_MESSAGE_CHARS - 1)}…` : text
}

const tsc: Parser = lines => {
  const found: FoundProblem[] = []
  lines.forEach((line, at) => {
    const m =
      /^(\S[^()]*?)\((\d+),(\d+)\): error (TS\d+): (.*)$/.exec(line) ??
      /^(\S.*?):(\d+):(\d+) - error (TS\d+): (.*)$/.exec(line)
    if (m) found.push({ file: m[1], line: +m[2], column: +m[3], title: m[4], message: m[5], at })
  })
  return found
}

// Stylish: the file's path alone on a line, then indented "line:col  error  message  rule" lines.
const eslintStylish: Parser = lines => {
  const found: FoundProblem[] = []
  let file: string | undefined
  lines.forEach((line, at) => {
    if (/^(\/|[A-Za-z]:\\)\S.*$/.test(line) && !line.includes(': ')) {
      file = line.trim()
      return
    }
    if (!file) return
    const m = /^\s+(\d+):(\d+)\s+error\s+(.+?)(?:\s{2,}(\S+))?\s*$/.exec(line)
    if (m) found.push({ file, line: +m[1], column: +m[2], message: m[3], title: m[4], at })
    else if (line.trim() === '') file = undefined
  })
  return found
}

// `--> src/main.rs:4:18` under an `error[E0308]: …` line.
const rustc: Parser = lines => {
  const found: FoundProblem[] = []
  let error: { message: string; at: number } | undefined
  lines.forEach((line, at) => {
    const head = /^error(\[E\d+\])?: (.*)$/.exec(line)
    if (head) {
      error = { message: head[2], at }
      return
    }
    const where = /^\s*--> (.+?):(\d+):(\d+)$/.exec(line)
    if (where && error) {
      found.push({ file: where[1], line: +where[2], column: +where[3], message: error.message, at: error.at })
      error = undefined
    }
  })
  return found
}

const go: Parser = lines => {
  const found: FoundProblem[] = []
  let test: string | undefined
  lines.forEach((line, at) => {
    const run = /^\s*--- FAIL: (\S+)/.exec(line) ?? /^=== RUN\s+(\S+)/.exec(line)
    if (run) test = run[1]
    // Build errors: ./main.go:12:5: undefined: x
    const build = /^(\S+\.go):(\d+):(\d+): (.*)$/.exec(line)
    if (build) {
      found.push({ file: build[1], line: +build[2], column: +build[3], message: build[4], at })
      return
    }
    // Test failures: "    calc_test.go:12: got 3, want 4"
    const failure = /^\s+(\S+_test\.go):(\d+): (.*)$/.exec(line)
    if (failure)
      found.push({
        file: failure[1],
        line: +failure[2],
        message: failure[3],
        ...(test !== undefined ? { title: test } : {}),
        at
      })
  })
  return found
}

// Long tracebacks: `E   …` lines, then `path.py:12: AssertionError`; the test's name is in the `___ name ___` rule.
const pytest: Parser = lines => {
  const found: FoundProblem[] = []
  let test: string | undefined
  let details: string[] = []
  lines.forEach((line, at) => {
    const rule = /^_{3,} (.+?) _{3,}$/.exec(line)
    if (rule) {
      test = rule[1]
      details = []
      return
    }
    if (/^E\s/.test(line)) {
      details.push(line.slice(1).trim())
      return
    }
    const where = /^(\S+\.py):(\d+): (\w+.*)$/.exec(line)
    if (where) {
      const message = details.length > 0 ? `${details.join('\n')}\n(${where[3]})` : where[3]
      found.push({
        file: where[1],
        line: +where[2],
        message,
        ...(test !== undefined ? { title: test } : {}),
        at
      })
      details = []
    }
  })
  return found
}

const STACK_FRAME = [
  /^\s*at (?:.*? \()?(?:file:\/\/)?([^\s()]+?):(\d+):(\d+)\)?\s*$/,
  /^\s*❯ (?:.*? \()?(?:file:\/\/)?([^\s()]+?):(\d+):(\d+)\)?\s*$/
]
const CODE_FRAME = /^\s*>?\s*\d*\s*\|/

/**
 * Test runners that print a heading per failure, the error, then a stack: jest (`●`), node's test runner
 * (`✖`), vitest (`FAIL file > test`, `×`). The place is the first stack frame in the project.
 */
const testRunners: Parser = lines => {
  const found: FoundProblem[] = []
  let block: { title: string; message: string[]; at: number; placed: boolean; framed: boolean } | undefined
  lines.forEach((line, at) => {
    const heading =
      /^\s*● (.+)$/.exec(line) ??
      /^\s*✖ (.+?)(?: \(\d[\d.]*m?s\))?$/.exec(line) ??
      /^\s*(?:FAIL|×)\s+(.+?)(?: \d+m?s)?$/.exec(line)
    if (heading) {
      block = { title: heading[1].trim(), message: [], at, placed: false, framed: false }
      return
    }
    if (!block || block.placed) return
    for (const frame of STACK_FRAME) {
      const m = frame.exec(line)
      if (!m) continue
      if (m[1].includes('node_modules') || m[1].startsWith('node:')) return
      found.push({
        file: m[1],
        line: +m[2],
        column: +m[3],
        title: block.title,
        message: block.message.join('\n') || block.title,
        at: block.at
      })
      block.placed = true
      return
    }
    // The message: the error's first lines, before any code frame or stack.
    if (CODE_FRAME.test(line) || /^\s*at /.test(line)) block.framed = true
    else if (!block.framed && block.message.length < 12) {
      if (line.trim() !== '' || block.message.length > 0) block.message.push(line.trim())
    }
  })
  return found
}

const PARSERS: Parser[] = [tsc, eslintStylish, rustc, go, pytest, testRunners]

/** Every file:line problem in one check's output, in output order (not yet resolved or capped). */
export function findProblems(output: string): FoundProblem[] {
  const lines = stripAnsi(output).replace(/\r\n?/g, '\n').split('\n')
  return PARSERS.flatMap(parse => parse(lines)).sort((a, b) => a.at - b.at)
}

export interface CheckOutput {
  /** The gate's name, used as the annotation's title when the format has none. */
  name: string
  output: string
  /** The folder the check ran in: relative paths in its output are relative to it. */
  cwd: string
}

/**
 * Annotations for failing checks: paths resolved against each check's folder, kept only when they name a
 * file inside `repoRoot` (GitHub places annotations by repository path), one per place, at most `max`.
 */
export function annotationsFor(checks: CheckOutput[], repoRoot: string, max = MAX_ANNOTATIONS): Annotation[] {
  const annotations: Annotation[] = []
  const seen = new Set<string>()
  for (const check of checks) {
    for (const problem of findProblems(check.output)) {
      if (annotations.length >= max) return annotations
      const absolute = path.resolve(check.cwd, problem.file)
      const relative = path.relative(repoRoot, absolute)
      if (relative.startsWith('..') || path.isAbsolute(relative) || !isFile(absolute)) continue
      const file = relative.split(path.sep).join('/')
      const key = `${file}:${problem.line}`
      if (seen.has(key)) continue
      seen.add(key)
      const annotation: Annotation = {
        file,
        line: problem.line,
        title: `${check.name}: ${problem.title ?? 'failed'}`.slice(0, 200),
        message: clean(problem.message)
      }
      if (problem.column !== undefined) annotation.column = problem.column
      annotations.push(annotation)
    }
  }
  return annotations
}

function isFile(file: string): boolean {
  try {
    return existsSync(file) && statSync(file).isFile()
  } catch {
    return false
  }
}
