// The tests' stand-ins (__tests__/support/: the local GitHub API, the git server, the artifact service; TypeScript),
// for the benchmark: transpiled into node_modules/.cache (never committed) and imported from there, so they
// resolve the same dev dependencies (ajv, @octokit/openapi, azurite) as the tests. Only the modules asked for and
// the files they import (followed through their relative imports, such as ../faults.js) are compiled.
import { pathToFileURL } from 'node:url'
import { transpileModules } from '../scripts/transpile.mjs'

/** The modules at `files` (paths under __tests__, `.ts`), freshly transpiled, in that order. */
export async function loadSupport(...files) {
  const built = transpileModules(
    'tests',
    files.map(file => `__tests__/${file}`)
  )
  return Promise.all(built.map(file => import(pathToFileURL(file).href)))
}

/** startGitHubApi from the stand-in (see its index.ts for the options). */
export async function loadGitHubApi() {
  const [{ startGitHubApi }] = await loadSupport('support/github-api/index.ts')
  return startGitHubApi
}
