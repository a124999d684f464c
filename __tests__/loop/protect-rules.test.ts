// The rules `auto` grew in #37 and `editable`'s, each against the corpus's own case and an honest neighbour it
// must leave alone: a rule that protected the code under test would refuse every honest fix.
import { describe, expect, test } from '@jest/globals'
import { ruleFor, type ProtectRule } from '../../src/loop/protect/index.js'
import { editableRule } from '../../src/loop/protect-rules/editable.js'
import {
  dataFiles,
  makeFiles,
  setupFiles,
  sourcedFiles,
  type JudgesFacts
} from '../../src/loop/protect-rules/read-by-judges.js'
import { testFolderShadowRules, topLevelShadowRules } from '../../src/loop/protect-rules/shadows.js'
import { toolFolderRules } from '../../src/loop/protect-rules/tool-folders.js'

const protects = (rules: ProtectRule[], file: string, inBase = false): boolean =>
  ruleFor(rules, file, inBase) !== undefined

describe('tool folders', () => {
  const rules = toolFolderRules(
    new Map([
      ['.gitignore', 'node_modules/\n'],
      ['docs/.gitignore', '*.log\n']
    ])
  )
  test.each([
    'node_modules/.bin/node',
    'web/node_modules/jest/bin/jest.js',
    'ralph_pass-1.0.dist-info/entry_points.txt',
    'calc.egg-info/PKG-INFO',
    'evil.pth',
    '.venv/bin/python',
    'lib/site-packages/pytest/__init__.py',
    '.gitattributes',
    'src/.gitattributes'
  ])('a new %s is removed', file => expect(protects(rules, file)).toBe(true))
  test('the .gitignore that keeps node_modules out is protected; one that does not is not', () => {
    expect(protects(rules, '.gitignore', true)).toBe(true)
    expect(protects(rules, 'docs/.gitignore', true)).toBe(false)
  })
  test.each(['calc.js', 'src/modules/node.js', 'tests/test_calc.py', 'venvs.md'])('%s is the work', file =>
    expect(protects(rules, file)).toBe(false)
  )
})

describe('shadows', () => {
  const files = new Set(['calc.py', 'tests/test_calc.py', 'test/util/index.js', 'test/calc.test.js'])
  test('a new top-level module named as an installed one is removed; the project’s own names are not', () => {
    const rules = topLevelShadowRules(files, [''], ['iniconfig', 'json', 'calc', 'test'])
    expect(protects(rules, 'iniconfig.py')).toBe(true)
    expect(protects(rules, 'json/__init__.py')).toBe(true)
    expect(protects(rules, 'calc.py', true)).toBe(false)
    // A folder of tests named as the standard library's `test` is no shadow (no __init__.py).
    expect(protects(rules, 'test/test_new.py')).toBe(false)
  })
  test('a new module in a test’s folder that its import would find first is removed', () => {
    const tests = new Map([
      ['tests/test_calc.py', 'from calc import add\nimport brand_new\n'],
      ['test/calc.test.js', "const { expectSum } = require('./util')\nconst later = require('./later')\n"]
    ])
    const rules = testFolderShadowRules(files, tests, [''])
    expect(protects(rules, 'tests/calc.py')).toBe(true)
    expect(protects(rules, 'test/util.js')).toBe(true)
    // What nothing resolves to yet is a module the agent may be asked to write.
    expect(protects(rules, 'tests/brand_new.py')).toBe(false)
    expect(protects(rules, 'test/later.js')).toBe(false)
    expect(protects(rules, 'calc.py', true)).toBe(false)
  })
})

describe('files the judges read', () => {
  const facts = (texts: Record<string, string>, more: string[] = []): JudgesFacts => ({
    files: new Set([...Object.keys(texts), ...more]),
    texts: new Map(Object.entries(texts)),
    projectDir: ''
  })
  test('what a protected script sources', () => {
    expect(
      sourcedFiles(facts({ 'check.sh': '#!/bin/sh\n. ./env.sh\nexec make test\n' }, ['env.sh']))
    ).toEqual(['env.sh'])
  })
  test('what a protected makefile includes and its recipes run, not the code they name as data', () => {
    const found = makeFiles(
      facts({ Makefile: 'include settings.mk\n\ncheck:\n\tsh run-tests.sh\n\tgrep -q add calc.py\n' }, [
        'settings.mk',
        'run-tests.sh',
        'calc.py'
      ])
    )
    expect(found.sort()).toEqual(['run-tests.sh', 'settings.mk'])
  })
  test('what package.json and jest name as setup', () => {
    const pkg = JSON.stringify({
      scripts: { test: 'node --import ./setup.mjs --test' },
      jest: {
        setupFilesAfterEnv: ['<rootDir>/support/setup.js'],
        moduleNameMapper: { '^x$': '<rootDir>/map/x.js' }
      }
    })
    expect(
      setupFiles(facts({ 'package.json': pkg }, ['setup.mjs', 'support/setup.js', 'map/x.js'])).sort()
    ).toEqual(['map/x.js', 'setup.mjs', 'support/setup.js'])
  })
  test('the data a protected test opens by a literal path, never the code it imports', () => {
    const test =
      "import { add } from './calc.js'\nconst cases = JSON.parse(fs.readFileSync(new URL('./cases.json', import.meta.url)))\n"
    expect(
      dataFiles(facts({ 'calc.test.js': test }, ['calc.js', 'cases.json']), new Set(['calc.test.js']))
    ).toEqual(['cases.json'])
  })
})

describe('editable', () => {
  const rule = editableRule(['src/**', 'calc.py'])
  test('every path but its globs is protected, new or of the start', () => {
    expect(protects([rule], 'tests/test_calc.py', true)).toBe(true)
    expect(protects([rule], 'sums.py', true)).toBe(true)
    expect(protects([rule], 'new.py')).toBe(true)
    expect(protects([rule], 'calc.py', true)).toBe(false)
    expect(protects([rule], 'src/deep/new.ts')).toBe(false)
  })
})
