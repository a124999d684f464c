// The run's plan, decided in-process from the inputs and the trigger (the end-to-end suites prove the wiring).
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, test } from '@jest/globals'
import { readInputs } from '../../src/action/inputs.js'
import { installHint, makePlan } from '../../src/action/plan.js'
import { readContext } from '../../src/trigger/context.js'
import type { Run } from '../../src/trigger/types.js'
import { inputEnv } from './harness.js'

const dirs: string[] = []
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

/** A workspace holding ralph `r` (agent `cat`), with a gate unless `gated` is false. */
function workspace(gated = true): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'ralph-plan-'))
  dirs.push(dir)
  mkdirSync(path.join(dir, 'r'))
  const checks = gated ? 'checks:\n  - name: tests\n    run: "true"\n' : ''
  writeFileSync(path.join(dir, 'r', 'RALPH.md'), `---\nagent: cat\n${checks}---\nMake the tests pass.\n`)
  return dir
}

const run = (event: Run['event'], extra: Partial<Run> = {}): Run => ({
  kind: 'run',
  event,
  args: {},
  task: '',
  continueBranch: false,
  ...extra
})

function plan(given: Record<string, string>, trigger: Run, gated = true) {
  const dir = workspace(gated)
  const temp = mkdtempSync(path.join(tmpdir(), 'ralph-plan-temp-'))
  dirs.push(temp)
  const env = { ...process.env, GITHUB_WORKSPACE: dir, RUNNER_TEMP: temp }
  return makePlan(readInputs(inputEnv(given)), readContext(env), env, trigger)
}

describe('skip-if-green auto: on for a hunt, whose task is to make its gates green', () => {
  test.each(['schedule', 'workflow_dispatch', 'push'] as const)(
    'a %s hunt of a ralph with gates skips a green start',
    event => {
      expect(plan({ ralph: 'r' }, run(event)).config.skipIfGreen).toBe(true)
    }
  )

  test('a comment, a label or a pull request may ask for more than the gates: off', () => {
    expect(
      plan({ ralph: 'r' }, run('issue_comment', { issueNumber: 7, task: 'Add a flag.' })).config.skipIfGreen
    ).toBe(false)
    expect(
      plan({ ralph: 'r' }, run('issues', { issueNumber: 7, task: 'Add a flag.' })).config.skipIfGreen
    ).toBe(false)
    const pr = { number: 3, headRef: 'feature', headSha: 'a'.repeat(40), sameRepo: true as const }
    expect(plan({ ralph: 'r' }, run('pull_request', { pr, task: 'Add a flag.' })).config.skipIfGreen).toBe(
      false
    )
  })

  test('a prompt is a task of its own, even on a schedule: off', () => {
    const p = plan({ prompt: 'Add dark mode.', agent: 'cat', checks: 'true' }, run('schedule'))
    expect(p.config.skipIfGreen).toBe(false)
  })

  test('where it cannot work (no gates, no baseline) auto is off, not an error', () => {
    expect(plan({ ralph: 'r' }, run('schedule'), false).config.skipIfGreen).toBe(false)
    expect(plan({ ralph: 'r', baseline: 'false' }, run('schedule')).config.skipIfGreen).toBe(false)
  })

  test('true and false decide for every run', () => {
    expect(plan({ ralph: 'r', 'skip-if-green': 'false' }, run('schedule')).config.skipIfGreen).toBe(false)
    expect(
      plan({ ralph: 'r', 'skip-if-green': 'true' }, run('issue_comment', { issueNumber: 7, task: 'x' }))
        .config.skipIfGreen
    ).toBe(true)
    // Asked for outright where it cannot work, it is still the one-line error.
    expect(() => plan({ ralph: 'r', 'skip-if-green': 'true' }, run('schedule'), false)).toThrow(
      "skip-if-green needs gates (the ralph's checks:, --check or the checks input): without them nothing can be found green."
    )
  })
})

