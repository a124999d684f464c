// The whole delivery half with real parts: a work tree as actions/checkout v6 leaves it (shallow, token
// persisted through RUNNER_TEMP) cloned from a private repository served by git http-backend; the real loop
// engine committing each iteration of a scripted agent that hunts for the token; the push; the pull request
// on the OpenAPI-checked GitHub stand-in, which reads branches from the same bare repository. Then a second
// run on the same issue continues the branch and updates the pull request.
import { chmodSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { getOctokit } from '@actions/github'
import {
  configureIdentity,
  hasDiff,
  prepareBranch,
  pushBranch,
  withoutPersistedCredentials
} from '../../src/git/index.js'
import { openOrUpdatePullRequest } from '../../src/github/pulls.js'
import { loopConfig, runLoop, taskRalph } from '../../src/loop/index.js'
import { tempDir } from '../git/temp-repo.js'
import { startGitHubApi, type GitHubApi } from '../support/github-api/index.js'
import { checkout, type Checkout } from './checkout.js'
import { startGitServer, WRITE_TOKEN, type GitServer } from '../support/git-server.js'
import { PULL_REQUEST_MARKER } from '../../src/report/pr-body.js'

const BASE64 = Buffer.from(`x-access-token:${WRITE_TOKEN}`).toString('base64')

let server: GitServer
let api: GitHubApi
const checkouts: Checkout[] = []
const scratchDirs: string[] = []
const savedRunnerTemp = process.env.RUNNER_TEMP

beforeEach(async () => {
  server = await startGitServer({ private: true })
  server.commitOnRemote('main', { 'README.md': 'hello\n' }, 'start')
  api = await startGitHubApi({
    owner: 'acme',
    repo: 'widgets',
    gitDir: server.bareDir,
    serverUrl: server.url
  })
})
afterEach(async () => {
  if (savedRunnerTemp === undefined) delete process.env.RUNNER_TEMP
  else process.env.RUNNER_TEMP = savedRunnerTemp
  for (const c of checkouts.splice(0)) c.cleanup()
  for (const dir of scratchDirs.splice(0)) rmSync(dir, { recursive: true, force: true })
  await api.close()
  await server.close()
})

function scratch(prefix: string): string {
  const dir = tempDir(prefix)
  scratchDirs.push(dir)
  return dir
}

/** One job: checkout, branch, loop with the credentials away, push, pull request. */
async function job(tools: string, runNumber: number) {
  const work = await checkout(server, { token: WRITE_TOKEN, version: 'v6', depth: 1 })
  checkouts.push(work)
  process.env.RUNNER_TEMP = work.runnerTemp
  const configBefore = readFileSync(path.join(work.dir, '.git', 'config'))

  const prepared = await prepareBranch(work.dir, { branch: 'ralph/issue-5', continueExisting: true, env: {} })
  const identity = await configureIdentity(work.dir)
  const agent = path.join(tools, 'agent.sh')
  const seen = path.join(tools, `seen-${runNumber}.txt`)
  writeFileSync(
    agent,
    `#!/usr/bin/env bash
cat >/dev/null
n=$(( $(cat "${tools}/count" 2>/dev/null || echo 0) + 1 )); echo $n > "${tools}/count"
{
  cat .git/config
  git config --list --show-origin --includes
  ls -la "$RUNNER_TEMP"; cat "$RUNNER_TEMP"/* 2>/dev/null
  grep -r -a -i authorization .git 2>/dev/null
  GIT_TERMINAL_PROMPT=0 git fetch origin 2>&1 && echo FETCH-WORKED
} >> "${seen}" 2>&1
echo "run ${runNumber} iteration $n" > "change-${runNumber}-$n.txt"
if [ "$n" -ge 2 ]; then echo fixed > fixed.txt; fi
`
  )
  chmodSync(agent, 0o755)
  writeFileSync(path.join(tools, 'count'), '0')

  const result = await withoutPersistedCredentials(work.dir, () =>
    runLoop(
      loopConfig({
        ralph: taskRalph({
          agent,
          name: 'issue-5',
          dir: tools,
          checks: [{ name: 'fixed', run: 'test -f fixed.txt', timeout: 30 }]
        }),
        promptText: 'Fix issue 5.',
        projectRoot: work.dir,
        recordDir: path.join(scratch('ralph-record-'), 'record'),
        commit: true,
        maxIterations: 4,
        completionTag: '',
        killGraceMs: 300
      })
    )
  )
  await identity.restore()
  const configAfter = readFileSync(path.join(work.dir, '.git', 'config'))
  const snooped = readFileSync(seen, 'utf8')

  expect(await hasDiff(work.dir, prepared.baseSha)).toBe(true)
  const pushed = await pushBranch(work.dir, {
    branch: prepared.branch,
    token: WRITE_TOKEN,
    serverUrl: server.url,
    repository: server.repository,
    leaseSha: prepared.remoteSha
  })
  const pull = await openOrUpdatePullRequest(getOctokit(WRITE_TOKEN, { baseUrl: api.url }), {
    owner: 'acme',
    repo: 'widgets',
    head: prepared.branch,
    base: prepared.base,
    title: `ralph issue-5: all gates pass (run ${runNumber})`,
    body: `${PULL_REQUEST_MARKER}\nCloses #5\n\nRun ${runNumber}: ${result.iterations.length} iterations.`,
    labels: ['ralph'],
    ownedBy: { kind: 'app', login: 'github-actions[bot]' },
    retry: { baseDelayMs: 1 }
  })
  return { work, prepared, result, configBefore, configAfter, snooped, pushed, pull }
}

test('a run delivers a PR without the agent ever seeing the token; a second run on the issue continues the branch and updates the PR', async () => {
  api.state.failures.unresolvedNodeAfterCreate = { labels: 1, reviewers: 0 }
  const tools = scratch('ralph-tools-')

  const first = await job(tools, 1)
  expect(first.prepared).toMatchObject({ continued: false, remoteSha: null, base: 'main' })
  expect(first.result.stopReason).toBe('all_checks_passed')
  expect(first.result.iterations).toHaveLength(2)
  // The agent looked everywhere and found nothing; its fetch of the private repository was refused.
  expect(first.snooped).not.toContain(WRITE_TOKEN)
  expect(first.snooped).not.toContain(BASE64)
  expect(first.snooped.toLowerCase()).not.toContain('authorization')
  expect(first.snooped).not.toContain('FETCH-WORKED')
  expect(first.snooped).toMatch(/could not read Username/)
  // And, the identity put back too, the runner's git config is byte for byte as the checkout left it.
  expect(first.configAfter.equals(first.configBefore)).toBe(true)
  expect(first.pushed).toMatchObject({ pushed: true })
  expect(first.pull).toMatchObject({ number: 1, operation: 'created', warnings: [] })
  const log = first.work
    .git('log', '--format=%an <%ae>|%s', `${first.prepared.startSha}..HEAD`)
    .trim()
    .split('\n')
  expect(log).toEqual([
    'github-actions[bot] <41898282+github-actions[bot]@users.noreply.github.com>|ralph issue-5: iteration 2',
    'github-actions[bot] <41898282+github-actions[bot]@users.noreply.github.com>|ralph issue-5: iteration 1'
  ])
  expect(server.git('rev-parse', 'refs/heads/ralph/issue-5').trim()).toBe(first.pushed.sha)
  const pr = await getOctokit(WRITE_TOKEN, { baseUrl: api.url }).rest.pulls.get({
    owner: 'acme',
    repo: 'widgets',
    pull_number: 1
  })
  expect(pr.data).toMatchObject({
    head: { ref: 'ralph/issue-5', sha: first.pushed.sha },
    base: { ref: 'main' }
  })
  expect(api.state.pulls[0].labels).toEqual(['ralph'])

  // The base moves on; a second /ralph on the issue continues the branch from where the first run left it.
  server.commitOnRemote('main', { 'other.txt': 'merged meanwhile\n' }, 'someone else merged')
  const second = await job(tools, 2)
  expect(second.prepared).toMatchObject({
    continued: true,
    startSha: first.pushed.sha,
    remoteSha: first.pushed.sha
  })
  expect(second.result.stopReason).toBe('all_checks_passed')
  expect(second.result.iterations).toHaveLength(1)
  expect(second.snooped).not.toContain(WRITE_TOKEN)
  expect(second.pushed).toMatchObject({ pushed: true, forced: false })
  expect(second.pull).toMatchObject({ number: 1, operation: 'updated' })
  expect(api.state.pulls).toHaveLength(1)
  expect(api.state.pulls[0].title).toBe('ralph issue-5: all gates pass (run 2)')
  // The continued branch holds both runs' commits (two, then one: the gate already passes) on top of the first run's start.
  expect(Number(second.work.git('rev-list', '--count', `${first.prepared.startSha}..HEAD`).trim())).toBe(3)

  expect(api.violations).toEqual([])
  expect(api.unimplemented).toEqual([])
  // Every push and fetch that carried a credential came from the action, with the token.
  expect(server.requests.filter(r => r.authorization !== undefined).every(r => r.token === WRITE_TOKEN)).toBe(
    true
  )
})
