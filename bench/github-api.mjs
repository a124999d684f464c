// The tests' stand-ins (__tests__/support/: the local GitHub API, the git server, the artifact service; TypeScript),
// for the benchmark: transpiled into node_modules/.cache (never committed) and imported from there, so they
// resolve the same dev dependencies (ajv, @octokit/openapi, azurite) as the tests. Only the modules asked for and
// the files they import (followed through their relative imports, such as ../faults.js) are compiled.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import ts from 'typescript'
import { ROOT } from './lib.mjs'

const TESTS = path.join(ROOT, '__tests__')
const OUT = path.join(ROOT, 'node_modules', '.cache', 'ralph-action', 'tests')

/** Transpiles `file` (a .ts under __tests__) and, once each, every relative module it imports. */
function transpile(file, done = new Set()) {
  if (done.has(file)) return
  done.add(file)
  const source = readFileSync(file, 'utf8')
  const { outputText } = ts.transpileModule(source, {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
    fileName: path.basename(file)
  })
  const out = path.join(OUT, path.relative(TESTS, file)).replace(/\.ts$/, '.js')
  mkdirSync(path.dirname(out), { recursive: true })
  writeFileSync(out, outputText)
  for (const [, specifier] of outputText.matchAll(/\bfrom '(\.\.?\/[^']+)\.js'/g)) {
    const imported = path.resolve(path.dirname(file), `${specifier}.ts`)
    if (!imported.startsWith(TESTS + path.sep) || !existsSync(imported))
      throw new Error(
        `${path.relative(ROOT, file)} imports ${specifier}.js, which is not a .ts file under __tests__`
      )
    transpile(imported, done)
  }
}

/** The modules at `files` (paths under __tests__, `.ts`), freshly transpiled, in that order. */
export async function loadSupport(...files) {
  // A fresh copy each time: a module the stand-ins no longer import must not linger.
  rmSync(OUT, { recursive: true, force: true })
  mkdirSync(OUT, { recursive: true })
  writeFileSync(path.join(OUT, 'package.json'), '{ "type": "module" }\n')
  const done = new Set()
  for (const file of files) transpile(path.join(TESTS, file), done)
  return Promise.all(
    files.map(file => import(pathToFileURL(path.join(OUT, file.replace(/\.ts$/, '.js'))).href))
  )
}

/** startGitHubApi from the stand-in (see its index.ts for the options). */
export async function loadGitHubApi() {
  const [{ startGitHubApi }] = await loadSupport('support/github-api/index.ts')
  return startGitHubApi
}
