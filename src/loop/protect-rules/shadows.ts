// Modules from the tree that shadow what the judges load (#37). Two rules: a new top-level Python module named as
// the standard library or an installed distribution (`python -m pytest` puts the tree first on sys.path, so an
// `iniconfig.py` replaces pytest's own dependency); and a new file in a protected test's folder that a name the
// test imports would find first (`tests/calc.py` before `./calc.py`; `test/util.js` before `test/util/index.js`).
import { execFile } from 'node:child_process'
import path from 'node:path'
import type { ProtectRule } from '../protect/index.js'

const PY_IMPORT =
  /^\s*(?:from\s+([A-Za-z_]\w*)[\w.]*\s+import\b|import\s+([A-Za-z_][\w.]*(?:\s*,\s*[A-Za-z_][\w.]*)*))/gm
const JS_RELATIVE =
  /(?:\brequire\s*\(\s*|\bimport\s*\(\s*|\bfrom\s+|^\s*import\s+)(['"])(\.{1,2}\/[^'"]*)\1/gm
const JS_EXTENSIONS = ['', '.js', '.cjs', '.mjs', '.json', '.node', '.ts', '.cts', '.mts', '.jsx', '.tsx']

/** The top-level names a Python import statement of `text` names. */
export function pythonImports(text: string): string[] {
  const names = new Set<string>()
  for (const m of text.matchAll(PY_IMPORT)) {
    if (m[1]) names.add(m[1])
    for (const part of (m[2] ?? '').split(',')) if (part.trim()) names.add(part.trim().split('.')[0])
  }
  return [...names]
}

/** The relative specifiers of `require`, `import` and `export … from` in `text`. */
export function relativeSpecifiers(text: string): string[] {
  return [...new Set([...text.matchAll(JS_RELATIVE)].map(m => m[2]))]
}

/** The paths node or a bundler may resolve `spec` to from `dir` (relative to the top). */
export function resolutionCandidates(dir: string, spec: string): string[] {
  const target = path.posix.normalize(path.posix.join(dir, spec)).replace(/\/$/, '')
  if (target.startsWith('..')) return []
  return [
    ...JS_EXTENSIONS.map(ext => `${target}${ext}`),
    `${target}/package.json`,
    ...JS_EXTENSIONS.filter(Boolean).map(ext => `${target}/index${ext}`)
  ].filter(p => p !== '.' && p !== '')
}

const braces = (names: readonly string[]): string => (names.length === 1 ? names[0] : `{${names.join(',')}}`)
const under = (dir: string, rest: string): string => (dir === '' ? rest : `${dir}/${rest}`)

/**
 * New top-level Python modules (at the top and in the project) named as one of `installed` (the standard
 * library's and the installed distributions' top-level names); a name the start commit has is the project's own.
 */
export function topLevelShadowRules(
  files: ReadonlySet<string>,
  dirs: readonly string[],
  installed: readonly string[]
): ProtectRule[] {
  const rules: ProtectRule[] = []
  const safe = installed.filter(n => /^[A-Za-z_]\w*$/.test(n))
  for (const dir of new Set(dirs)) {
    const names = safe.filter(
      n => !files.has(under(dir, `${n}.py`)) && !files.has(under(dir, `${n}/__init__.py`))
    )
    if (names.length === 0) continue
    const why = 'auto: a new top-level module named as an installed one (it would shadow it)'
    // A folder without __init__.py is a namespace package, found only where no module is: it shadows nothing.
    rules.push({ glob: under(dir, `${braces(names)}.py`), scope: 'all', why })
    rules.push({ glob: under(dir, `${braces(names)}/__init__.py`), scope: 'all', why })
  }
  return rules
}

/**
 * New files in a protected test's folder that what the test imports would find first: the Python names it
 * imports that are modules at one of `roots` (the top, the project), beside it; each relative specifier's
 * resolution candidates before the one the start commit has.
 */
export function testFolderShadowRules(
  files: ReadonlySet<string>,
  tests: ReadonlyMap<string, string>,
  roots: readonly string[]
): ProtectRule[] {
  const globs = new Set<string>()
  for (const [file, text] of tests) {
    const dir = path.posix.dirname(file) === '.' ? '' : path.posix.dirname(file)
    if (file.endsWith('.py')) {
      // pytest puts the test's folder first on sys.path: a new module there shadows the project's of that name.
      if (dir === '') continue
      const isModule = (d: string, name: string): boolean =>
        files.has(under(d, `${name}.py`)) || files.has(under(d, `${name}/__init__.py`))
      for (const name of pythonImports(text)) {
        if (isModule(dir, name) || !roots.some(root => isModule(root, name))) continue
        globs.add(under(dir, `${name}.py`))
        globs.add(under(dir, `${name}/__init__.py`))
      }
      continue
    }
    // What resolves first wins: the candidates before the one the start commit has (none: a module to write).
    for (const spec of relativeSpecifiers(text)) {
      const candidates = resolutionCandidates(dir, spec)
      const found = candidates.findIndex(c => files.has(c))
      for (const candidate of candidates.slice(0, Math.max(found, 0))) globs.add(candidate)
    }
  }
  return [...globs].map(glob => ({
    glob,
    scope: 'all' as const,
    why: 'auto: a new file a protected test would import instead of the one it imports'
  }))
}

/** The standard library's and the installed distributions' top-level module names, by the system's python3. */
export function installedPythonModules(python = 'python3'): Promise<string[]> {
  const program =
    'import sys, pkgutil; print("\\n".join(sorted(set(sys.stdlib_module_names) | {m.name for m in pkgutil.iter_modules()})))'
  return new Promise(resolve => {
    // -I: no user site, no PYTHON* variable, no current folder on the path (the tree's modules are not listed).
    execFile(python, ['-I', '-c', program], { cwd: '/', timeout: 20_000 }, (error, stdout) =>
      resolve(error ? [] : stdout.split('\n').filter(Boolean))
    )
  })
}
