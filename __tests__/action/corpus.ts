// The security corpus's scenes, shared by its files (security.e2e.test.ts, security-round-two.e2e.test.ts): a
// project with installed ralphs, an issue and a comment, the run through dist/index.js (main, then post),
// and what a refused, skipped or started request must leave behind.
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { expect } from '@jest/globals'
import { DONE, FIX, RALPH_DIR, agentScript, projectFiles, ralph } from './fixtures.js'
import { runAction, type ActionRun, type Files, type Project, type Stand } from './harness.js'
import { e2eSuite, type E2eSuite } from './suite.js'
import type { AccountType, CommentRecord, CustomRole, RepoRole } from '../support/github-api/state.js'

export const REFUSAL = '<!-- ralph-action:refusal -->'
export const USAGE = 'Usage, on the first line of a new comment'

let suite: E2eSuite | undefined

/** The artifact service and a scratch folder for the file's scenes (call once, at the top of a test file). */
export function useCorpus(): { stand: () => Stand } {
  suite = e2eSuite()
  return { stand: suite.stand }
}

function corpus(): E2eSuite {
  if (!suite) throw new Error('the corpus has no suite: call useCorpus() at the top of the file')
  return suite
}

export function expectClean(p: Project): void {
  expect(p.api.violations).toEqual([])
  expect(p.api.unimplemented).toEqual([])
  expect(p.api.responseProblems).toEqual([])
}

/**
 * One scene: a project with the `fix-tests` ralph and an `echo` ralph, a scratch folder for this test (where
 * the agent leaves its marker and prompts, the argv printer its argv, and executed text its pwned-* files).
 *
 * `echo` declares the arg `focus`; its command `argv` prints each argv entry it got from
 * `{{ args.focus }}` (shlex-quoted into `run` by the engine), `x` prints SECRET-COMMAND-OUTPUT, and its body
 * uses `{{ args.focus }}`, `{{ args.task }}` and `{{ commands.x }}`. Both ralphs' agent saves its prompt
 * and fixes the test at once, so a run that starts succeeds and opens a pull request.
 */
export interface Scene {
  p: Project
  dir: string
  ran: string
  prompts(): string[]
  argvs(): string[][]
  /** Files executed text would have left: in the scratch folder, the work tree, the runner's folders. */
  pwned(): string[]
}

/** `extra` files join the project (a function gets the scene's scratch folder, for paths outside it). */
export async function scene(extra: Files | ((dir: string) => Files) = {}): Promise<Scene> {
  const dir = mkdtempSync(path.join(corpus().scratch(), 'scene-'))
  chmodSync(dir, 0o1777)
  const ran = path.join(dir, 'agent-ran')
  const argvScript = path.join(dir, 'argv.mjs')
  writeFileSync(
    argvScript,
    [
      "import fs from 'node:fs'",
      `const n = fs.readdirSync(${JSON.stringify(dir)}).filter(f => f.startsWith('argv-')).length`,
      `fs.writeFileSync(${JSON.stringify(dir)} + '/argv-' + (n + 1) + '.json', JSON.stringify(process.argv.slice(2)))`,
      "console.log('argv: ' + (process.argv.length - 2))",
      ''
    ].join('\n')
  )
  const agent = agentScript({
    any: [
      `fs.writeFileSync(${JSON.stringify(ran)}, 'ran')`,
      `const n = fs.readdirSync(${JSON.stringify(dir)}).filter(f => f.startsWith('prompt-')).length`,
      `fs.writeFileSync(${JSON.stringify(dir)} + '/prompt-' + (n + 1) + '.md', prompt)`,
      FIX,
      DONE
    ].join('\n')
  })
  const echo = ralph({
    extra: [
      'args: [focus]',
      'commands:',
      '  - name: argv',
      `    run: node ${argvScript} {{ args.focus }}`,
      '  - name: x',
      '    run: echo SECRET-COMMAND-OUTPUT',
      '  - name: fortune',
      '    run: echo fortune-cookie'
    ].join('\n'),
    body: [
      'Focus: {{ args.focus }}',
      '',
      '{{ args.task }}',
      '',
      'The secret command said: {{ commands.x }}',
      'The argv command said: {{ commands.argv }}',
      '',
      'This is iteration {{ ralph.iteration }}.'
    ].join('\n')
  })
  const p = await corpus().project({
    ...projectFiles(agent),
    '.agents/ralphs/echo/RALPH.md': echo,
    ...(typeof extra === 'function' ? extra(dir) : extra)
  })
  const list = (from: string, prefix: string): string[] =>
    existsSync(from)
      ? readdirSync(from)
          .filter(f => f.startsWith(prefix))
          .sort((a, b) => Number(/\d+/.exec(a)?.[0]) - Number(/\d+/.exec(b)?.[0]))
          .map(f => path.join(from, f))
      : []
  return {
    p,
    dir,
    ran,
    prompts: () => list(dir, 'prompt-').map(f => readFileSync(f, 'utf8')),
    argvs: () => list(dir, 'argv-').map(f => JSON.parse(readFileSync(f, 'utf8')) as string[]),
    pwned: () =>
      [dir, p.workspace, path.join(p.workspace, RALPH_DIR), p.runnerTemp, p.home, p.dir].flatMap(d =>
        list(d, 'pwned')
      )
  }
}

export interface Comment {
  user: string
  role?: RepoRole | CustomRole
  type?: AccountType
  body: string
  title?: string
  issueBody?: string
  createdAt?: string
  updatedAt?: string
}

