// The action run as the runner runs it, where delivery meets the world as it is: a base that moved on, a
// detached HEAD, shallow and full clones, a push GitHub refuses for a workflow file, a repository that
// forbids Actions to open pull requests, a task too long for a pull request body, on-failure: draft-pr,
// an issue that started the run, and an agent hunting for the GitHub token.
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { expect, test } from '@jest/globals'
import { DONE, FIX, RALPH_DIR, WRONG_FIX, agentScript, projectFiles } from './fixtures.js'
import { GITHUB_TOKEN, alive as isAlive, runAction, type Project } from './harness.js'
import { e2eSuite } from './suite.js'

const e2e = e2eSuite()
const { project, expectClean } = e2e

const fixAtOnce = agentScript({ any: `${FIX}\n${DONE}` })

/** Whether `ancestor` is in the history of `ref` in the remote. */
function isAncestor(p: Project, ancestor: string, ref: string): boolean {
  try {
    p.remoteGit('merge-base', '--is-ancestor', ancestor, ref)
    return true
  } catch {
    return false
  }
}

test('a base that moved on since the checkout: the branch starts from the new tip and the PR targets it', async () => {
  const p = await project(projectFiles(fixAtOnce))
  const moved = p.pushToRemote('main', { 'NEWS.md': 'Someone else pushed.\n' }, 'Meanwhile on main')
  const run = await runAction(p, e2e.stand(), { inputs: { ralph: 'fix-tests' } })
  expect(run.main.exitCode).toBe(0)
  expect(run.main.stdout).toContain("'main' moved on since the checkout")
  expect(isAncestor(p, moved, 'refs/heads/ralph/fix-tests')).toBe(true)
  expect(p.remoteGit('show', 'ralph/fix-tests:NEWS.md')).toBe('Someone else pushed.\n')
  expect(p.api.state.pulls).toMatchObject([{ head: 'ralph/fix-tests', base: 'main' }])
  expectClean(p)
})

test('a detached HEAD (checkout of a sha): the base is the branch the workflow ran for', async () => {
  const p = await project(projectFiles(fixAtOnce), { detached: true })
  expect(() => p.git('symbolic-ref', '-q', 'HEAD')).toThrow()
  const run = await runAction(p, e2e.stand(), { inputs: { ralph: 'fix-tests' } })
  expect(run.main.exitCode).toBe(0)
  expect(p.api.state.pulls).toMatchObject([{ head: 'ralph/fix-tests', base: 'main' }])
  // The checkout is left as it was found: detached at the same commit.
  expect(() => p.git('symbolic-ref', '-q', 'HEAD')).toThrow()
  expectClean(p)
})

test('a shallow clone (fetch-depth 1) of a long history and a full clone (fetch-depth 0) both deliver', async () => {
  for (const depth of [1, 0]) {
    const p = await project(projectFiles(fixAtOnce), { depth, history: 6 })
    expect(p.git('rev-parse', '--is-shallow-repository').trim()).toBe(depth === 1 ? 'true' : 'false')
    const run = await runAction(p, e2e.stand(), { inputs: { ralph: 'fix-tests' } })
    expect(run.main.exitCode).toBe(0)
    expect(run.outputs['pr-operation']).toBe('created')
    // The pushed branch sits on main's full history (the remote's), one commit ahead.
    expect(p.remoteGit('rev-list', '--count', 'main..ralph/fix-tests').trim()).toBe('1')
    expect(p.remoteGit('rev-list', '--count', 'ralph/fix-tests').trim()).toBe('7')
    expectClean(p)
  }
})

