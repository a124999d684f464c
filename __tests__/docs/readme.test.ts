// README's inputs and outputs tables are generated from action.yml (scripts/docs.mjs): they cannot drift.
import { execFileSync, spawnSync } from 'node:child_process'
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { parse } from 'yaml'

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..')
const docs = path.join(repo, 'scripts', 'docs.mjs')
const readme = readFileSync(path.join(repo, 'README.md'), 'utf8')
const action = parse(readFileSync(path.join(repo, 'action.yml'), 'utf8')) as {
  inputs: Record<string, { description: string; default?: string }>
  outputs: Record<string, { description: string }>
}

const between = (marker: string): string => {
  const start = readme.indexOf(`<!-- ${marker}:start -->`)
  const end = readme.indexOf(`<!-- ${marker}:end -->`)
  expect(start).toBeGreaterThan(-1)
  expect(end).toBeGreaterThan(start)
  return readme.slice(start, end)
}

describe('README action tables', () => {
  test('match what action.yml generates (run `npm run docs` after changing action.yml)', () => {
    const result = spawnSync('node', [docs, '--check'], { cwd: repo, encoding: 'utf8' })
    expect(result.stderr).toBe('')
    expect(result.status).toBe(0)
  })

  test('list every input and output action.yml declares, in its order', () => {
    const inputNames = [...between('action-inputs').matchAll(/^\| `([^`]+)` \|/gm)].map(m => m[1])
    const outputNames = [...between('action-outputs').matchAll(/^\| `([^`]+)` \|/gm)].map(m => m[1])
    expect(inputNames).toEqual(Object.keys(action.inputs))
    expect(outputNames).toEqual(Object.keys(action.outputs))
  })

  describe('in a copy', () => {
    let dir: string
    beforeEach(() => {
      dir = mkdtempSync(path.join(tmpdir(), 'ralph-docs-'))
      copyFileSync(path.join(repo, 'README.md'), path.join(dir, 'README.md'))
      copyFileSync(path.join(repo, 'action.yml'), path.join(dir, 'action.yml'))
    })
    afterEach(() => rmSync(dir, { recursive: true, force: true }))

    test('a changed action.yml fails the check, and `npm run docs` brings the README back in line', () => {
      const yml = readFileSync(path.join(dir, 'action.yml'), 'utf8')
      writeFileSync(
        path.join(dir, 'action.yml'),
        yml.replace(/^inputs:\n/m, 'inputs:\n  new-input:\n    description: A | new input.\n    default: x\n')
      )
      const check = spawnSync('node', [docs, '--check', '--root', dir], { encoding: 'utf8' })
      expect(check.status).toBe(1)
      expect(check.stderr).toMatch(/npm run docs/)

      execFileSync('node', [docs, '--root', dir])
      const updated = readFileSync(path.join(dir, 'README.md'), 'utf8')
      expect(updated).toContain('| `new-input` | `x` | no | A \\| new input. |')
      expect(spawnSync('node', [docs, '--check', '--root', dir]).status).toBe(0)
    })

    test('is re-runnable: a second run changes nothing', () => {
      execFileSync('node', [docs, '--root', dir])
      const once = readFileSync(path.join(dir, 'README.md'), 'utf8')
      execFileSync('node', [docs, '--root', dir])
      expect(readFileSync(path.join(dir, 'README.md'), 'utf8')).toBe(once)
    })
  })
})
