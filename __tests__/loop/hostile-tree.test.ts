// The work tree is the agent's: between two iterations it may swap RALPH.md or the guardrails file for a
// link to /proc/self/environ (the action's environment into the next prompt and the record), to a file only
// the action's user may read, or for a FIFO (a read that blocks the event loop and every budget timer). The
// loop reads neither through a link nor from anything but a regular file, and says so in one line.
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { pathBytes } from '../../src/text/tree-path.js'
import { countRuns, harness, type Harness } from './harness.js'

let h: Harness
let secret: string
beforeEach(() => {
  h = harness()
  // Outside the work tree, readable by the action's user only: what a link must never bring into a prompt.
  secret = path.join(h.tools, 'secret')
  writeFileSync(secret, 'SECRET-OF-THE-ACTION\n', { mode: 0o600 })
})
afterEach(() => h.cleanup())

/** An agent that keeps its prompts and, in its first run, puts `swap` (bash, in the work tree) in place. */
function swappingAgent(swap: string): string {
  return h.script(
    'agent.sh',
    `${countRuns(h.tools)}
cat > '${h.tools}/prompt-'$n.txt
if [ $n -eq 1 ]; then ${swap}; fi
echo "run $n"`
  )
}

/** Every prompt the loop gave the agent and wrote into its record, as one text. */
function promptsSeen(): string {
  const logs = path.join(h.record, 'logs')
  const inRecord = existsSync(logs)
    ? readdirSync(logs)
        .map(d => path.join(logs, d, 'prompt.md'))
        .filter(existsSync)
    : []
  const given = readdirSync(h.tools)
    .filter(f => f.startsWith('prompt-'))
    .map(f => path.join(h.tools, f))
  return [...inRecord, ...given].map(f => readFileSync(f, 'utf8')).join('\n')
}

const GATE = 'checks:\n  - name: never\n    run: "false"'

describe.each([
  ['/proc/self/environ', () => '/proc/self/environ'],
  ['a file only the action may read', () => secret]
])('a link to %s', (_, target) => {
  test('RALPH.md swapped for it: refused with one line, nothing of it in a prompt or the record', async () => {
    const ralphFile = path.join(h.ralphDir, 'RALPH.md')
    h.writeRalph(`agent: ${swappingAgent(`ln -sf '${target()}' '${ralphFile}'`)}\n${GATE}`, 'Work.')
    const { result } = await h.run({ maxIterations: 3 })
    expect(readFileSync(path.join(h.tools, 'count'), 'utf8').trim()).toBe('1')
    expect(result.stopReason).toBe('agent_error')
    expect(result.stopDetail).toContain(
      `RALPH.md could not be read (${ralphFile}): ${ralphFile} is a symbolic link: the action follows no link of the work tree`
    )
    const seen = promptsSeen()
    expect(seen).not.toContain('SECRET-OF-THE-ACTION')
    expect(seen).not.toMatch(/(^|\0)PATH=/m)
    expect(seen).not.toContain(`HOME=${process.env.HOME}`)
  })

  test('the guardrails file swapped for it: refused with one line, nothing of it in a prompt', async () => {
    h.repo.write('GUARDRAILS.md', '# Signs\n')
    const guardrails = path.join(h.repo.dir, 'GUARDRAILS.md')
    h.writeRalph(
      `agent: ${swappingAgent(`ln -sf '${target()}' '${guardrails}'`)}\nguardrails: GUARDRAILS.md\n${GATE}`,
      'Work.'
    )
    const { result } = await h.run({ maxIterations: 3 })
    expect(result.stopReason).toBe('agent_error')
    expect(result.stopDetail).toContain(
      `The guardrails file GUARDRAILS.md was not read: ${guardrails} is a symbolic link`
    )
    const seen = promptsSeen()
    expect(seen).toContain('# Signs')
    expect(seen).not.toContain('SECRET-OF-THE-ACTION')
    expect(seen).not.toMatch(/(^|\0)PATH=/m)
  })
})

