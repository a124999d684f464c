// Counts by name, from the runner's report: each protected test file must report at least the tests it reported
// at the start, by name, and all of them passed. With no count at the start (the baseline timed out, crashed, or
// its report had no test of that file), each must still report one test run, and every test it declares where
// the runner can list them (pytest's `--collect-only -q`; jest's `--listTests` lists files, not tests).
import path from 'node:path'
import type { RunnerReport } from './report.js'

/** The names of the tests each file ran (passed or failed; a skipped test did not run). */
export function namesRun(report: RunnerReport): Map<string, Set<string>> {
  const names = new Map<string, Set<string>>()
  for (const test of report.tests) {
    if (test.outcome === 'skipped') continue
    const set = names.get(test.file) ?? new Set<string>()
    set.add(test.name)
    names.set(test.file, set)
  }
  return names
}

const quoted = (names: string[], most = 3): string =>
  names
    .slice(0, most)
    .map(n => `\`${n}\``)
    .join(', ') + (names.length > most ? ` and ${names.length - most} more` : '')

/**
 * Why the report fails the gate, one line each (none: it passes). `files` are the protected test files as the
 * report names them; `start` the names the baseline's report ran (undefined: no report at the start);
 * `declared` the names the runner lists for a file before running it, where it can.
 */
export function countProblems(
  report: RunnerReport,
  files: readonly string[],
  start: Map<string, Set<string>> | undefined,
  declared?: Map<string, Set<string>>
): string[] {
  const problems: string[] = []
  const now = namesRun(report)
  for (const failure of report.fileFailures) problems.push(`${failure.file} failed to run`)
  const failing = report.tests.filter(t => t.outcome === 'failed')
  if (failing.length > 0)
    problems.push(`${failing.length} failing: ${quoted(failing.map(t => `${t.file}: ${t.name}`))}`)
  for (const file of files) {
    const ran = now.get(file) ?? new Set<string>()
    const before = start?.get(file)
    if (before && before.size > 0) {
      const missing = [...before].filter(name => !ran.has(name))
      if (missing.length > 0)
        problems.push(
          `${file} ran ${before.size} named tests at the start; now it does not run ${quoted(missing)}`
        )
      continue
    }
    // No count at the start: at least one test run by name, and what the runner says the file declares.
    if (ran.size === 0)
      problems.push(`${file} ran no test (and there is no count at the start to compare with)`)
    const listed = declared?.get(file)
    const unrun = listed ? [...listed].filter(name => !ran.has(name)) : []
    if (unrun.length > 0) problems.push(`${file} declares ${quoted(unrun)}, which did not run`)
  }
  return problems
}

/** The arguments that make the runner list what it would run, without running it (none: it cannot). */
export function listArgs(runner: RunnerReport['runner']): string[] | undefined {
  if (runner === 'pytest') return ['--collect-only', '-q']
  if (runner === 'jest') return ['--listTests', '--json']
  return undefined
}

/** pytest's `--collect-only -q` lines (`tests/test_calc.py::TestAdd::test_one`), by file. */
export function parseCollected(text: string): Map<string, Set<string>> {
  const found = new Map<string, Set<string>>()
  for (const line of text.split('\n')) {
    const m = /^([^\s:][^:]*\.py)::(\S.*?)\s*$/.exec(line)
    if (!m) continue
    // Parametrised ids (`test_x[1-2]`) are reported under the same id.
    const set = found.get(m[1]) ?? new Set<string>()
    set.add(m[2])
    found.set(m[1], set)
  }
  return found
}

/** jest's `--listTests --json`: the test files it would run, relative to `root` (each must run one test). */
export function parseListedFiles(text: string, root: string): string[] {
  let files: unknown
  try {
    files = JSON.parse(text)
  } catch {
    return []
  }
  return Array.isArray(files) ? files.map(f => path.relative(root, String(f)).split(path.sep).join('/')) : []
}