test('a workflow-file change GitHub refuses to push: the step fails with the fix, the patch is in the summary and the record', async () => {
  const p = await project(
    projectFiles(
      agentScript({
        any: [
          FIX,
          "fs.mkdirSync('.github/workflows', { recursive: true })",
          "fs.writeFileSync('.github/workflows/ci.yml', 'on: push\\njobs: {}\\n')",
          DONE
        ].join('\n')
      })
    )
  )
  // GitHub's refusal, as a pre-receive hook on the remote says it.
  const hook = path.join(p.remote, 'hooks', 'pre-receive')
  writeFileSync(
    hook,
    [
      '#!/bin/sh',
      'while read old new ref; do',
      '  if git diff --name-only refs/heads/main "$new" | grep -q "^.github/workflows/"; then',
      '    file=$(git diff --name-only refs/heads/main "$new" | grep "^.github/workflows/" | head -1)',
      '    echo "refusing to allow a GitHub App to create or update workflow \\`$file\\` without \\`workflows\\` permission" >&2',
      '    exit 1',
      '  fi',
      'done',
      ''
    ].join('\n')
  )
  chmodSync(hook, 0o755)
  // protected-paths auto puts a new workflow file back before the commit (protected-paths.e2e.test.ts): this is
  // the refusal GitHub gives when protection is off.
  const run = await runAction(p, e2e.stand(), { inputs: { ralph: 'fix-tests', 'protected-paths': 'none' } })
  expect(run.main.exitCode).toBe(1)
  const failure = run.main.errors.at(-1)?.message ?? ''
  expect(failure).toMatch(/^Every gate passed, but the work was not delivered: GitHub refused the push/)
  expect(failure).toContain('.github/workflows/ci.yml')
  expect(failure).toContain('Workflows: read and write')
  expect(run.outputs).toMatchObject({ success: 'true', 'pr-operation': 'none' })
  expect(p.remoteGit('branch', '--list', 'ralph/*').trim()).toBe('')
  expect(p.api.state.pulls).toEqual([])
  expect(run.summary).toContain('The work as a patch')
  expect(run.summary).toContain('diff --git a/.github/workflows/ci.yml b/.github/workflows/ci.yml')
  const artifact = e2e
    .stand()
    .artifacts.listArtifacts()
    .find(a => String(a.id) === run.outputs['artifact-id'])
  const files = await e2e.stand().artifacts.downloadArtifact(artifact!.name)
  expect(files.get('ralph.patch')?.toString('utf8')).toContain('+++ b/.github/workflows/ci.yml')
  expectClean(p)
})

test('Actions may not open pull requests here, and the token may not read that setting: the branch is pushed, the step fails and says which setting to change', async () => {
  const p = await project(projectFiles(fixAtOnce))
  p.api.state.failures.actionsCannotCreatePullRequests = true
  // Before any agent ran the setting could not be read (a fine-grained token without Administration: read).
  p.api.state.settingsUnreadable.add(GITHUB_TOKEN)
  const run = await runAction(p, e2e.stand(), { inputs: { ralph: 'fix-tests' } })
  expect(run.main.stdout).toContain(
    'Whether GitHub Actions may create pull requests in octo-org/octo-repo is not known (HTTP 403: the token may not read'
  )
  expect(run.main.exitCode).toBe(1)
  const failure = run.main.errors.at(-1)?.message ?? ''
  expect(failure).toContain('GitHub Actions is not permitted to create pull requests in octo-org/octo-repo')
  expect(failure).toContain('Allow GitHub Actions to create and approve pull requests')
  expect(run.outputs).toMatchObject({ success: 'true', 'pr-operation': 'none', 'pr-number': '' })
  expect(p.remoteGit('rev-parse', 'refs/heads/ralph/fix-tests').trim()).toBe(run.outputs.commit)
  expect(p.api.state.pulls).toEqual([])
  expect(run.summary).toContain('> [!WARNING]')
  expectClean(p)
})

test('a task far longer than a pull request body may be: the PR is opened with the task cut and a note', async () => {
  const task = `Fix calc.js so that add returns the sum.\n\n${'Some very long context. '.repeat(4_000)}`
  const p = await project(projectFiles(agentScript({ any: `${FIX}\n${DONE}` })))
  const run = await runAction(p, e2e.stand(), {
    inputs: {
      prompt: task,
      agent: `node ${RALPH_DIR}/agent.mjs`,
      checks: 'node --test --test-reporter=spec'
    }
  })
  expect(run.main.exitCode).toBe(0)
  expect(task.length).toBeGreaterThan(65_536)
  const [pr] = p.api.state.pulls
  expect(pr.title).toBe(
    `ralph ${run.outputs.branch.slice('ralph/'.length)}: Fix calc.js so that add returns the sum.`
  )
  expect(pr.body!.length).toBeLessThanOrEqual(65_536)
  expect(pr.body).toContain('The task is cut here')
  expect(pr.body).toContain('### Iterations')
  expect(run.outputs.branch).toMatch(/^ralph\/task-[0-9a-f]{8}$/)
  expectClean(p)
})

