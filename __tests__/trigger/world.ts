// A world for trigger tests: the OpenAPI-checked GitHub stand-in driven by the real Octokit, a project with
// installed ralphs in a real git repo, scripted tools outside it, and `execute(plan)`, which does what
// the action (action/plan-run.ts) does with an admission: run the real loop (task delivered as data), post the refusal, or nothing.
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync, chmodSync } from 'node:fs'
import path from 'node:path'
import { afterEach, beforeEach } from '@jest/globals'
import { getOctokit } from '@actions/github'
import { loadRalph } from '../../src/ralph/index.js'
import { loopConfig, runLoop, type LoopResult } from '../../src/loop/index.js'
import { deliverTask } from '../../src/trigger/sanitize.js'
import { taskArgs } from '../../src/trigger/fix-rounds.js'
import { admitEvent } from '../../src/trigger/admission.js'
import type { Admission, TriggerSettings } from '../../src/trigger/types.js'
import { acknowledge, postRefusal } from '../../src/github/tracking.js'
import type { Octokit } from '../../src/github/client.js'
import { startGitHubApi, type GitHubApi } from '../support/github-api/index.js'
import { tempDir, tempRepo, type TempRepo } from '../git/temp-repo.js'

export const TOKEN = 'ghs_actions_token'

export interface World {
  api: GitHubApi
  octokit: Octokit
  repo: TempRepo
  /** Outside the repo: the scripted agent, the argv printer, their outputs, and where `pwned` would land. */
  tools: string
  settings: TriggerSettings
  plan(eventName: string, payload: unknown, overrides?: Partial<TriggerSettings>): Promise<Admission>
  /** What the action does with an admission; answers the loop's result when one ran. */
  execute(plan: Admission): Promise<LoopResult | undefined>
  /** The prompts the scripted agent was given, in order. */
  prompts(): string[]
  /** What the `echo` ralph's command received, one argv entry per element. */
  echoedArgv(): string[][]
  agentRan(): boolean
  /** Files that text which got executed would have created. */
  pwned(): string[]
  /** Every check a test must end with: nothing the real API would have refused, nothing unimplemented. */
  expectClean(): void
  close(): Promise<void>
}

/**
 * Ralphs installed in the project: `echo` (its command prints each argv entry of `{{ args.focus }}` and
 * `{{ args.task }}` on its own line; its body uses `{{ args.task }}`), `fix-tests`, and a folder whose
 * name is not a ralph name.
 */
