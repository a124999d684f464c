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

// The README's first workflow is what a newcomer copies: on a JavaScript project it must work as it stands.
describe("README's quick start workflow", () => {
  type Json = Record<string, unknown>
  const block = /^## GitHub Action\n[\s\S]*?```yaml\n([\s\S]*?)```/m.exec(readme)
  const workflow = parse(block?.[1] ?? '') as Json
  const job = Object.values(workflow.jobs as Record<string, Json>)[0]
  const steps = job.steps as Json[]
  const step = steps.find(s => String(s.uses).includes('ralph'))!
  const given = step.with as Record<string, string>

  test('is the first yaml block of the GitHub Action section, with inputs action.yml declares', () => {
    expect(block).not.toBeNull()
    for (const input of Object.keys(given)) expect(Object.keys(action.inputs)).toContain(input)
  })

  test('gives setup npm ci for its npm gate: a clean checkout never has node_modules', () => {
    expect(given.checks).toMatch(/^npm (test|run )/)
    expect(given.setup).toBe('npm ci')
  })

  test('behind the model proxy (the key in its env), lets setup reach the npm registry', () => {
    expect(Object.keys(step.env as Json)).toContain('ANTHROPIC_API_KEY')
    expect(given['model-proxy'] ?? action.inputs['model-proxy'].default).not.toBe('false')
    expect(given['agent-network']).toBe('allow-list')
    expect(given['allowed-hosts'].split(/[\s,]+/)).toContain('registry.npmjs.org')
  })

  test('checks out without a token, and may push and open the pull request', () => {
    expect(steps[0]).toMatchObject({ uses: expect.stringMatching(/^actions\/checkout@/) })
    expect(steps[0].with).toMatchObject({ 'persist-credentials': false })
    expect(job.permissions).toEqual({ contents: 'write', 'pull-requests': 'write' })
  })
})
