// Every example in README.md and docs/ is checked against the code it shows: a workflow uses only inputs
// action.yml declares and holds to the rules the example workflows do; a RALPH.md validates as `ralph-action
// validate` would; a command names a real command, option, npm script or input. The README's examples are
// Getting started's, block for block.
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { parse } from 'yaml'
import { helpFor, HELP } from '../../src/cli/help.js'
import { lintRalph, shlexSplit } from '../../src/ralph/index.js'
import { markdownPages, readPage, REPO, type CodeBlock } from './markdown.js'

type Json = Record<string, unknown>
type Step = { uses?: string; with?: Record<string, unknown>; env?: Record<string, unknown> }
type Job = { permissions?: Record<string, string>; 'timeout-minutes'?: number; steps?: Step[] }

// Pages for features being wired: their workflows name inputs action.yml does not have yet (none now).
const COMING: string[] = []
const blocks = markdownPages().flatMap(page => readPage(page).blocks)
const action = parse(readFileSync(path.join(REPO, 'action.yml'), 'utf8')) as { inputs: Json }
const INPUTS = Object.keys(action.inputs)
const SCRIPTS = Object.keys(
  (JSON.parse(readFileSync(path.join(REPO, 'package.json'), 'utf8')) as Json).scripts as Json
)
const where = (block: CodeBlock): string => `${block.page}, under "${block.heading}"`

const isRalph = (block: CodeBlock): boolean => block.lang === 'markdown' && block.text.startsWith('---\n')
const isWorkflow = (block: CodeBlock): boolean =>
  block.lang === 'yaml' && typeof (parse(block.text) as Json | null)?.jobs === 'object'

/** The frontmatter of a RALPH.md block. */
const frontmatter = (block: CodeBlock): Json => parse(block.text.split(/^---$/m)[1]) as Json

