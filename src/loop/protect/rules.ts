// What `auto` protects: a list of rules, each a small function of the run's facts and the start commit's files.
// A new auto rule is one function and one entry in AUTO_RULES; the order there is the order a path's `why` is
// looked up in (the first rule matching a path names it).
import path from 'node:path'
import { filesRun, gateWords } from './gate-files.js'
import type { AutoFacts, ProtectRule } from './types.js'

/** One rule of `auto`: the rules it stands for in this run (none when it does not apply). */
export type AutoRule = (facts: AutoFacts, baseFiles: ReadonlySet<string>) => ProtectRule[]

/** Test files by the common conventions: the agent may add tests, never weaken the ones that judge it. */
export const TEST_FILE_GLOBS = [
  '**/*.test.*',
  '**/*.spec.*',
  '**/test_*.py',
  '**/*_test.py',
  '**/*_test.go',
  '**/__tests__/**',
  '**/test/**',
  '**/tests/**'
]

/**
 * What a test runner reads to decide what and how to run: a new one anywhere (a `jest.config.js` beside a
 * protected `jest.config.ts`, a `conftest.py` in a subfolder, a `GNUmakefile` before the `Makefile`) is removed.
 */
export const RUNNER_CONFIG_GLOBS = [
  '**/jest.config.*',
  '**/jest.setup.*',
  '**/vitest.config.*',
  '**/vitest.workspace.*',
  '**/vitest.setup.*',
  '**/vite.config.*',
  '**/.mocharc*',
  '**/.ava.config.*',
  '**/ava.config.*',
  '**/babel.config.*',
  '**/.babelrc*',
  '**/tsconfig*.json',
  '**/.npmrc',
  '**/.yarnrc',
  '**/.yarnrc.yml',
  '**/.pnpmfile.cjs',
  '**/bunfig.toml',
  '**/.node-options',
  '**/pytest.ini',
  '**/.pytest.ini',
  // A module named as the runner wins over it (`python -m pytest` runs ./pytest.py); jest's manual mocks of
  // a package replace it; Go's module files pick which code a path names.
  'pytest.py',
  'pytest/**',
  '**/__mocks__/**',
  '**/go.mod',
  '**/go.work',
  '**/pyproject.toml',
  '**/setup.cfg',
  '**/tox.ini',
  '**/noxfile.py',
  '**/conftest.py',
  '**/.coveragerc',
  '**/Makefile',
  '**/makefile',
  '**/GNUmakefile'
]

/** Gate programs whose runner reads package.json (its scripts, and its jest/mocha/type/imports fields). */
const PACKAGE_JSON_RUNNERS = new Set([
  'npm',
  'npx',
  'yarn',
  'pnpm',
  'bun',
  'node',
  'jest',
  'vitest',
  'mocha',
  'ava',
  'tsx',
  'ts-node'
])

/** The ralph's own folder; a ralph whose folder is the project (or the repository) protects only its RALPH.md. */
export const ralphFolder: AutoRule = facts => {
  if (facts.ralphDir !== undefined && facts.ralphDir !== '' && facts.ralphDir !== facts.projectDir)
    return [{ glob: `${facts.ralphDir}/**`, scope: 'all', why: "auto: the ralph's own folder" }]
  if (facts.ralphFile !== undefined)
    return [{ glob: facts.ralphFile, scope: 'base', why: "auto: the ralph's RALPH.md" }]
  return []
}

/** .github/: the workflows and actions that run this one. */
export const githubFolder: AutoRule = () => [
  { glob: '.github/**', scope: 'all', why: 'auto: .github/ (workflows, actions)' }
]

/** Every file of the start commit a gate runs (filesRun), gate by gate. */
export const filesGatesRun: AutoRule = (facts, baseFiles) =>
  facts.checks.flatMap(check =>
    filesRun(check.run).flatMap(word => {
      if (/[$*?[{]/.test(word)) return []
      const rel = path.posix.normalize(path.posix.join(facts.projectDir, word.replace(/^\.\//, '')))
      if (rel.startsWith('..') || rel === '.' || path.posix.isAbsolute(word)) return []
      // A file, not a folder: `eslint src` names the code the agent is asked to change.
      return baseFiles.has(rel)
        ? [{ glob: rel, scope: 'base' as const, why: `auto: run by a gate (${check.run})` }]
        : []
    })
  )

/** package.json (the top's and the project's) when a gate's runner reads it. */
export const packageJson: AutoRule = (facts, baseFiles) => {
  const javascript = facts.checks.some(check =>
    gateWords(check.run).some(word => PACKAGE_JSON_RUNNERS.has(path.posix.basename(word)))
  )
  if (!javascript) return []
  return [...new Set(['', facts.projectDir])].flatMap(dir => {
    const file = dir === '' ? 'package.json' : `${dir}/package.json`
    return baseFiles.has(file)
      ? [
          {
            glob: file,
            scope: 'base' as const,
            why: 'auto: package.json (its scripts and fields steer the runner)'
          }
        ]
      : []
  })
}

/** Test runners' configuration, wherever it is: a new one is removed too. */
export const runnerConfig: AutoRule = () =>
  RUNNER_CONFIG_GLOBS.map(glob => ({
    glob,
    scope: 'all' as const,
    why: "auto: a test runner's configuration"
  }))

/** The tests the start commit has. */
export const testFiles: AutoRule = () =>
  TEST_FILE_GLOBS.map(glob => ({
    glob,
    scope: 'base' as const,
    why: 'auto: a test file of the start commit'
  }))

/** The rules `auto` stands for, in the order a path's reason is looked up. */
export const AUTO_RULES: readonly AutoRule[] = [
  ralphFolder,
  githubFolder,
  filesGatesRun,
  packageJson,
  runnerConfig,
  testFiles
]

/**
 * The rules `auto` stands for, given the start commit's files: the ralph's folder, .github/, every file a
 * gate runs (filesRun), package.json for JavaScript gates, runner configuration, and the tests that exist.
 */
export function autoRules(facts: AutoFacts, baseFiles: ReadonlySet<string>): ProtectRule[] {
  return AUTO_RULES.flatMap(rule => rule(facts, baseFiles))
}

/** The rules a setting stands for: `auto` expanded, every other glob protecting what matches it (new paths too). */
export function protectRules(
  setting: readonly string[],
  facts: AutoFacts,
  baseFiles: ReadonlySet<string>
): ProtectRule[] {
  if (setting.includes('none')) return []
  return setting.flatMap(glob =>
    glob === 'auto'
      ? autoRules(facts, baseFiles)
      : [{ glob, scope: 'all' as const, why: `protected: ${glob}` }]
  )
}