test('on-failure: draft-pr pushes the unfinished work and opens a draft that says the gates failed', async () => {
  const p = await project(projectFiles(agentScript({ any: WRONG_FIX })))
  const run = await runAction(p, e2e.stand(), {
    inputs: {
      ralph: 'fix-tests',
      'max-iterations': '1',
      'on-failure': 'draft-pr',
      labels: 'ralph, needs-human'
    }
  })
  expect(run.main.exitCode).toBe(1)
  expect(run.outputs).toMatchObject({ success: 'false', 'pr-operation': 'created' })
  const [pr] = p.api.state.pulls
  expect(pr).toMatchObject({ draft: true, labels: ['ralph', 'needs-human'] })
  expect(pr.title).toMatch(/^\[gates failing\] ralph fix-tests/)
  expect(pr.body).toContain('The gates did not pass (max_iterations')
  expectClean(p)
})

test('started from an issue: the branch is ralph/issue-N and the pull request closes the issue', async () => {
  const p = await project(projectFiles(fixAtOnce))
  const issue = p.api.state.addIssue({ title: 'add() subtracts', body: 'It should add.', user: 'octo-org' })
  // Labelling is a request: the one who labels needs write access (the trigger's actor check).
  p.api.state.addUser('maintainer', { role: 'write' })
  const run = await runAction(p, e2e.stand(), {
    inputs: { ralph: 'fix-tests' },
    eventName: 'issues',
    event: p.api.events.issues(issue.number, 'labeled', { label: 'ralph', sender: 'maintainer' })
  })
  expect(run.main.exitCode).toBe(0)
  expect(run.outputs.branch).toBe(`ralph/issue-${issue.number}`)
  expect(p.api.state.pulls[0].body).toContain(`Closes #${issue.number}`)
  expectClean(p)
})

test('what the agent leaves running (setsid, re-parented out of its tree) is killed before the push', async () => {
  const pidFile = path.join(e2e.scratch(), 'stray.pid')
  const stray = [
    "import { spawn } from 'node:child_process'",
    // A double fork: the sleeper's parent exits at once, so it belongs to no tree of ours.
    "const code = \"const c = require('child_process').spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { detached: true, stdio: 'ignore' }); require('fs').writeFileSync(process.argv[1], String(c.pid)); c.unref()\"",
    `const middle = spawn(process.execPath, ['-e', code, ${JSON.stringify(pidFile)}], { detached: true, stdio: 'ignore' })`,
    // On with the work once the middle process has exited (the sleeper's pid file is written before it
    // does), however slow the machine: the sleeper is then the only process left, re-parented away.
    "await new Promise(r => middle.once('exit', r))",
    `if (!fs.existsSync(${JSON.stringify(pidFile)})) throw new Error('no pid file')`,
    FIX,
    DONE
  ].join('\n')
  const p = await project(projectFiles(agentScript({ any: stray })))
  let aliveAtPush: boolean | undefined
  p.gitServer.onPush = () => (aliveAtPush ??= isAlive(Number(readFileSync(pidFile, 'utf8'))))
  const run = await runAction(p, e2e.stand(), { inputs: { ralph: 'fix-tests' } })
  expect(run.main.exitCode).toBe(0)
  const pid = Number(readFileSync(pidFile, 'utf8'))
  expect(pid).toBeGreaterThan(1)
  // Dead when the push arrived, not just afterwards.
  expect(aliveAtPush).toBe(false)
  // Running: it has a /proc entry and is not a zombie (killed, waiting for init to reap it).
  const alive = (): boolean => {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
      return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z'
    } catch {
      return false
    }
  }
  expect(alive()).toBe(false)
  expect(run.main.commands.filter(c => c.command === 'warning').map(c => c.message)).toContainEqual(
    expect.stringMatching(
      new RegExp(`^Killed 1 process the loop left running \\(pid ${pid}\\) before delivering`)
    )
  )
  expect(run.outputs['pr-operation']).toBe('created')
  expectClean(p)
})

