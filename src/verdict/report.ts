// A test runner's machine-readable report, read from the file it was told to write (never from its output, which
// the code under test shares): each test by file and name, with its outcome and failure message. One parser per
// runner: jest's `--json`, pytest's JUnit XML (xunit1, which names each test's file), the JSON lines of the
// action's own `node --test` reporter (report-files.ts), and `go test -json`'s events.
import path from 'node:path'

/** The runners whose reports the verdict reads. */
export type ReportRunner = 'node --test' | 'jest' | 'pytest' | 'go test'

export type Outcome = 'passed' | 'failed' | 'skipped'

export interface ReportedTest {
  /** The test's file relative to the project root, with `/` (go: the package's import path). */
  file: string
  /** Its full name: describe blocks and the title joined by ` > ` (pytest: `Class::test`, go: `TestX/sub`). */
  name: string
  outcome: Outcome
  /** Why it failed, as the runner reported it. */
  message?: string
}

export interface RunnerReport {
  runner: ReportRunner
  tests: ReportedTest[]
  /** Files the runner could not run as a whole (an error on load, a process that exited early with a failure). */
  fileFailures: { file: string; message: string }[]
  /** Files that ran and ended with no test reported (`node --test` passes such a file). */
  emptyFiles: string[]
}

/** A report that could not be read: the gate fails with this line. */
export class ReportError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'ReportError'
  }
}

/** `file` relative to `root`, with `/`; left as is when it is not absolute. */
function relative(root: string, file: string): string {
  const rel = path.isAbsolute(file) ? path.relative(root, file) : file
  return rel.split(path.sep).join('/')
}

/** The report at `text`, written by `runner` run in `root` (the folder paths are relative to). */
export function parseReport(runner: ReportRunner, text: string, root: string): RunnerReport {
  if (text.trim() === '') throw new ReportError(`${runner} wrote an empty report`)
  switch (runner) {
    case 'jest':
      return parseJestJson(text, root)
    case 'pytest':
      return parseJUnitXml(text, root)
    case 'node --test':
      return parseNodeEvents(text, root)
    case 'go test':
      return parseGoJson(text)
  }
}

// ---------------------------------------------------------------------------------------------------
// jest --json

interface JestAssertion {
  ancestorTitles?: unknown
  title?: unknown
  status?: unknown
  failureMessages?: unknown
}

/** jest's `--json` result: testResults[] (one per file) with assertionResults[]. */
export function parseJestJson(text: string, root: string): RunnerReport {
  let parsed: { testResults?: unknown }
  try {
    parsed = JSON.parse(text) as { testResults?: unknown }
  } catch {
    throw new ReportError("jest's report is not JSON")
  }
  if (!Array.isArray(parsed.testResults)) throw new ReportError("jest's report has no testResults")
  const report: RunnerReport = { runner: 'jest', tests: [], fileFailures: [], emptyFiles: [] }
  for (const suite of parsed.testResults as Record<string, unknown>[]) {
    const file = relative(root, String(suite.name))
    const assertions = Array.isArray(suite.assertionResults)
      ? (suite.assertionResults as JestAssertion[])
      : []
    for (const a of assertions) {
      const ancestors = Array.isArray(a.ancestorTitles) ? a.ancestorTitles.map(String) : []
      const status = String(a.status)
      const outcome: Outcome = status === 'passed' ? 'passed' : status === 'failed' ? 'failed' : 'skipped'
      const messages = Array.isArray(a.failureMessages) ? a.failureMessages.map(String) : []
      report.tests.push({
        file,
        name: [...ancestors, String(a.title)].join(' > '),
        outcome,
        ...(outcome === 'failed' ? { message: messages.join('\n') } : {})
      })
    }
    // A suite that failed to run (an error on load) has a message and no assertion of its own.
    if (suite.status === 'failed' && !assertions.some(a => a.status === 'failed'))
      report.fileFailures.push({ file, message: String(suite.message ?? 'the test file failed to run') })
  }
  return report
}

// ---------------------------------------------------------------------------------------------------
// JUnit XML (pytest --junitxml, junit_family=xunit1)