export async function world(): Promise<World> {
  const api = await startGitHubApi({ owner: 'acme', repo: 'widgets' })
  const octokit = getOctokit(TOKEN, { baseUrl: api.url }) as Octokit
  const repo = tempRepo()
  const tools = tempDir('ralph-trigger-tools-')
  const script = (name: string, body: string): string => {
    const file = path.join(tools, name)
    writeFileSync(file, `#!/usr/bin/env bash\n${body}\n`)
    chmodSync(file, 0o755)
    return file
  }
  const agent = script(
    'agent.sh',
    `n=$(ls '${tools}'/prompt-*.md 2>/dev/null | wc -l); cat > '${tools}'/prompt-$((n + 1)).md; touch '${tools}/agent-ran'`
  )
  const argv = script(
    'argv.sh',
    `n=$(ls '${tools}'/argv-*.json 2>/dev/null | wc -l); node -e 'console.log(JSON.stringify(process.argv.slice(1)))' -- "$@" > '${tools}'/argv-$((n + 1)).json; echo "argv: $#"`
  )
  repo.write(
    '.agents/ralphs/echo/RALPH.md',
    [
      '---',
      `agent: ${agent}`,
      'args: [focus]',
      'commands:',
      '  - name: echo',
      `    run: ${argv} {{ args.focus }} {{ args.task }}`,
      '  - name: x',
      '    run: echo SECRET-COMMAND-OUTPUT',
      '---',
      'Focus: {{ args.focus }}',
      '',
      '{{ args.task }}',
      '',
      'The command said: {{ commands.echo }}',
      ''
    ].join('\n')
  )
  repo.write(
    '.agents/ralphs/fix-tests/RALPH.md',
    `---\nagent: ${agent}\n---\nFix the tests.\n{{ args.task }}\n`
  )
  repo.write('.agents/ralphs/has space/RALPH.md', `---\nagent: ${agent}\n---\nx\n`)
  repo.git('add', '-A')
  repo.git('commit', '-q', '-m', 'ralphs')

  let runs = 0
  const settings: TriggerSettings = {
    owner: 'acme',
    repo: 'widgets',
    projectRoot: repo.dir,
    allowedBots: ['trusted-app[bot]']
  }
  const w: World = {
    api,
    octokit,
    repo,
    tools,
    settings,
    plan: (eventName, payload, overrides = {}) =>
      admitEvent({ eventName, payload }, { ...settings, ...overrides }, octokit),
    async execute(plan) {
      if (plan.kind === 'skip') return undefined
      if (plan.kind === 'refuse') {
        if (plan.reply && plan.issueNumber !== undefined)
          await postRefusal(
            octokit,
            { owner: 'acme', repo: 'widgets', issueNumber: plan.issueNumber },
            plan.reply
          )
        return undefined
      }
      if (plan.issueNumber !== undefined)
        await acknowledge(octokit, {
          owner: 'acme',
          repo: 'widgets',
          issueNumber: plan.issueNumber,
          ...(plan.commentId !== undefined ? { commentId: plan.commentId } : {})
        })
      const delivery = deliverTask(plan.task, { file: path.join(tools, 'task.md'), source: plan.taskSource })
      const ralph = loadRalph(path.join(plan.ralph ?? '', 'RALPH.md'), {
        cwd: repo.dir,
        skipAgentLookup: true
      })
      return runLoop(
        loopConfig({
          ralph,
          projectRoot: repo.dir,
          recordDir: path.join(tools, `record-${++runs}`),
          // The comment's args, then the action's own (the grammar refuses a comment that sets them): the task,
          // or a review round's review, under the names the ralph places it with.
          userArgs: { ...plan.args, ...taskArgs(plan, delivery) },
          maxIterations: 1,
          killGraceMs: 300
        })
      )
    },
    prompts: () =>
      readdirSync(tools)
        .filter(f => /^prompt-\d+\.md$/.test(f))
        .sort()
        .map(f => readFileSync(path.join(tools, f), 'utf8')),
    echoedArgv: () =>
      readdirSync(tools)
        .filter(f => /^argv-\d+\.json$/.test(f))
        .sort()
        .map(f => JSON.parse(readFileSync(path.join(tools, f), 'utf8')) as string[]),
    agentRan: () => existsSync(path.join(tools, 'agent-ran')),
    pwned: () =>
      [repo.dir, tools, path.join(repo.dir, '.agents/ralphs/echo')].flatMap(dir =>
        readdirSync(dir)
          .filter(f => f.startsWith('pwned'))
          .map(f => path.join(dir, f))
      ),
    expectClean() {
      expect(api.violations).toEqual([])
      expect(api.unimplemented).toEqual([])
      expect(api.responseProblems).toEqual([])
    },
    async close() {
      await api.close()
      repo.cleanup()
      rmSync(tools, { recursive: true, force: true })
    }
  }
  return w
}

/** Shell that would create `<dir>/pwned-<n>` if anything ever ran it. */
/**
 * A fresh world around each test of the file (or describe block) it is called in: made before each, `setup`
 * run on it, checked clean and closed after each. The answer stands for the current test's world.
 */
export function useWorld(setup?: (w: World) => void): World {
  let current: World | undefined
  beforeEach(async () => {
    current = await world()
    setup?.(current)
  })
  afterEach(async () => {
    const w = current as World
    w.expectClean()
    await w.close()
  })
  return new Proxy({} as World, {
    get(_, key) {
      if (!current) throw new Error('the world is made before each test: read it inside one')
      const value: unknown = Reflect.get(current, key)
      return typeof value === 'function' ? value.bind(current) : value
    }
  })
}

export const payloads = (dir: string): string[] => [
  `$(touch ${dir}/pwned-1)`,
  `\`touch ${dir}/pwned-2\``,
  `; touch ${dir}/pwned-3`,
  `&& touch ${dir}/pwned-4`,
  `| touch ${dir}/pwned-5`,
  `'; touch ${dir}/pwned-6; echo '`,
  `"; touch ${dir}/pwned-7; echo "`,
  `\n touch ${dir}/pwned-8`
]
