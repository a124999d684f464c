// The tests' local GitHub API stand-in (__tests__/support/github-api/, TypeScript), for the benchmark:
// transpiled once into node_modules/.cache (never committed) and imported from there, so it resolves the
// same dev dependencies (ajv, @octokit/openapi) as the tests. Only the stand-in and the files it imports
// (followed through their relative imports, such as ../faults.js) are compiled; nothing is copied.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import ts from 'typescript'
import { ROOT } from './lib.mjs'

const SUPPORT = path.join(ROOT, '__tests__', 'support')
const OUT = path.join(ROOT, 'node_modules', '.cache', 'ralph-action', 'support')

/** Transpiles `file` (a .ts under __tests__/support) and, once each, every relative module it imports. */
function transpile(file, done = new Set()) {
  if (done.has(file)) return
  done.add(file)
  const source = readFileSync(file, 'utf8')
  const { outputText } = ts.transpileModule(source, {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
    fileName: path.basename(file)
  })
  const out = path.join(OUT, path.relative(SUPPORT, file)).replace(/\.ts$/, '.js')
  mkdirSync(path.dirname(out), { recursive: true })
  writeFileSync(out, outputText)
  for (const [, specifier] of outputText.matchAll(/\bfrom '(\.\.?\/[^']+)\.js'/g)) {
    const imported = path.resolve(path.dirname(file), `${specifier}.ts`)
    if (!imported.startsWith(SUPPORT + path.sep) || !existsSync(imported))
      throw new Error(
        `the GitHub API stand-in imports ${specifier}.js, which is not a .ts file under __tests__/support`
      )
    transpile(imported, done)
  }
}

/** startGitHubApi from the stand-in (see its index.ts for the options). */
export async function loadGitHubApi() {
  // A fresh copy each time: a module the stand-in no longer imports must not linger.
  rmSync(OUT, { recursive: true, force: true })
  mkdirSync(OUT, { recursive: true })
  writeFileSync(path.join(OUT, 'package.json'), '{ "type": "module" }\n')
  transpile(path.join(SUPPORT, 'github-api', 'index.ts'))
  const { startGitHubApi } = await import(pathToFileURL(path.join(OUT, 'github-api', 'index.js')).href)
  return startGitHubApi
}