test('the ralph folder swapped for a link: RALPH.md is not read through it', async () => {
  const copy = path.join(h.tools, 'copy')
  h.writeRalph(
    `agent: ${swappingAgent(`cp -r '${h.ralphDir}' '${copy}' && echo SECRET-OF-THE-ACTION >> '${copy}/RALPH.md' && rm -rf '${h.ralphDir}' && ln -s '${copy}' '${h.ralphDir}'`)}\n${GATE}`,
    'Work.'
  )
  const { result } = await h.run({ maxIterations: 3 })
  expect(result.stopReason).toBe('agent_error')
  expect(result.stopDetail).toMatch(/is reached through a symbolic link/)
  expect(promptsSeen()).not.toContain('SECRET-OF-THE-ACTION')
})

test.each(['RALPH.md', 'guardrails'])(
  '%s swapped for a FIFO: refused at once, the loop ends well within its time budget',
  async which => {
    h.repo.write('GUARDRAILS.md', '# Signs\n')
    const file =
      which === 'RALPH.md' ? path.join(h.ralphDir, 'RALPH.md') : path.join(h.repo.dir, 'GUARDRAILS.md')
    h.writeRalph(
      `agent: ${swappingAgent(`rm -f '${file}' && mkfifo '${file}'`)}\nguardrails: GUARDRAILS.md`,
      'Work.'
    )
    const started = Date.now()
    // No commit and no gate: git would refuse the FIFO itself, before the prompt is read.
    const { result } = await h.run({ maxIterations: 3, maxTimeSeconds: 60, commit: false })
    expect(result.stopReason).toBe('agent_error')
    expect(result.stopDetail).toMatch(/is not a regular file/)
    // A blocked read would hold the loop (and the 60 s budget's timer) until someone opened the FIFO.
    expect(Date.now() - started).toBeLessThan(45_000)
    execFileSync('rm', ['-f', file])
  },
  90_000
)

test('an honest fix in a repository with names that are not UTF-8 under a protected test folder: put back byte for byte, verified, passed (#35, #37)', async () => {
  // test/caf\xe9 and test/caf\xe8 differ only in a byte that is not UTF-8 (both `caf�` to a UTF-8 decoder).
  const bytes = (name: string): Buffer => Buffer.from(name, 'latin1')
  const file = (name: string): Buffer => Buffer.concat([Buffer.from(`${h.repo.dir}/`), bytes(name)])
  mkdirSync(path.join(h.repo.dir, 'test'))
  writeFileSync(file('test/caf\xe9.test.sh'), 'first\n')
  writeFileSync(file('test/caf\xe8.txt'), 'second\n')
  writeFileSync(path.join(h.repo.dir, 'test', 'café.txt'), 'third\n')
  h.repo.write('check.sh', 'grep -q fixed calc.txt\n')
  h.repo.write('calc.txt', 'broken\n')
  // The agent fixes the code, and also rewrites one test, deletes another and adds one (that one is its own).
  const agent = h.script(
    'agent.sh',
    `cat >/dev/null\necho fixed > calc.txt\necho weakened > $'test/caf\\xe9.test.sh'\nrm $'test/caf\\xe8.txt'\necho new > $'test/caf\\xff.txt'`
  )
  h.writeRalph(`agent: ${agent}\nchecks:\n  - name: check\n    run: sh check.sh`, 'Fix calc.txt.')
  h.repo.git('add', '-A')
  h.repo.git('commit', '-q', '-m', 'the project')

  const { result, events } = await h.run({
    maxIterations: 1,
    commit: true,
    completionTag: '',
    protect: ['auto']
  })
  expect(result.stopReason).toBe('all_checks_passed')
  expect(result.verification?.verdict).toBe('passed')
  const [first] = result.iterations
  // In git's order: caf\xe8 before caf\xe9.
  expect(first.reverts?.map(r => [[...pathBytes(r.path)], r.why])).toEqual([
    [[...bytes('test/caf\xe8.txt')], 'deleted'],
    [[...bytes('test/caf\xe9.test.sh')], 'changed']
  ])
  expect(events.filter(e => e.type === 'warning').map(e => e.message)).toContainEqual(
    'iteration 1: protected paths put back from the start commit before the checks: "test/caf\\xe8.txt" (deleted), "test/caf\\xe9.test.sh" (changed)'
  )
  // Put back byte for byte, and nothing else written: no `caf�` stray beside them.
  const names = readdirSync(path.join(h.repo.dir, 'test'), { encoding: 'buffer' }).map(n =>
    n.toString('latin1')
  )
  expect(names.sort()).toEqual(
    ['caf\xe9.test.sh', 'caf\xe8.txt', Buffer.from('café.txt').toString('latin1'), 'caf\xff.txt'].sort()
  )
  expect(readFileSync(file('test/caf\xe9.test.sh'), 'utf8')).toBe('first\n')
  expect(readFileSync(file('test/caf\xe8.txt'), 'utf8')).toBe('second\n')
  // The delivered commit holds every name as its bytes.
  const tree = execFileSync('git', ['ls-tree', '-r', '-z', '--name-only', 'HEAD', 'test'], {
    cwd: h.repo.dir
  })
  expect(tree.toString('latin1').split('\0').filter(Boolean).sort()).toEqual(
    names.map(n => `test/${n}`).sort()
  )
})