interface XmlElement {
  name: string
  attributes: Record<string, string>
  children: XmlElement[]
  text: string
}

const ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" }

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-fA-F]+|#\d+|[a-z]+);/g, (whole, body: string) => {
    if (body.startsWith('#x')) return String.fromCodePoint(parseInt(body.slice(2), 16))
    if (body.startsWith('#')) return String.fromCodePoint(Number(body.slice(1)))
    return ENTITIES[body] ?? whole
  })
}

/** The elements of an XML document without a DTD (all JUnit writers emit), as a tree under a synthetic root. */
export function parseXml(text: string): XmlElement {
  const root: XmlElement = { name: '#root', attributes: {}, children: [], text: '' }
  const stack = [root]
  const tag =
    /<(\/?)([A-Za-z_][\w.:-]*)((?:\s+[\w.:-]+\s*=\s*(?:"[^"]*"|'[^']*'))*)\s*(\/?)>|<!\[CDATA\[([\s\S]*?)\]\]>|<!--[\s\S]*?-->|<\?[\s\S]*?\?>/g
  let at = 0
  for (let m = tag.exec(text); m; m = tag.exec(text)) {
    const top = stack[stack.length - 1]
    top.text += decodeEntities(text.slice(at, m.index))
    at = tag.lastIndex
    if (m[5] !== undefined) {
      top.text += m[5]
      continue
    }
    if (m[2] === undefined) continue
    if (m[1] === '/') {
      if (stack.length === 1 || top.name !== m[2])
        throw new ReportError(`the XML report closes <${m[2]}> unopened`)
      stack.pop()
      continue
    }
    const attributes: Record<string, string> = {}
    for (const a of m[3].matchAll(/([\w.:-]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g))
      attributes[a[1]] = decodeEntities(a[2] ?? a[3])
    const element: XmlElement = { name: m[2], attributes, children: [], text: '' }
    top.children.push(element)
    if (m[4] !== '/') stack.push(element)
  }
  if (stack.length !== 1)
    throw new ReportError(`the XML report ends inside <${stack[stack.length - 1].name}>`)
  return root
}

function* elementsNamed(element: XmlElement, name: string): Generator<XmlElement> {
  for (const child of element.children) {
    if (child.name === name) yield child
    else yield* elementsNamed(child, name)
  }
}

/**
 * pytest's JUnit XML with `junit_family=xunit1`: each `<testcase>` has `file` and `name` (and `classname`, whose
 * last part is the class of a method); a `<failure>` or `<error>` child fails it, a `<skipped>` skips it.
 */
export function parseJUnitXml(text: string, root: string): RunnerReport {
  const report: RunnerReport = { runner: 'pytest', tests: [], fileFailures: [], emptyFiles: [] }
  const doc = parseXml(text)
  for (const testcase of elementsNamed(doc, 'testcase')) {
    const { file, name, classname } = testcase.attributes
    const failure = testcase.children.find(c => c.name === 'failure' || c.name === 'error')
    const skipped = testcase.children.some(c => c.name === 'skipped')
    const message = failure
      ? [failure.attributes.message, failure.text].filter(Boolean).join('\n')
      : undefined
    // A module that failed to import is a testcase of no class named by the module: an error of its file.
    if (!name || !classname) {
      report.fileFailures.push({ file: relative(root, file ?? classname ?? ''), message: message ?? '' })
      continue
    }
    // classname `tests.test_calc.TestAdd`: the module's dotted path, then the class, if any.
    const modulePath = (file ?? '').replace(/\.py$/, '').split('/').join('.')
    const cls =
      classname && classname.startsWith(`${modulePath}.`) ? classname.slice(modulePath.length + 1) : ''
    report.tests.push({
      file: relative(root, file ?? ''),
      name: cls ? `${cls}::${name}` : name,
      outcome: failure ? 'failed' : skipped ? 'skipped' : 'passed',
      ...(message !== undefined ? { message } : {})
    })
  }
  return report
}

// ---------------------------------------------------------------------------------------------------
// node --test, the action's reporter (report-files.ts): a JSON line per test:pass / test:fail event

interface NodeEvent {
  type: 'test:pass' | 'test:fail'
  file?: string
  name: string
  nesting: number
  skip?: boolean
  todo?: boolean
  message?: string
}

/**
 * The action's reporter's lines. An event comes after its subtests' (a suite ends last), so a test's full name
 * is built as its ancestors end; a suite itself is not a test unless it fails. A top-level "test" named by its
 * file's path is the file itself: it failed to load or exited, or (passing) it ran and reported no test.
 */
export function parseNodeEvents(text: string, root: string): RunnerReport {
  const report: RunnerReport = { runner: 'node --test', tests: [], fileFailures: [], emptyFiles: [] }
  interface Entry {
    event: NodeEvent
    name: string
    suite: boolean
  }
  const entries: Entry[] = []
  const byFile = new Map<string, Entry[]>()
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue
    let event: NodeEvent
    try {
      event = JSON.parse(line) as NodeEvent
    } catch {
      throw new ReportError("node's report has a line that is not JSON")
    }
    const same = byFile.get(event.file ?? '') ?? []
    byFile.set(event.file ?? '', same)
    // Every entry of its file after the last one at this nesting or above is a descendant of this one.
    let first = same.length
    while (first > 0 && same[first - 1].event.nesting > event.nesting) first--
    for (const d of same.slice(first)) d.name = `${event.name} > ${d.name}`
    const entry = { event, name: event.name, suite: first < same.length }
    same.push(entry)
    entries.push(entry)
  }
  for (const { event, name, suite } of entries) {
    const file = relative(root, event.file ?? '')
    const fileItself =
      event.nesting === 0 &&
      event.file !== undefined &&
      (name === event.file || name === relative(root, event.file))
    if (fileItself) {
      if (event.type === 'test:fail') report.fileFailures.push({ file, message: event.message ?? '' })
      else report.emptyFiles.push(file)
      continue
    }
    if (suite && event.type === 'test:pass') continue
    report.tests.push({
      file,
      name,
      outcome: event.type === 'test:fail' ? 'failed' : event.skip || event.todo ? 'skipped' : 'passed',
      ...(event.type === 'test:fail' ? { message: event.message ?? '' } : {})
    })
  }
  return report
}

// ---------------------------------------------------------------------------------------------------
// go test -json

/** `go test -json`'s events (test2json): a test's pass/fail/skip, its output lines gathered as its message. */
export function parseGoJson(text: string): RunnerReport {
  const report: RunnerReport = { runner: 'go test', tests: [], fileFailures: [], emptyFiles: [] }
  const output = new Map<string, string[]>()
  for (const line of text.split('\n')) {
    if (!line.startsWith('{')) continue
    let event: { Action?: unknown; Package?: unknown; Test?: unknown; Output?: unknown }
    try {
      event = JSON.parse(line) as typeof event
    } catch {
      continue
    }
    const pkg = String(event.Package ?? '')
    if (typeof event.Test !== 'string') {
      // A package that failed with no test failing: it did not build, or its TestMain or init failed.
      if (event.Action === 'fail' && !report.tests.some(t => t.file === pkg && t.outcome === 'failed'))
        report.fileFailures.push({ file: pkg, message: (output.get(`${pkg}\0`) ?? []).join('') })
      if (event.Action === 'output')
        output.set(`${pkg}\0`, [...(output.get(`${pkg}\0`) ?? []), String(event.Output)])
      continue
    }
    const key = `${pkg}\0${event.Test}`
    if (event.Action === 'output') output.set(key, [...(output.get(key) ?? []), String(event.Output)])
    if (event.Action === 'pass' || event.Action === 'fail' || event.Action === 'skip')
      report.tests.push({
        file: pkg,
        name: event.Test,
        outcome: event.Action === 'pass' ? 'passed' : event.Action === 'fail' ? 'failed' : 'skipped',
        ...(event.Action === 'fail' ? { message: (output.get(key) ?? []).join('') } : {})
      })
  }
  return report
}
