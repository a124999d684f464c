// Files the judges read that nothing protected yet (#37): what a protected file sources (`source`, `.`), includes
// (make's `include`), runs (a Makefile's recipe, a package.json script's script), names as setup (`--import`,
// `--require`, jest's setupFiles*, globalSetup, moduleNameMapper targets…), and the data files a protected test
// opens by a literal path. Each is one rule over the start commit's texts: pure, paths relative to the top.
import path from 'node:path'
import { filesRun } from '../protect/index.js'

/** The start commit's files and the texts of those already protected. */
export interface JudgesFacts {
  files: ReadonlySet<string>
  texts: ReadonlyMap<string, string>
  /** The project's folder relative to the top ('' for the top): where gates, make and npm run. */
  projectDir: string
}

/** `word` as a path of the start commit, relative to `dirs` in turn (undefined: none has it, or it is no path). */
function resolve(facts: JudgesFacts, word: string, dirs: readonly string[]): string | undefined {
  if (word === '' || /[$*?[{`]/.test(word) || path.posix.isAbsolute(word)) return undefined
  for (const dir of dirs) {
    const rel = path.posix.normalize(path.posix.join(dir, word.replace(/^<rootDir>\//, '')))
    if (!rel.startsWith('..') && facts.files.has(rel)) return rel
  }
  return undefined
}

const dirOf = (file: string): string => (path.posix.dirname(file) === '.' ? '' : path.posix.dirname(file))
const isMakefile = (file: string): boolean => /(^|\/)(GNUmakefile|[Mm]akefile|[^/]+\.mk)$/.test(file)
const isShell = (file: string, text: string): boolean =>
  /\.(sh|bash)$/.test(file) || /^#!.*\b(ba|da|z|k)?sh\b/.test(text)

/** What each protected shell script sources (`source f`, `. f`), from its folder or the project's. */
export function sourcedFiles(facts: JudgesFacts): string[] {
  const found: string[] = []
  for (const [file, text] of facts.texts) {
    if (!isShell(file, text) && !isMakefile(file)) continue
    for (const m of text.matchAll(/(?:^|[;&|(]\s*|\t)(?:source|\.)\s+(\S+)/gm)) {
      const hit = resolve(facts, m[1].replace(/^["']|["';]+$/g, ''), [facts.projectDir, dirOf(file)])
      if (hit) found.push(hit)
    }
  }
  return [...new Set(found)]
}

/** What each protected makefile includes, and the files its recipes run (`sh run-tests.sh`, `./check.sh`). */
export function makeFiles(facts: JudgesFacts): string[] {
  const found: string[] = []
  for (const [file, text] of facts.texts) {
    if (!isMakefile(file)) continue
    const dirs = [facts.projectDir, dirOf(file)]
    for (const line of text.split('\n')) {
      const include = /^\s*-?s?include\s+(.+)$/.exec(line)
      const words = include
        ? include[1].split(/\s+/)
        : line.startsWith('\t')
          ? filesRun(line.slice(1).replace(/^[@+-]+/, ''))
          : []
      for (const word of words) {
        const hit = resolve(facts, word, dirs)
        if (hit) found.push(hit)
      }
    }
  }
  return [...new Set(found)]
}

const PRELOAD_FLAGS =
  /^(?:-r|--require|--import|--loader|--experimental-loader|--env-file|--experimental-test-coverage-include)$/
const PRELOAD_INLINE = /^(?:--require|--import|--loader|--experimental-loader|--env-file)=(.+)$/
/** jest's keys that name files it loads before or around the tests. */
const JEST_KEYS =
  /^(setupFiles|setupFilesAfterEnv|globalSetup|globalTeardown|testEnvironment|moduleNameMapper|testSequencer|snapshotResolver|resolver|transform|testRunner|reporters|watchPlugins|dependencyExtractor|prettierPath)$/

/** The strings anywhere under `value` (a JSON value). */
function strings(value: unknown): string[] {
  if (typeof value === 'string') return [value]
  if (Array.isArray(value)) return value.flatMap(strings)
  if (value && typeof value === 'object') return Object.values(value).flatMap(strings)
  return []
}

/**
 * What a protected package.json or runner configuration names as setup: every script's preloads (`--import f`,
 * `-r f`) and the files its scripts run; jest's setup keys' paths (`<rootDir>/…`, `./…`); in a configuration
 * file that is code (jest.config.js), every string that is a relative path.
 */
export function setupFiles(facts: JudgesFacts): string[] {
  const found: string[] = []
  for (const [file, text] of facts.texts) {
    const dirs = [dirOf(file), facts.projectDir]
    const add = (word: string): void => {
      const hit = resolve(facts, word, dirs)
      if (hit) found.push(hit)
    }
    if (path.posix.basename(file) === 'package.json') {
      let parsed: { scripts?: unknown; jest?: unknown }
      try {
        parsed = JSON.parse(text) as typeof parsed
      } catch {
        continue
      }
      for (const script of strings(parsed.scripts)) {
        const words = script.split(/\s+/)
        words.forEach((w, i) => {
          if (PRELOAD_FLAGS.test(w) && words[i + 1]) add(words[i + 1])
          const inline = PRELOAD_INLINE.exec(w)
          if (inline) add(inline[1])
        })
        for (const run of filesRun(script)) add(run)
      }
      if (parsed.jest && typeof parsed.jest === 'object')
        for (const [key, value] of Object.entries(parsed.jest))
          if (JEST_KEYS.test(key)) for (const s of strings(value)) add(s)
      continue
    }
    if (/(^|\/)(jest|vitest|vite)\.(config|setup)\.[cm]?[jt]s$|(^|\/)jest\.config\.json$/.test(file))
      for (const m of text.matchAll(/(['"`])((?:<rootDir>\/|\.{1,2}\/)[^'"`\n]+)\1/g)) add(m[2])
  }
  return [...new Set(found)]
}

/** Extensions of code (what the agent is asked to change), never data a test reads. */
const CODE = /\.([cm]?[jt]sx?|py|go|rb|rs|java|kt|c|h|cc|cpp|hpp|cs|php|swift|scala|sh)$/

/**
 * The data files a protected test opens by a literal path: each quoted string of a test file that names a file
 * of the start commit that is not code, from the test's folder or the project's.
 */
export function dataFiles(facts: JudgesFacts, tests: ReadonlySet<string>): string[] {
  const found: string[] = []
  for (const [file, text] of facts.texts) {
    if (!tests.has(file)) continue
    for (const m of text.matchAll(/(['"`])([^'"`\n]{1,300})\1/g)) {
      const hit = resolve(facts, m[2].replace(/^\.\//, ''), [dirOf(file), facts.projectDir])
      if (hit && !CODE.test(hit)) found.push(hit)
    }
  }
  return [...new Set(found)]
}