test.each(['.gitignore', 'sub/.gitattributes'])(
  'the agent makes %s a FIFO: the loop ends at once with one line naming it, nothing of the action waits on it (#35)',
  async file => {
    const agent = swappingAgent(`mkdir -p sub && mkfifo '${path.join(h.repo.dir, file)}'`)
    h.writeRalph(`agent: ${agent}\n${GATE}`, 'Work.')
    h.repo.git('add', '-A')
    h.repo.git('commit', '-q', '-m', 'the ralph')
    const started = Date.now()
    const { result } = await h.run({ maxIterations: 3, maxTimeSeconds: 60, commit: true })
    expect(result.stopReason).toBe('agent_error')
    expect(result.stopDetail).toContain(
      `${file} is a FIFO, where git reads a file: the action opens no special file of the work tree (git would wait on it), so the work cannot be committed; make it a regular file or remove it`
    )
    expect(readFileSync(path.join(h.tools, 'count'), 'utf8').trim()).toBe('1')
    // Well within the 60 s budget: a git waiting on the FIFO would hold the loop past it.
    expect(Date.now() - started).toBeLessThan(45_000)
  },
  90_000
)

test('a git of the action held by the tree anyway is stopped a grace after max-time: the run ends as a timeout (#35)', async () => {
  // A submodule, and a commit hook that sends commits down git's own path, whose `git commit` looks into every
  // gitlink: the agent makes the submodule's HEAD a FIFO, which that git would wait on for ever.
  execFileSync('sh', ['-c', 'mkdir sub && cd sub && git init -q && git commit -q --allow-empty -m sub'], {
    cwd: h.repo.dir
  })
  const hook = path.join(h.repo.dir, '.git', 'hooks', 'post-commit')
  writeFileSync(hook, '#!/bin/sh\nexit 0\n', { mode: 0o755 })
  const agent = swappingAgent(
    `rm '${h.repo.dir}/sub/.git/HEAD' && mkfifo '${h.repo.dir}/sub/.git/HEAD' && echo work > '${h.repo.dir}/work.txt'`
  )
  h.writeRalph(`agent: ${agent}\n${GATE}`, 'Work.')
  h.repo.git('add', '-A')
  h.repo.git('commit', '-q', '-m', 'the ralph and a submodule')
  const started = Date.now()
  const { result } = await h.run({ maxIterations: 3, maxTimeSeconds: 4, commit: true })
  expect(result.stopReason).toBe('timeout')
  // max-time, then STOP_GRACE_MS (20 s) for a git that is only busy, then it is stopped.
  expect(Date.now() - started).toBeLessThan(60_000)
  expect(result.iterations).toHaveLength(1)
}, 120_000)