/** An issue (its text carrying shell that would leave pwned files) with a comment by `user`. */
export function commentOn(s: Scene, c: Comment): { issueNumber: number; comment: CommentRecord } {
  s.p.api.state.addUser(c.user, { role: c.role ?? 'write', ...(c.type ? { type: c.type } : {}) })
  const issue = s.p.api.state.addIssue({
    title: c.title ?? `Crash on save $(touch ${s.dir}/pwned-title)`,
    body: c.issueBody ?? `It crashes. \`touch ${s.dir}/pwned-body\`; touch ${s.dir}/pwned-semi`,
    user: c.user
  })
  const comment = s.p.api.state.addComment(issue.number, {
    body: c.body,
    user: c.user,
    ...(c.createdAt ? { createdAt: c.createdAt } : {}),
    ...(c.updatedAt ? { updatedAt: c.updatedAt } : {})
  })
  return { issueNumber: issue.number, comment }
}

export function onComment(
  s: Scene,
  comment: CommentRecord,
  options: { inputs?: Record<string, string>; action?: 'created' | 'edited' } = {}
): Promise<ActionRun> {
  return runAction(s.p, corpus().stand(), {
    inputs: { ralph: 'fix-tests', ...options.inputs },
    eventName: 'issue_comment',
    event: s.p.api.events.issueComment(comment.id, options.action ?? 'created')
  })
}

export const writes = (p: Project) => p.api.requests.filter(r => r.method !== 'GET')
export const ralphBranches = (p: Project): string =>
  p.remoteGit('for-each-ref', '--format=%(refname)', 'refs/heads/ralph/').trim() +
  p.git('branch', '--list', 'ralph/*').trim()

/**
 * Refused, as a commenter's refusal ends: one reply from github-actions[bot] starting with the marker and
 * saying why, the step exits 0 with a `Refused` warning saying the same, no agent, no 👀, no branch, no new
 * pull request, nothing executed. Answers the reply.
 */
export function expectRefused(
  s: Scene,
  run: ActionRun,
  where: { issueNumber: number; comment: CommentRecord; pulls?: number },
  why: RegExp
): string {
  const { p } = s
  expect(existsSync(s.ran)).toBe(false)
  expect(s.pwned()).toEqual([])
  const replies = p.api.state.comments.filter(c => c.id !== where.comment.id)
  expect(replies).toHaveLength(1)
  const [reply] = replies
  expect(reply.issueNumber).toBe(where.issueNumber)
  expect(reply.user).toBe('github-actions[bot]')
  expect(reply.body.startsWith(`${REFUSAL}\n\n`)).toBe(true)
  expect(reply.body).toMatch(why)
  expect(run.main.exitCode).toBe(0)
  expect(run.main.errors).toEqual([])
  const warnings = run.main.commands.filter(c => c.command === 'warning').map(c => c.message)
  expect(warnings).toEqual([expect.stringMatching(/^Refused: /)])
  expect(warnings[0]).toMatch(why)
  expect(p.api.state.reactions).toEqual([])
  expect(p.api.state.pulls).toHaveLength(where.pulls ?? 0)
  expect(ralphBranches(p)).toBe('')
  expect(run.post?.exitCode).toBe(0)
  expectClean(p)
  return reply.body
}

/** Skipped: no reply, no write to the API, no agent, exit 0 with nothing but a note in the log. */
export function expectSkipped(s: Scene, run: ActionRun, comment: CommentRecord, why: RegExp): void {
  const { p } = s
  expect(existsSync(s.ran)).toBe(false)
  expect(s.pwned()).toEqual([])
  expect(run.main.exitCode).toBe(0)
  expect(run.main.stdout).toMatch(why)
  expect(run.main.commands.filter(c => ['warning', 'error'].includes(c.command))).toEqual([])
  expect(p.api.state.comments.map(c => c.id)).toEqual([comment.id])
  expect(p.api.state.reactions).toEqual([])
  expect(writes(p)).toEqual([])
  expect(p.api.state.pulls).toEqual([])
  expect(ralphBranches(p)).toBe('')
  expect(run.post?.exitCode).toBe(0)
  expectClean(p)
}

/** Ran: the agent, 👀 on the comment, the pull request on ralph/issue-<N>, nothing executed. */
export function expectRan(
  s: Scene,
  run: ActionRun,
  where: { issueNumber: number; comment: CommentRecord }
): void {
  const { p } = s
  expect(run.main.errors).toEqual([])
  expect(run.main.exitCode).toBe(0)
  expect(existsSync(s.ran)).toBe(true)
  expect(s.pwned()).toEqual([])
  expect(p.api.state.reactionsOn('comment', where.comment.id).map(r => r.content)).toEqual(['eyes'])
  expect(run.outputs.branch).toBe(`ralph/issue-${where.issueNumber}`)
  expect(run.outputs['pr-operation']).toBe('created')
  expect(p.api.state.pulls.map(pr => pr.head)).toEqual([`ralph/issue-${where.issueNumber}`])
  expect(p.api.state.comments.some(c => c.body.startsWith(REFUSAL))).toBe(false)
  expect(run.post?.exitCode).toBe(0)
  expectClean(p)
}

export const injected = (s: Scene) =>
  `/ralph fix-tests --focus "$(touch ${s.dir}/pwned-arg)" -- \`touch ${s.dir}/pwned-tick\` $(touch ${s.dir}/pwned-free)`