describe('a ralph whose frontmatter or placeholders silently change the run is not run', () => {
  function planOf(ralphText: string) {
    const dir = mkdtempSync(path.join(tmpdir(), 'ralph-plan-'))
    dirs.push(dir)
    mkdirSync(path.join(dir, 'r'))
    writeFileSync(path.join(dir, 'r', 'RALPH.md'), ralphText)
    const env = { ...process.env, GITHUB_WORKSPACE: dir, RUNNER_TEMP: dir }
    return () => makePlan(readInputs(inputEnv({ ralph: 'r' })), readContext(env), env, run('schedule'))
  }

  test("'chek:' for 'checks:' fails in one line naming the file, the line and the key meant", () => {
    expect(planOf('---\nagent: cat\nchek:\n  - name: tests\n    run: "true"\n---\nFix it.\n')).toThrow(
      "r/RALPH.md:3:1: Unknown frontmatter key 'chek': did you mean 'checks'? Without it this ralph has no gates, and would loop with nothing to judge its work: fix the key."
    )
  })

  test('a command or a declared arg that a placeholder names but the ralph lacks fails the same way', () => {
    const commands = 'commands:\n  - name: test\n    run: echo hi\n'
    expect(planOf(`---\nagent: cat\n${commands}---\nOutput:\n{{ commands.tset }}\n`)).toThrow(
      'r/RALPH.md:8:1: {{ commands.tset }} names no command (did you mean commands.test?), so it renders as nothing.'
    )
    expect(planOf('---\nagent: cat\nargs: [focus]\n---\nFocus: {{ args.foucs }}\n')).toThrow(
      'r/RALPH.md:5:8: {{ args.foucs }} names no declared arg (did you mean args.focus?), so it renders as nothing.'
    )
  })

  test('the args the action fills, undeclared args, and placeholders in HTML comments are fine', () => {
    expect(
      planOf(
        '---\nagent: cat\nargs: [focus]\n---\n{{ args.task }} {{ args.focus }} <!-- {{ commands.x }} -->\n'
      )
    ).not.toThrow()
    expect(planOf('---\nagent: cat\n---\n{{ args.anything }}\n')).not.toThrow()
  })
})

describe('a ralph is read as the action reads the work tree: no link, not even one inside the project (#25)', () => {
  /** A workspace whose ralph `r` is a link to `notes.md` (or whose guardrails are), with the ralph input `r`. */
  function linked(which: 'RALPH.md' | 'guardrails'): () => unknown {
    const dir = mkdtempSync(path.join(tmpdir(), 'ralph-plan-'))
    dirs.push(dir)
    mkdirSync(path.join(dir, 'r'))
    // Any file of the project: a credentials file an earlier step left in the workspace reads the same.
    writeFileSync(path.join(dir, 'notes.md'), '---\nagent: cat\n---\nsecret-ish notes\n')
    if (which === 'RALPH.md') symlinkSync(path.join(dir, 'notes.md'), path.join(dir, 'r', 'RALPH.md'))
    else {
      writeFileSync(
        path.join(dir, 'r', 'RALPH.md'),
        '---\nagent: cat\nguardrails: GUARDRAILS.md\n---\nFix it.\n'
      )
      symlinkSync('notes.md', path.join(dir, 'GUARDRAILS.md'))
    }
    const env = { ...process.env, GITHUB_WORKSPACE: dir, RUNNER_TEMP: dir }
    return () => makePlan(readInputs(inputEnv({ ralph: 'r' })), readContext(env), env, run('schedule'))
  }

  test('RALPH.md as a link to another file of the project is refused in one line naming the link', () => {
    expect(linked('RALPH.md')).toThrow(
      "Input 'ralph' (r): r/RALPH.md is a link to notes.md: the action follows no link of the work tree, not even one inside the project; make it a regular file."
    )
  })

  test('the guardrails file as a link to another file of the project is refused in one line', () => {
    expect(linked('guardrails')).toThrow(
      "Input 'ralph' (r): r reads its guardrails from GUARDRAILS.md, a link to notes.md: the action follows no link of the work tree, not even one inside the project; make it a regular file."
    )
  })
})

describe('continue-jobs on a schedule: a chain that could outlast a day is warned about', () => {
  test('4 jobs of 6 hours reach a day: warned', () => {
    const warnings = plan({ ralph: 'r', 'continue-jobs': '4', 'max-time': '6h' }, run('schedule')).warnings
    expect(warnings).toEqual([expect.stringMatching(/^continue-jobs 4 × max-time 360 min reach a day: /)])
  })

  test('3 jobs of 5 hours, or a chain a person dispatched, are not', () => {
    expect(plan({ ralph: 'r', 'continue-jobs': '3', 'max-time': '5h' }, run('schedule')).warnings).toEqual([])
    expect(plan({ ralph: 'r', 'continue-jobs': '9' }, run('workflow_dispatch')).warnings).toEqual([])
  })
})