describe('every RALPH.md shown', () => {
  const ralphs = blocks.filter(isRalph)
  test('there are some: the README, Getting started and the ralph format show one each', () => {
    expect(new Set(ralphs.map(b => b.page))).toEqual(
      new Set(['README.md', 'docs/getting-started.md', 'docs/ralph-format.md'])
    )
  })

  test.each(ralphs.map(b => [where(b), b] as const))(
    'validates with no problem and no warning: %s',
    (_, block) => {
      const dir = mkdtempSync(path.join(tmpdir(), 'ralph-docs-ralph-'))
      try {
        const file = path.join(dir, 'RALPH.md')
        writeFileSync(file, block.text)
        // The agent's CLI need not be installed here: validate finds it when it is.
        const { problems, warnings } = lintRalph(file, { cwd: dir, skipAgentLookup: true })
        expect([...problems, ...warnings].map(p => `${p.line}:${p.column}: ${p.message}`)).toEqual([])
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    }
  )
})

describe('every workflow shown', () => {
  const workflows = blocks.filter(isWorkflow)
  test('there are some', () => expect(workflows.length).toBeGreaterThanOrEqual(2))

  /** The ralph-action steps of a workflow block, with their job. */
  const actionSteps = (block: CodeBlock): [Job, Step][] =>
    Object.values((parse(block.text) as { jobs: Record<string, Job> }).jobs).flatMap(job =>
      (job.steps ?? [])
        .filter(s => s.uses === './.github/actions/ralph' || /ralph-action@/.test(s.uses ?? ''))
        .map(s => [job, s] as [Job, Step])
    )

  test.each(workflows.map(b => [where(b), b] as const))(
    'uses the action with inputs action.yml declares, a checkout without a token, the least permissions and a job longer than max-time: %s',
    (_, block) => {
      const steps = actionSteps(block)
      expect(steps.length).toBeGreaterThan(0)
      for (const [job, step] of steps) {
        if (!COMING.includes(block.page))
          for (const input of Object.keys(step.with ?? {})) expect(INPUTS).toContain(input)
        for (const checkout of (job.steps ?? []).filter(s => /^actions\/checkout@/.test(s.uses ?? '')))
          expect(checkout.with).toMatchObject({ 'persist-credentials': false })
        for (const scope of Object.keys(job.permissions ?? {}))
          expect(['contents', 'pull-requests', 'issues', 'actions']).toContain(scope)
        const maxTime = String(step.with?.['max-time'] ?? '60')
        const minutes = /h$/.test(maxTime) ? parseFloat(maxTime) * 60 : parseFloat(maxTime)
        // GitHub's default job timeout is 360 minutes.
        expect(job['timeout-minutes'] ?? 360).toBeGreaterThan(minutes)
      }
    }
  )

  test.each(workflows.map(b => [where(b), b] as const))(
    'gives npm gates `setup: npm ci` and, behind the model proxy, a way to the registry: %s',
    (_, block) => {
      // The ralph a workflow names is the one its page shows.
      const ralph = blocks.find(b => b.page === block.page && isRalph(b))
      for (const [, step] of actionSteps(block)) {
        const given = step.with ?? {}
        const ralphKeys = given.ralph !== undefined && ralph ? frontmatter(ralph) : {}
        const gates = [
          String(given.checks ?? ''),
          ...((ralphKeys.checks as { run: string }[] | undefined) ?? []).map(c => c.run)
        ]
        if (!gates.some(gate => /\b(npm|npx|yarn|pnpm)\b/.test(gate))) continue
        expect(String(given.setup ?? ralphKeys.setup ?? '')).toMatch(/\bnpm (ci|install)\b/)
        const proxied = Object.keys(step.env ?? {}).some(name => /_API_KEY$/.test(name))
        if (proxied && given['model-proxy'] !== false && given['model-proxy'] !== 'false') {
          expect(given['agent-network']).toBe('allow-list')
          expect(String(given['allowed-hosts']).split(/[\s,]+/)).toContain('registry.npmjs.org')
        }
      }
    }
  )
})

/** A block's commands: continued lines joined, comments dropped, `&&` lists split, each as its words. */
function commands(block: CodeBlock): string[][] {
  return block.text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map(line => line.replace(/\s+#\s.*$/, ''))
    .flatMap(line => line.split(/\s&&\s/))
    .map(command => shlexSplit(command))
    .filter(words => words.length > 0)
}

/** The words after the `env` and `NAME=value` that start a command, and those assignments. */
function program(words: string[]): { env: string[]; argv: string[] } {
  const rest = words[0] === 'env' ? words.slice(1) : words
  const at = rest.findIndex(word => !/^[A-Za-z_][A-Za-z0-9_-]*=/.test(word))
  return { env: rest.slice(0, at), argv: rest.slice(at) }
}

/** Where a command's `node …/dist/…` path is in this repository: a vendored copy, a clone, or here. */
const inRepo = (file: string): string => file.replace(/^.*?(dist\/)/, '$1')

/** `ralph-action COMMAND --option…`: the command and every option must be the CLI's. */
function checkCli(argv: string[]): void {
  const [command, ...args] = argv
  expect(helpFor(command)).not.toBe(HELP)
  const end = args.indexOf('--')
  for (const arg of end < 0 ? args : args.slice(0, end))
    if (arg.startsWith('--'))
      expect(helpFor(command)).toMatch(new RegExp(`(^|[\\s,])${arg.split('=')[0]}\\b`, 'm'))
}

describe('every shell command shown', () => {
  const shells = blocks.filter(b => b.lang === 'sh')
  test('there are some', () => expect(shells.length).toBeGreaterThanOrEqual(5))

  test.each(shells.map(b => [where(b), b] as const))(
    'names a real npm script, CLI command and option, bundle and action input: %s',
    (_, block) => {
      for (const words of commands(block)) {
        const { env, argv } = program(words)
        if (argv[0] === 'npm' && argv[1] === 'run') expect(SCRIPTS).toContain(argv[2])
        if (argv[0] === 'ralph-action') checkCli(argv.slice(1))
        if (argv[0] === 'node' && /dist\//.test(argv[1] ?? '')) {
          expect(existsSync(path.join(REPO, inRepo(argv[1])))).toBe(true)
          if (inRepo(argv[1]) === 'dist/cli/index.js') checkCli(argv.slice(2))
          if (inRepo(argv[1]) === 'dist/index.js')
            for (const assignment of env.filter(a => a.startsWith('INPUT_')))
              expect(INPUTS).toContain(
                assignment.slice('INPUT_'.length, assignment.indexOf('=')).toLowerCase()
              )
        }
      }
    }
  )

  test("the CLI's synopsis names only commands and options the CLI has", () => {
    const synopsis = blocks.find(b => b.page === 'docs/cli.md' && b.text.startsWith('ralph-action run '))
    expect(synopsis).toBeDefined()
    const entries = (synopsis as CodeBlock).text.split(/\n(?=ralph-action )/)
    expect(entries.map(entry => entry.split(' ')[1])).toEqual(
      expect.arrayContaining(['run', 'loop', 'prompt', 'validate', 'scaffold', 'list'])
    )
    for (const entry of entries) {
      const [, command] = entry.split(' ')
      const options = entry.replace(/#.*$/gm, '').match(/--[a-z][a-z-]*/g) ?? []
      checkCli([command, ...options])
    }
  })
})

describe('the README', () => {
  const readme = readPage('README.md').blocks
  const gettingStarted = readPage('docs/getting-started.md').blocks

  test("opens with the two commands, then the adopter's path", () => {
    expect(readme[0]).toMatchObject({ lang: 'sh', heading: 'ralph-action' })
    expect(commands(readme[0]).map(words => words.join(' '))).toEqual([
      'npm ci',
      'npm run example',
      'npm ci',
      'npm test'
    ])
    const text = readFileSync(path.join(REPO, 'README.md'), 'utf8')
    expect(text.indexOf('npm ci && npm run example')).toBeLessThan(text.indexOf('\n## '))
    expect(readme[1]).toMatchObject({ heading: 'Use it in your repository' })
    expect(readme[1].text).toMatch(/^mkdir -p \.github\/actions\/ralph\n/)
  })

  // The README's workflow is what a newcomer copies: it must be able to push and open the pull request.
  test('its workflow checks out first, without a token, and may push and open the pull request', () => {
    const workflow = parse(readme.find(b => b.lang === 'yaml')?.text ?? '') as { jobs: Record<string, Job> }
    const [job] = Object.values(workflow.jobs)
    expect(job.steps?.[0]).toMatchObject({
      uses: expect.stringMatching(/^actions\/checkout@/),
      with: { 'persist-credentials': false }
    })
    expect(job.permissions).toEqual({ contents: 'write', 'pull-requests': 'write' })
  })

  test("shows Getting started's examples, block for block: vendoring, the ralph, the workflow, the local trial", () => {
    const shown = readme.slice(1).map(({ lang, text }) => ({ lang, text }))
    expect(shown.map(b => b.lang)).toEqual(['sh', 'markdown', 'yaml', 'sh'])
    expect(gettingStarted.map(({ lang, text }) => ({ lang, text }))).toEqual(expect.arrayContaining(shown))
  })
})
