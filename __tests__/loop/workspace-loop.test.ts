// The loop's work tree: per-iteration commits that never include the record, and isolated worktree runs.
import { chmodSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { countRuns, harness, type Harness } from './harness.js'

let h: Harness
beforeEach(() => {
  h = harness()
  // The ralph itself is part of the project.
  h.writeRalph('agent: cat', 'placeholder')
})
afterEach(() => h.cleanup())

test('--commit commits what the agent left after each iteration, naming the ralph and iteration, never the record', async () => {
  const agent = h.script(
    'agent.sh',
    `${countRuns(h.tools)}\ncat >/dev/null\necho "change $n" > change-$n.txt`
  )
  h.writeRalph(`agent: ${agent}`, 'Work.')
  h.repo.git('add', '-A')
  h.repo.git('commit', '-q', '-m', 'add ralph')
  const { result } = await h.run({ maxIterations: 3, commit: true })
  expect(result.stopReason).toBe('max_iterations')
  const log = h.repo.git('log', '--format=%s', '-4').trim().split('\n')
  expect(log).toEqual([
    'ralph fixer: iteration 3',
    'ralph fixer: iteration 2',
    'ralph fixer: iteration 1',
    'add ralph'
  ])
  expect(result.iterations.map(it => it.commit?.sha)).toEqual(
    h.repo.git('log', '--format=%H', '-3').trim().split('\n').reverse()
  )
  const files = h.repo.git('ls-tree', '-r', '--name-only', 'HEAD').trim().split('\n')
  expect(files.sort()).toEqual([
    'README.md',
    'change-1.txt',
    'change-2.txt',
    'change-3.txt',
    'ralphs/fixer/RALPH.md'
  ])
  expect(h.repo.git('status', '--porcelain')).toBe('')
  expect(existsSync(path.join(h.record, 'status.json'))).toBe(true)
})

test('--commit with nothing changed makes no commit', async () => {
  const agent = h.script('agent.sh', 'cat >/dev/null')
  h.writeRalph(`agent: ${agent}`, 'Work.')
  h.repo.git('add', '-A')
  h.repo.git('commit', '-q', '-m', 'add ralph')
  const { result } = await h.run({ maxIterations: 2, commit: true })
  expect(result.iterations.map(it => it.commit)).toEqual([{}, {}])
  expect(h.repo.git('log', '--format=%s', '-1').trim()).toBe('add ralph')
})

test('--commit outside a git repository is refused before anything runs', async () => {
  const { tempDir } = await import('../git/temp-repo.js')
  const plain = tempDir()
  await expect(h.run({ projectRoot: plain, commit: true })).rejects.toThrow(/needs a git repository/)
  rmSync(plain, { recursive: true, force: true })
})

test('a worktree run works on its own branch in its own folder and leaves the checkout alone', async () => {
  const agent = h.script(
    'agent.sh',
    `cat > '${h.tools}/prompt'\npwd > '${h.tools}/cwd'\necho done > result.txt`
  )
  h.writeRalph(
    `agent: ${agent}\ncommands:\n  - name: where\n    run: ./where.sh\nchecks:\n  - name: result\n    run: test -f result.txt`,
    'Ralph folder: {{ commands.where }}'
  )
  writeFileSync(path.join(h.ralphDir, 'where.sh'), '#!/usr/bin/env bash\npwd\n')
  chmodSync(path.join(h.ralphDir, 'where.sh'), 0o755)
  h.repo.git('add', '-A')
  h.repo.git('commit', '-q', '-m', 'add ralph')
  const { result } = await h.run({ completionTag: '', commit: true, worktree: { branch: 'ralph/test-run' } })
  expect(result.stopReason).toBe('all_checks_passed')
  expect(result.worktree?.branch).toBe('ralph/test-run')
  const dir = result.worktree?.dir as string
  expect(result.workTree).toBe(dir)
  expect(readFileSync(path.join(h.tools, 'cwd'), 'utf8').trim()).toBe(dir)
  // `./` commands run from the ralph's folder inside the worktree, not in the checkout.
  expect(readFileSync(path.join(h.tools, 'prompt'), 'utf8')).toMatch(
    new RegExp(`^Ralph folder: ${dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/ralphs/fixer\n`)
  )
  expect(existsSync(path.join(dir, 'result.txt'))).toBe(true)
  expect(existsSync(path.join(h.repo.dir, 'result.txt'))).toBe(false)
  expect(h.repo.git('log', '--format=%s', '-1', 'ralph/test-run').trim()).toBe('ralph fixer: iteration 1')
  expect(h.repo.git('log', '--format=%s', '-1', 'main').trim()).toBe('add ralph')
  h.repo.git('worktree', 'remove', '--force', dir)
  rmSync(path.dirname(dir), { recursive: true, force: true })
})

test('--commit that fails (a failing prepare-commit-msg hook) stops the loop with the reason, never "nothing changed"', async () => {
  const agent = h.script('agent.sh', 'cat >/dev/null\necho work > work.txt')
  h.writeRalph(`agent: ${agent}`, 'Work.')
  h.repo.git('add', '-A')
  h.repo.git('commit', '-q', '-m', 'add ralph')
  // `git commit --no-verify` still runs prepare-commit-msg.
  const hook = path.join(h.repo.dir, '.git', 'hooks', 'prepare-commit-msg')
  writeFileSync(hook, '#!/bin/sh\necho "no commits today" >&2\nexit 1\n')
  chmodSync(hook, 0o755)
  const { result } = await h.run({ maxIterations: 3, commit: true })
  expect(result.stopReason).toBe('agent_error')
  expect(result.success).toBe(false)
  expect(result.iterations).toHaveLength(1)
  expect(result.iterations[0].verdict).toBe('crashed')
  expect(result.iterations[0].commit?.error).toMatch(/no commits today/)
  expect(result.stopDetail).toMatch(/^Run crashed: the commit of iteration 1 failed: .*no commits today/)
  expect(h.readRecord('progress.md')).toMatch(/Commit failed: .*no commits today/)
})
