// scrubInitialEnvironment, in a process started with a secret: afterwards a child reading its parent's
// /proc/<pid>/environ finds no value, while the parent still has the variable (and passes it on when asked).
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import ts from 'typescript'
import { afterAll, beforeAll, expect, test } from '@jest/globals'

const linux = process.platform === 'linux'
let dir: string

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'ralph-environ-'))
  // The module as plain JavaScript, for a fresh node process whose initial environment holds the secret.
  const source = readFileSync(path.join(import.meta.dirname, '../../src/proc/environ.ts'), 'utf8')
  const js = ts.transpileModule(source, {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 }
  }).outputText
  writeFileSync(path.join(dir, 'environ.mjs'), js)
  writeFileSync(
    path.join(dir, 'probe.mjs'),
    [
      "import { execFileSync } from 'node:child_process'",
      "import { scrubInitialEnvironment } from './environ.mjs'",
      "const read = () => execFileSync('cat', ['/proc/' + process.pid + '/environ'], { env: {} }).toString('latin1')",
      'const before = read()',
      "const result = scrubInitialEnvironment(name => name === 'RALPH_SECRET' || name === 'INPUT_GITHUB-TOKEN')",
      'const after = read()',
      "const child = execFileSync('sh', ['-c', 'printf %s \"$RALPH_SECRET\"']).toString()",
      'console.log(JSON.stringify({ result, before, after, live: process.env.RALPH_SECRET,',
      "  input: process.env['INPUT_GITHUB-TOKEN'], child, path: process.env.PATH }))"
    ].join('\n')
  )
})

afterAll(() => rmSync(dir, { recursive: true, force: true }))

function probe(): {
  result: { scrubbed: string[]; skipped?: string }
  before: string
  after: string
  live: string
  input: string
  child: string
  path: string
} {
  const out = execFileSync(process.execPath, [path.join(dir, 'probe.mjs')], {
    cwd: dir,
    env: {
      PATH: process.env.PATH,
      RALPH_SECRET: 'sekrit-value-1234',
      'INPUT_GITHUB-TOKEN': 'ghs_notreallyatoken',
      RALPH_PLAIN: 'plain-value'
    }
  })
  return JSON.parse(out.toString())
}

;(linux ? test : test.skip)('the values leave /proc/<pid>/environ; the process keeps its variables', () => {
  const seen = probe()
  expect(seen.result).toEqual({ scrubbed: expect.arrayContaining(['RALPH_SECRET', 'INPUT_GITHUB-TOKEN']) })
  expect(seen.before).toContain('RALPH_SECRET=sekrit-value-1234')
  expect(seen.after).not.toContain('sekrit-value-1234')
  expect(seen.after).not.toContain('ghs_notreallyatoken')
  // Other variables are untouched, names stay (with empty values), and the block keeps its size.
  expect(seen.after).toContain('RALPH_PLAIN=plain-value')
  expect(seen.after).toContain('RALPH_SECRET=\0')
  expect(seen.after.length).toBe(seen.before.length)
  // The process still has its variables, and its children inherit them as before.
  expect(seen.live).toBe('sekrit-value-1234')
  expect(seen.input).toBe('ghs_notreallyatoken')
  expect(seen.child).toBe('sekrit-value-1234')
  expect(seen.path).toBe(process.env.PATH)
})
