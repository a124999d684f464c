// docs/reference/inputs.md and outputs.md are generated from action.yml (scripts/docs.mjs): they cannot drift.
import { execFileSync, spawnSync } from 'node:child_process'
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { parse } from 'yaml'

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..')
const docs = path.join(repo, 'scripts', 'docs.mjs')
const page = (file: string, root = repo): string => readFileSync(path.join(root, file), 'utf8')
const action = parse(page('action.yml')) as {
  inputs: Record<string, { description: string; default?: string }>
  outputs: Record<string, { description: string }>
}

type Step = { uses?: string; with?: Record<string, unknown> }

/** The names in a page's table rows, in order: `| \`name\` | …`. */
const rowNames = (text: string): string[] => [...text.matchAll(/^\| `([^`]+)` \|/gm)].map(m => m[1])

/** The page's `## ` sections, each with the names of its table's rows. */
const sections = (text: string): [title: string, names: string[]][] =>
  text
    .split(/^## /m)
    .slice(1)
    .map(section => [section.slice(0, section.indexOf('\n')), rowNames(section)])

describe('the reference pages', () => {
  test('match what action.yml generates (run `npm run docs` after changing action.yml)', () => {
    const result = spawnSync('node', [docs, '--check'], { cwd: repo, encoding: 'utf8' })
    expect(result.stderr).toBe('')
    expect(result.status).toBe(0)
  })

  test('list every input once, grouped, the Advanced ones last, and every output in its order', () => {
    const groups = sections(page('docs/reference/inputs.md'))
    expect(groups.flatMap(([, names]) => names).sort()).toEqual(Object.keys(action.inputs).sort())
    for (const [, names] of groups) expect(names.length).toBeGreaterThan(0)
    const advanced = groups.at(-1) as [string, string[]]
    expect(advanced[0]).toBe('Advanced')
    // What almost nobody needs: a model gateway, the agent's user, the artifact's naming.
    expect(advanced[1]).toEqual(
      expect.arrayContaining(['model-upstream', 'model-ca', 'agent-user', 'artifact-name', 'retention-days'])
    )
    // What a shipped example workflow sets is common by definition.
    const examples = readdirSync(path.join(repo, 'examples', 'workflows')).flatMap(file => {
      const workflow = parse(page(`examples/workflows/${file}`)) as {
        jobs: Record<string, { steps?: Step[] }>
      }
      return Object.values(workflow.jobs).flatMap(job =>
        (job.steps ?? [])
          .filter(s => /ralph-action@/.test(s.uses ?? ''))
          .flatMap(s => Object.keys(s.with ?? {}))
      )
    })
    expect(examples).toEqual(
      expect.arrayContaining(['ralph', 'agent', 'install-agent', 'allowed-hosts', 'mode'])
    )
    expect(examples.filter(input => advanced[1].includes(input))).toEqual([])
    expect(rowNames(page('docs/reference/outputs.md'))).toEqual(Object.keys(action.outputs))
  })

  test('give each input its default and its description, pipes escaped', () => {
    const inputs = page('docs/reference/inputs.md')
    expect(inputs).toContain('| `max-iterations` | `10` | no | The most iterations the loop may run')
    expect(inputs).toContain('| `github-token` | `${{ github.token }}` | no |')
    expect(inputs).toContain('| `ralph` |  | no | The ralph to run:')
  })

  describe('in a copy', () => {
    let dir: string
    beforeEach(() => {
      dir = mkdtempSync(path.join(tmpdir(), 'ralph-docs-'))
      copyFileSync(path.join(repo, 'action.yml'), path.join(dir, 'action.yml'))
      execFileSync('node', [docs, '--root', dir])
    })
    afterEach(() => rmSync(dir, { recursive: true, force: true }))

    const addInput = (name: string) => {
      const yml = page('action.yml', dir)
      writeFileSync(
        path.join(dir, 'action.yml'),
        yml.replace(/^inputs:\n/m, `inputs:\n  ${name}:\n    description: A | new input.\n    default: x\n`)
      )
    }

    test('a changed description fails the check, and `npm run docs` brings the page back in line', () => {
      const yml = page('action.yml', dir)
      writeFileSync(
        path.join(dir, 'action.yml'),
        yml.replace('The most iterations the loop may run', 'The most | iterations the loop may run')
      )
      const check = spawnSync('node', [docs, '--check', '--root', dir], { encoding: 'utf8' })
      expect(check.status).toBe(1)
      expect(check.stderr).toMatch(/docs\/reference\/inputs\.md differ from action\.yml: run `npm run docs`/)

      execFileSync('node', [docs, '--root', dir])
      expect(page('docs/reference/inputs.md', dir)).toContain(
        '| `max-iterations` | `10` | no | The most \\| iterations the loop may run'
      )
      expect(spawnSync('node', [docs, '--check', '--root', dir]).status).toBe(0)
    })

    test('a new input in no group fails both, in one line saying where to add it', () => {
      addInput('new-input')
      for (const args of [['--check'], []]) {
        const result = spawnSync('node', [docs, ...args, '--root', dir], { encoding: 'utf8' })
        expect(result.status).toBe(1)
        expect(result.stderr).toBe(
          "Input 'new-input' of action.yml is in no group: add it to one in scripts/docs.mjs, INPUT_GROUPS.\n"
        )
      }
    })

    test('an input removed from action.yml but still grouped fails, naming it', () => {
      const yml = page('action.yml', dir)
      writeFileSync(path.join(dir, 'action.yml'), yml.replace(/^ {2}draft:\n(?: {4}.*\n)+/m, ''))
      const result = spawnSync('node', [docs, '--root', dir], { encoding: 'utf8' })
      expect(result.status).toBe(1)
      expect(result.stderr).toMatch(
        /^Input 'draft' is in scripts\/docs\.mjs, INPUT_GROUPS but not in action\.yml/
      )
    })

    test('is re-runnable: a second run changes nothing', () => {
      const once = page('docs/reference/inputs.md', dir)
      execFileSync('node', [docs, '--root', dir])
      expect(page('docs/reference/inputs.md', dir)).toBe(once)
    })
  })
})
