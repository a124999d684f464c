// checkHandover, the deliver job's checks of what the agent job hands over, on real repositories: the attacks
// an independent review found getting through (each seen accepted before its fix), and the honest case.
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, expect, test } from '@jest/globals'
import { checkHandover, deliveredResult, type Received } from '../../src/action/handover/receive.js'
import type { Prepared } from '../../src/action/steps/types.js'
import type { LoopResult } from '../../src/loop/index.js'

const made: string[] = []
afterAll(() => made.forEach(dir => rmSync(dir, { recursive: true, force: true })))
const temp = (prefix: string): string => {
  const dir = mkdtempSync(path.join(tmpdir(), prefix))
  made.push(dir)
  return dir
}
const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1' }
  }).trim()

function repo(): string {
  const dir = temp('handover-')
  git(dir, 'init', '-q', '-b', 'main')
  return dir
}
function commit(dir: string, file: string, text: string): string {
  mkdirSync(path.dirname(path.join(dir, file)), { recursive: true })
  writeFileSync(path.join(dir, file), text)
  git(dir, 'add', '-A')
  git(dir, 'commit', '-q', '-m', file)
  return git(dir, 'rev-parse', 'HEAD')
}
const RESULT = { success: true, stopReason: 'all_checks_passed', iterations: [], cost: { totalUsd: 0 } }
const TRIGGER = { event: 'workflow_dispatch', hunt: false }
/** What the agent job hands over: `head` on `start` as a bundle of branch ralph/x made in `from`. */
function received(from: string, start: string, head: string): Received {
  const out = temp('handover-recv-')
  git(from, 'update-ref', 'refs/heads/ralph/x', head)
  git(from, 'bundle', 'create', '-q', path.join(out, 'delivery.bundle'), 'refs/heads/ralph/x', `^${start}`)
  const handover = {
    version: 1 as const,
    repository: 'o/r',
    runId: '1',
    runAttempt: '1',
    ralph: 'x',
    branch: 'ralph/x'
  }
  return {
    dir: out,
    handover: { ...handover, base: 'main', start, head, result: RESULT as never, notes: [], trigger: TRIGGER }
  }
}
/** The deliver job's side: its own repository and the branch it prepared. */
const prepared = (workTree: string, branch: Record<string, unknown>): Prepared =>
  ({
    plan: { inputs: {}, config: {} },
    context: { eventName: 'workflow_dispatch' },
    hunt: false,
    workTree,
    branch: { branch: 'ralph/x', base: 'main', shallow: false, continued: false, remoteSha: null, ...branch }
  }) as never
/** The deliver job's clone of `from`'s main (and more refs). */
function deliverClone(from: string, ...refs: string[]): string {
  const work = repo()
  git(work, 'fetch', '-q', from, 'main:refs/remotes/origin/main', ...refs)
  return work
}

test('the honest delivery, linear on the branch start, passes', async () => {
  const dir = repo()
  const b0 = commit(dir, 'a.txt', '0')
  const head = commit(dir, 'a.txt', 'fixed')
  const work = deliverClone(dir)
  expect(
    await checkHandover(prepared(work, { baseSha: b0, startSha: b0 }), received(dir, b0, head))
  ).toBeUndefined()
})

test("a continued branch: a delivery built on its fork point, not its tip, is refused (it would drop a reviewer's commit)", async () => {
  const dir = repo()
  commit(dir, 'a.txt', '0')
  const b1 = commit(dir, 'a.txt', '1')
  git(dir, 'checkout', '-q', '-b', 'ralph/x')
  const reviewer = commit(dir, 'reviewer.txt', "a reviewer's fix")
  git(dir, 'checkout', '-q', '--detach', b1)
  const evil = commit(dir, 'b.txt', 'drops the reviewer commit')
  const work = deliverClone(dir, 'ralph/x:refs/remotes/origin/ralph/x')
  const problem = await checkHandover(
    prepared(work, { baseSha: b1, startSha: reviewer, remoteSha: reviewer, continued: true }),
    received(dir, b1, evil)
  )
  expect(problem).toMatch(/is built on [0-9a-f]{12}, not on [0-9a-f]{12}, the tip of ralph\/x it continues/)
})

test('a tree naming ".." is refused by the strict unbundling (git fetch of a bundle let it in)', async () => {
  const dir = repo()
  const b0 = commit(dir, 'a.txt', '0')
  const blob = git(dir, 'hash-object', '-w', '--stdin', '--path', 'x')
  const bin = Buffer.from(blob, 'hex')
  writeFileSync(path.join(dir, 'tree.raw'), Buffer.concat([Buffer.from('100644 ..\0'), bin]))
  const tree = git(dir, 'hash-object', '-t', 'tree', '-w', '--literally', 'tree.raw')
  const evil = git(dir, 'commit-tree', tree, '-p', b0, '-m', 'evil')
  const work = deliverClone(dir)
  const problem = await checkHandover(prepared(work, { baseSha: b0, startSha: b0 }), received(dir, b0, evil))
  expect(problem).toMatch(/^the delivery's bundle was refused by git: /)
  expect(git(work, 'cat-file', '-t', b0)).toBe('commit')
  expect(() => git(work, 'cat-file', '-t', evil)).toThrow()
})

test('.GitHub/workflows (another case of .github) is refused', async () => {
  const dir = repo()
  const b0 = commit(dir, 'a.txt', '0')
  const evil = commit(dir, '.GitHub/workflows/x.yml', 'on: push')
  const work = deliverClone(dir)
  const problem = await checkHandover(prepared(work, { baseSha: b0, startSha: b0 }), received(dir, b0, evil))
  expect(problem).toMatch(/changes \.GitHub\/workflows\/x\.yml: \.github\/ is never delivered/)
})

test("the reported result keeps none of the handover's free text: its stop detail, verification and revert words are the deliver job's", () => {
  const theirs = {
    success: true,
    stopReason: 'all_checks_passed',
    stopDetail: 'Closes #1\n::warning::injected',
    verification: { verdict: 'passed', commit: 'c'.repeat(40) },
    iterations: [
      { iteration: 1, durationMs: 1, checks: [], reverts: [{ path: 'x', why: 'Closes #2 @everyone' }] }
    ],
    cost: { totalUsd: 0 }
  } as unknown as LoopResult
  const plain = deliveredResult(theirs, undefined)
  expect(plain.stopDetail).toBe('the agent job stopped (all_checks_passed) after 1 iteration')
  expect(plain.verification).toBeUndefined()
  expect(plain.iterations[0].reverts).toEqual([{ path: 'x', why: 'protected' }])
  const named = deliveredResult(
    {
      ...theirs,
      warnings: ['see [this](https://evil.example) @everyone\n::error::x'],
      iterations: [
        { iteration: 1, durationMs: 1, checks: [{ name: 'tests Closes #3 `x`', tail: '# kept\n@a' }] }
      ]
    } as unknown as LoopResult,
    undefined
  )
  expect(named.warnings).toEqual(['see this(https evil.example) everyone :error:x'])
  expect(named.iterations[0].checks[0]).toEqual({ name: 'tests Closes 3 x', tail: '# kept\n@a' })
  const unverified = deliveredResult(theirs, undefined, 'no gate ran here')
  expect(unverified).toMatchObject({ success: false, stopReason: 'verify_failed' })
  expect(JSON.stringify(unverified)).not.toContain('injected')
})
