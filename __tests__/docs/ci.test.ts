// CI on the project's machine (.ci/run) and on GitHub (.github/workflows/ci.yml) run the same steps, and both
// run the README's test command: what a newcomer types is what CI proves.
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { parse } from 'yaml'

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..')
const read = (file: string): string => readFileSync(path.join(repo, file), 'utf8')

/** The commands of .ci/run, one a line, without comments, echoes and shell plumbing. */
const ciCommands = read('.ci/run')
  .split('\n')
  .map(line => line.trim())
  .filter(line => /^(npm|node|([A-Z_]+=\S+ )+npm)\b/.test(line))

test('.ci/run runs the README test command, the end-to-end and live agent tiers, and the checks before them', () => {
  const firstBlock = /```sh\n([\s\S]*?)```/.exec(read('README.md'))?.[1] ?? ''
  const testLine = firstBlock.split('\n').find(line => line.includes('# the tests')) ?? ''
  const testCommand = testLine.replace(/#.*/, '').split('&&').at(-1)?.trim()
  expect(testCommand).toBe('npm test')
  expect(ciCommands).toEqual([
    'npm ci --no-audit --no-fund',
    'npm run check-dist',
    'npm run typecheck',
    'npm run lint',
    testCommand,
    'REQUIRE_ISOLATION=1 RALPH_FAULT_RUNS=50 npm run test:e2e',
    'REQUIRE_AGENT_CLIS=1 REQUIRE_ISOLATION=1 npm run test:agents'
  ])
})

test("GitHub's CI workflow runs .ci/run itself, so the two cannot drift", () => {
  const workflow = parse(read('.github/workflows/ci.yml')) as {
    jobs: Record<string, { steps: { run?: string }[] }>
  }
  expect(workflow.jobs.test.steps.map(step => step.run).filter(Boolean)).toEqual(['bash .ci/run'])
})