describe('an agent not on PATH: the hint names how to get that agent, not Claude for every agent', () => {
  test.each([
    ['claude -p', /npm install -g @anthropic-ai\/claude-code@/],
    ['codex exec', /npm install -g @openai\/codex@/],
    ['gemini -p', /npm install -g @google\/gemini-cli@/],
    ['opencode run', /npm install -g opencode-ai@/],
    ['qwen -p', /npm install -g @qwen-code\/qwen-code@/]
  ])('%s: install-agent, or the npm package it installs', (agent, hint) => {
    const message = installHint(agent.split(' '))
    expect(message).toMatch(/^set install-agent: true/)
    expect(message).toMatch(hint)
  })

  test.each(['aider --yes', './my-agent.sh', '/usr/local/bin/ollama run'])(
    '%s: an earlier step, never another CLI’s package',
    agent => {
      const message = installHint(agent.split(' '))
      expect(message).toMatch(/^install it in an earlier step/)
      expect(message).not.toMatch(/npm install|install-agent: true/)
    }
  )

  test('the plan refuses an agent not on PATH in one line naming its own fix', () => {
    expect(() => plan({ ralph: 'r', agent: 'aider --yes --message-file' }, run('workflow_dispatch'))).toThrow(
      /^The agent 'aider' was not found on PATH: install it in an earlier step of the job/
    )
  })
})

describe('a ralph not found where nothing is checked out names the missing actions/checkout step', () => {
  test('an empty workspace: the one line says to add actions/checkout', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'ralph-plan-empty-'))
    dirs.push(dir)
    const env = { ...process.env, GITHUB_WORKSPACE: dir, RUNNER_TEMP: dir }
    expect(() =>
      makePlan(readInputs(inputEnv({ ralph: '.agents/ralphs/fix' })), readContext(env), env, run('schedule'))
    ).toThrow(
      /^Input 'ralph' \(\.agents\/ralphs\/fix\): .*\(no repository is checked out at .*: add the step - uses: actions\/checkout@v5 before ralph-action\)\.$/
    )
  })

  test('in a checked-out repository the line stays about the ralph', () => {
    const dir = workspace()
    mkdirSync(path.join(dir, '.git'))
    const env = { ...process.env, GITHUB_WORKSPACE: dir, RUNNER_TEMP: dir }
    expect(() =>
      makePlan(readInputs(inputEnv({ ralph: 'nope' })), readContext(env), env, run('schedule'))
    ).toThrow(/^Input 'ralph' \(nope\): (?!.*actions\/checkout).*$/)
  })
})

describe("a review round's task: args review and review_file, after the ralph's body unless it places them", () => {
  const round = {
    kind: 'review' as const,
    key: 'review-9',
    number: 1,
    max: 3,
    pullNumber: 3,
    reviewId: 9,
    reviewer: 'alice',
    reviewUrl: 'https://github.com/o/r/pull/3#pullrequestreview-9',
    threads: []
  }
  const pr = { number: 3, headRef: 'ralph/issue-1', headSha: 'a'.repeat(40), sameRepo: true as const }
  const review = run('pull_request_review', {
    pr,
    round,
    task: 'calc.js, line 2: make it add.',
    taskSource: 'review 9'
  })

  test('a ralph that does not place it: the review follows the body, fenced as data', () => {
    const p = plan({ ralph: 'r' }, review)
    expect(p.config.userArgs.review).toMatch(
      /<<<TASK [0-9a-f]+>>>\ncalc\.js, line 2: make it add\.\n<<<END TASK/
    )
    expect(p.config.userArgs.review_file).toMatch(/task\.md$/)
    expect(p.config.userArgs.task).toBeUndefined()
    expect(p.config.promptAppendix).toBe(`\n\n${p.config.userArgs.review}`)
  })

  test('a ralph that places {{ args.review }} gets it there, and nothing appended', () => {
    const given = { ralph: 'r' }
    const p = plan(given, review)
    writeFileSync(p.ralph.file, '---\nagent: cat\n---\nAnswer the review.\n{{ args.review }}\n')
    const placed = makePlan(
      readInputs(inputEnv(given)),
      p.context,
      {
        ...process.env,
        GITHUB_WORKSPACE: p.workspace,
        RUNNER_TEMP: path.dirname(path.dirname(p.config.userArgs.review_file))
      },
      review
    )
    expect(placed.config.promptAppendix).toBeUndefined()
    expect(placed.config.userArgs.review).toContain('make it add')
  })

  test('a ralph-less run places the review after its prompt', () => {
    const p = plan({ prompt: 'Answer the review.', agent: 'cat', checks: 'true' }, review)
    expect(p.config.promptText).toBe('Answer the review.\n\n{{ args.review }}')
  })

  test('a CI round and a comment keep the task under args.task', () => {
    const ci = {
      ...round,
      kind: 'ci' as const,
      runId: 1,
      runUrl: 'u',
      workflow: 'CI',
      conclusion: 'failure',
      headSha: 'a'.repeat(40),
      failedJobs: [],
      said: []
    }
    const p = plan({ ralph: 'r' }, run('workflow_run', { pr, round: ci, task: 'the log' }))
    expect(p.config.userArgs.task).toContain('the log')
    expect(p.config.userArgs.review).toBeUndefined()
  })
})