test("the agent cannot read the GitHub token: not in its environment, its ancestors' /proc environ, .git/config or the runner temp", async () => {
  const report = path.join(e2e.scratch(), 'token-hunt.json')
  const hookDump = path.join(e2e.scratch(), 'hook-env.txt')
  const hunt = [
    "import { execFileSync } from 'node:child_process'",
    "import path from 'node:path'",
    `const token = ${JSON.stringify(GITHUB_TOKEN)}`,
    "const basic = Buffer.from('x-access-token:' + token).toString('base64')",
    'const found = []',
    'const holds = text => text.includes(token) || text.includes(basic)',
    'for (const [k, v] of Object.entries(process.env)) {',
    "  if (/TOKEN|^INPUT_|^ACTIONS_RUNTIME|^ACTIONS_RESULTS|^ACTIONS_ID_TOKEN|^STATE_/.test(k)) found.push('env name ' + k)",
    "  if (holds(v ?? '')) found.push('env value ' + k)",
    '}',
    "if (holds(fs.readFileSync('/proc/self/environ', 'latin1'))) found.push('/proc/self/environ')",
    // Linux shows any process of the same user the environment its ancestors were started with.
    'for (let pid = process.ppid; pid > 1; ) {',
    "  let environ = ''",
    "  try { environ = fs.readFileSync('/proc/' + pid + '/environ', 'latin1') } catch {}",
    "  if (holds(environ) || /(^|\\0)(INPUT_GITHUB-TOKEN|ACTIONS_RUNTIME_TOKEN)=[^\\0]/.test(environ)) found.push('/proc/' + pid + '/environ')",
    "  const stat = fs.readFileSync('/proc/' + pid + '/stat', 'utf8')",
    "  pid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])",
    '}',
    "if (holds(fs.readFileSync('.git/config', 'utf8'))) found.push('.git/config')",
    "let config = ''",
    "try { config = execFileSync('git', ['config', '--list', '--show-origin', '--includes'], { encoding: 'utf8' }) } catch {}",
    "if (holds(config) || /extraheader/i.test(config)) found.push('git config')",
    'const walk = dir => { let entries = []; try { entries = fs.readdirSync(dir, { withFileTypes: true }) } catch {}; for (const e of entries) {',
    '  const full = path.join(dir, e.name)',
    '  if (e.isDirectory()) walk(full)',
    "  else if (e.isFile()) { try { if (holds(fs.readFileSync(full, 'latin1'))) found.push('file ' + full) } catch {} }",
    '} }',
    'walk(process.env.RUNNER_TEMP)',
    `fs.writeFileSync(${JSON.stringify(report)}, JSON.stringify(found))`,
    // Hooks the action's own git commands would run after the agent: the loop's commit, the checkout back
    // (its own user may not write .git; as the job's user it may, and the action's git runs no hook).
    "for (const hook of ['post-commit', 'post-checkout', 'reference-transaction'])",
    `  try { fs.writeFileSync('.git/hooks/' + hook, '#!/bin/sh\\nenv >> ${hookDump}\\n', { mode: 0o755 }) } catch {}`,
    FIX,
    DONE
  ].join('\n')
  const p = await project(projectFiles(agentScript({ any: hunt })))
  // Workflows often hand the token to steps through the job's environment too.
  const run = await runAction(p, e2e.stand(), {
    inputs: { ralph: 'fix-tests' },
    env: { GITHUB_TOKEN, GH_TOKEN: GITHUB_TOKEN, ACTIONS_ID_TOKEN_REQUEST_TOKEN: 'oidc-request-token' }
  })
  expect(run.main.exitCode).toBe(0)
  expect(JSON.parse(readFileSync(report, 'utf8'))).toEqual([])
  // No planted hook ran: the action's git runs none (and its own user could not plant them).
  expect(existsSync(hookDump)).toBe(false)
  // The credential is back for the job's later steps (and actions/checkout's own cleanup).
  expect(p.git('config', '--includes', '--get-regexp', 'extraheader')).toContain('AUTHORIZATION: basic')
  expect(run.outputs['pr-operation']).toBe('created')
  expectClean(p)
})
