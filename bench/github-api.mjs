// The tests' local GitHub API stand-in (__tests__/support/github-api/, TypeScript), for the benchmark:
// transpiled once into node_modules/.cache (never committed) and imported from there, so it resolves the
// same dev dependencies (ajv, @octokit/openapi) as the tests. Nothing else is compiled or copied.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import ts from 'typescript'
import { ROOT } from './lib.mjs'

const SOURCE = path.join(ROOT, '__tests__', 'support', 'github-api')
const OUT = path.join(ROOT, 'node_modules', '.cache', 'ralph-action', 'github-api')

/** startGitHubApi from the stand-in (see its index.ts for the options). */
export async function loadGitHubApi() {
  mkdirSync(OUT, { recursive: true })
  writeFileSync(path.join(OUT, 'package.json'), '{ "type": "module" }\n')
  for (const name of readdirSync(SOURCE).filter(file => file.endsWith('.ts'))) {
    const { outputText } = ts.transpileModule(readFileSync(path.join(SOURCE, name), 'utf8'), {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
      fileName: name
    })
    writeFileSync(path.join(OUT, name.replace(/\.ts$/, '.js')), outputText)
  }
  const { startGitHubApi } = await import(pathToFileURL(path.join(OUT, 'index.js')).href)
  return startGitHubApi
}
