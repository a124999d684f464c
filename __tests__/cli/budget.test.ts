// `ralph-action budget` in a clone of a repository whose ledger runs have written (the git server stand-in),
// run in-process (the server answers in this process): the ledger printed, released by hand, and every
// mistake one line.
import { execFile } from 'node:child_process'
import { rmSync } from 'node:fs'
import path from 'node:path'
import { promisify } from 'node:util'
import { afterEach, beforeEach, describe, expect, test } from '@jest/globals'
import { main } from '../../src/cli/main.js'
import { githubRemote, renderLedger } from '../../src/cli/budget-command.js'
import { emptyLedger, LedgerStore, openLease, parseLedger, type Lease } from '../../src/ledger/index.js'
import { tempDir } from '../git/temp-repo.js'
import { CLI } from './helpers.js'
import { startGitServer, WRITE_TOKEN, type GitServer } from '../support/git-server.js'

const run = promisify(execFile)
let server: GitServer
let clone: string

describe('in a clone of a repository on the git server', () => {
  beforeEach(async () => {
    server = await startGitServer()
    server.commitOnRemote('main', { 'README.md': 'hello\n' }, 'start')
    clone = path.join(tempDir('ralph-budget-cli-'), 'widgets')
    await run('git', ['clone', '--quiet', server.cloneUrl, clone])
  })
  afterEach(async () => {
    rmSync(path.dirname(clone), { recursive: true, force: true })
    await server.close()
  })

  async function budget(args: string[], env: NodeJS.ProcessEnv = {}, cwd = clone) {
    let stdout = ''
    let stderr = ''
    const code = await main(['budget', ...args], {
      cwd,
      env,
      home: '/nonexistent',
      stdout: t => void (stdout += t),
      stderr: t => void (stderr += t),
      interactive: false
    })
    return { code, stdout, stderr }
  }

  /** A run of `ralph` (requested by `requester`) that reserved and, unless `spent` is undefined, settled. */
  async function aRun(
    ralph: string,
    requester: string | undefined,
    spent: number | undefined
  ): Promise<Lease> {
    const store = await LedgerStore.open({
      serverUrl: server.url,
      repository: server.repository,
      token: WRITE_TOKEN
    })
    try {
      const opened = await openLease(store, {
        run: { id: `${Math.floor(Math.random() * 1e9)}`, attempt: 1, job: 'hunt' },
        ralph,
        ...(requester ? { requester } : {}),
        limits: { repository: { day: 20_000_000, month: 300_000_000 }, perRequester: { day: 5_000_000 } },
        minimumUsd: 0.1,
        chunkUsd: 1,
        deadline: new Date(Date.now() + 6 * 3600_000)
      })
      if (!('lease' in opened)) throw new Error(opened.refused.line)
      if (spent !== undefined) await opened.lease.settle(spent)
      return opened.lease
    } finally {
      await store.close()
    }
  }

  test('prints the day and the month, what is spent, held and left, by ralph and by requester, and the open leases', async () => {
    await aRun('hunt', undefined, 2.5)
    await aRun('docs', 'octocat', 0.75)
    const open = await aRun('hunt', 'hubot', undefined)
    const out = await budget([])
    expect(out.stderr).toBe('')
    expect(out.code).toBe(0)
    const today = new Date().toISOString()
    expect(out.stdout).toContain(`The budget ledger refs/ralph/ledger of acme/widgets, at `)
    expect(out.stdout).toContain(
      `Today (${today.slice(0, 10)}, UTC): $3.25 spent, $1.00 held by 1 unsettled run; $15.75 left of $20.00.`
    )
    expect(out.stdout).toContain(
      `This month (${today.slice(0, 7)}): $3.25 spent, $1.00 held by 1 unsettled run; $295.75 left of $300.00.`
    )
    expect(out.stdout).toMatch(
      /The budget, as the last run was given it \(.* UTC\): \$20\/day, \$300\/month for the repository; \$5\/day per requester\./
    )
    expect(out.stdout).toContain('Spent this month by ralph: hunt $2.50, docs $0.75.')
    expect(out.stdout).toContain('Spent this month by requester: octocat $0.75.')
    expect(out.stdout).toMatch(
      new RegExp(
        `Open leases \\(runs in progress, counted in full until they settle\\):\\n  ${open.id.replace('.', '\\.')}  run \\d+ attempt 1 \\(hunt\\), hunt, requested by hubot: \\$1\\.00 held since `
      )
    )
    // The ref is now in the clone too, as `git fetch origin refs/ralph/ledger:refs/ralph/ledger` leaves it.
    expect((await run('git', ['rev-parse', 'refs/ralph/ledger'], { cwd: clone })).stdout.trim()).toBe(
      server.git('rev-parse', 'refs/ralph/ledger').trim()
    )
    const json = await budget(['--json', '--budget', '1/day'])
    expect(parseLedger(json.stdout).leases.map(l => l.id)).toEqual([open.id])
    const given = await budget(['--budget', '4/day', '--no-fetch'])
    expect(given.stdout).toContain('; $0.00 left of $4.00.')
    expect(given.stdout).toContain('The budget, as given: $4/day for the repository.')
  })

  test('the built CLI (dist/cli/index.js) prints the same ledger', async () => {
    await aRun('hunt', undefined, 1.5)
    const { stdout } = await run(process.execPath, [CLI, 'budget', '--budget', '20/day'], { cwd: clone })
    expect(stdout).toMatch(/^The budget ledger refs\/ralph\/ledger of acme\/widgets, at [0-9a-f]{7}\.\n/)
    expect(stdout).toContain(': $1.50 spent; $18.50 left of $20.00.')
  })

  test('release: a lease whose run never settled is settled by hand, with what its record says it spent', async () => {
    const lost = await aRun('hunt', undefined, undefined)
    const out = await budget(['release', lost.id, '--spent', '0.4'], { GH_TOKEN: WRITE_TOKEN })
    expect(out).toEqual({
      code: 0,
      stdout: `Released lease ${lost.id} on acme/widgets: $0.40 spent of the $1.00 it held; $0.60 is back in the budget.\n`,
      stderr: ''
    })
    expect(server.git('log', '-1', '--format=%B', 'refs/ralph/ledger')).toMatch(
      /settle lease=.* spent=0\.400000 granted=1\.000000 returned=0\.600000 source=hand/
    )
    const again = await budget(['release', lost.id, '--spent', '0'], { GITHUB_TOKEN: WRITE_TOKEN })
    expect(again.stdout).toMatch(
      /^Lease .* was already settled at .* \(\$0\.40 spent\): nothing changed\.\n$/
    )
    const unknown = await budget(['release', 'nope.1-000000', '--spent', '0'], { GITHUB_TOKEN: WRITE_TOKEN })
    expect(unknown).toMatchObject({
      code: 1,
      stderr:
        'Error: Lease nope.1-000000 is not in the ledger (released by hand, or settled long ago): nothing changed. `ralph-action budget` lists the leases.\n'
    })
  })

  test.each<[string, string[], NodeJS.ProcessEnv, number, string]>([
    [
      'release without a token',
      ['release', 'x.1-000000', '--spent', '0'],
      {},
      1,
      'Error: Releasing a lease writes the ledger: set GITHUB_TOKEN or GH_TOKEN to a token that may push to acme/widgets (contents: write), e.g. GH_TOKEN=$(gh auth token).\n'
    ],
    [
      'release without --spent',
      ['release', 'x.1-000000'],
      {},
      2,
      "Error: Missing option '--spent': give what the lease's run spent (the cost in its record), or 0.\nTry 'ralph-action budget --help' for help.\n"
    ],
    [
      'release without a lease',
      ['release'],
      {},
      2,
      "Error: Missing argument 'LEASE' (the lease's id, as `ralph-action budget` prints it).\nTry 'ralph-action budget --help' for help.\n"
    ],
    [
      'a branch as the ref',
      ['--ref', 'refs/heads/ledger'],
      {},
      2,
      "Error: Invalid value for '--ref': 'refs/heads/ledger': a branch, tag or pull request ref would start workflows and show in the repository: use one outside them, like refs/ralph/ledger.\nTry 'ralph-action budget --help' for help.\n"
    ],
    [
      'a bad budget',
      ['--budget', '5/week'],
      {},
      2,
      `Error: Option '--budget' has "5/week" ("week" is not a window: budgets are per day or per month, UTC): give dollars per day and/or per month, comma-separated, like 20/day, 300/month.\nTry 'ralph-action budget --help' for help.\n`
    ],
    [
      'a mistyped option',
      ['--jsn'],
      {},
      2,
      "Error: No such option '--jsn'. Did you mean '--json'?\nTry 'ralph-action budget --help' for help.\n"
    ],
    [
      'an unknown remote',
      ['--remote', 'upstream'],
      {},
      1,
      "Error: There is no remote 'upstream' here: give --remote NAME.\n"
    ]
  ])('%s: one line', async (_what, args, env, code, stderr) => {
    expect(await budget(args, env)).toEqual({ code, stdout: '', stderr })
  })

  test('no ledger yet: said plainly, exit 0', async () => {
    expect(await budget([])).toEqual({
      code: 0,
      stdout:
        'There is no budget ledger at refs/ralph/ledger on origin: no run with a budget has reserved from it yet.\n',
      stderr: ''
    })
  })

  test('outside a clone: one line', async () => {
    expect(await budget([], {}, tempDir('ralph-not-a-repo-'))).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'Error: Run ralph-action budget inside a clone of the repository (it reads the ledger from its remote).\n'
    })
  })

  test('a malformed ledger: one line, exit 1', async () => {
    await aRun('hunt', undefined, 0.1)
    const tip = server.git('rev-parse', 'refs/ralph/ledger').trim()
    server.git('update-ref', 'refs/ralph/ledger', server.commitOnRemote('x', { 'ledger.json': 'nope' }))
    const out = await budget([])
    expect(out.code).toBe(1)
    expect(out.stderr).toMatch(
      /^Error: The budget ledger refs\/ralph\/ledger on acme\/widgets is malformed at [0-9a-f]{7} \(ledger\.json is not JSON \(.*\)\): no agent runs until it is fixed; delete the ref to start again empty \(git push origin :refs\/ralph\/ledger\)\.\n$/
    )
    expect(tip).not.toBe('')
  })
})

test.each([
  ['https://github.com/acme/widgets.git', { serverUrl: 'https://github.com', repository: 'acme/widgets' }],
  [
    'https://x-access-token:abc@ghe.example.com/acme/widgets',
    { serverUrl: 'https://ghe.example.com', repository: 'acme/widgets' }
  ],
  ['git@github.com:acme/widgets.git', { serverUrl: 'https://github.com', repository: 'acme/widgets' }],
  ['ssh://git@github.com/acme/widgets', { serverUrl: 'https://github.com', repository: 'acme/widgets' }],
  ['/srv/git/widgets.git', undefined],
  ['https://github.com/acme', undefined]
])('the GitHub repository of the remote %s', (url, expected) => {
  expect(githubRemote(url)).toEqual(expected)
})

test('an empty ledger prints as nothing spent, and no budget known', () => {
  const text = renderLedger(emptyLedger(new Date('2026-12-01T10:00:00Z')), {
    ref: 'refs/ralph/ledger',
    where: 'acme/widgets',
    sha: 'abcdef0123',
    limits: undefined,
    now: new Date('2026-12-01T10:00:00Z')
  })
  expect(text).toBe(
    [
      'The budget ledger refs/ralph/ledger of acme/widgets, at abcdef0.',
      '',
      'Today (2026-12-01, UTC): $0.00 spent.',
      'This month (2026-12): $0.00 spent.',
      'No budget known: give --budget to see what is left.',
      '',
      'Spent this month by ralph: none.',
      'Spent this month by requester: none.',
      '',
      'No open lease.',
      ''
    ].join('\n')
  )
})

test('the command is in the help, and has its own', async () => {
  let out = ''
  const io = {
    cwd: '/',
    env: {},
    home: '/',
    stdout: (t: string) => void (out += t),
    stderr: () => undefined,
    interactive: false
  }
  expect(await main(['--help'], io)).toBe(0)
  expect(out).toContain(
    "  budget         Print the repository's budget ledger (refs/ralph/ledger): what is spent, held and left.\n"
  )
  out = ''
  expect(await main(['budget', '--help'], io)).toBe(0)
  expect(out).toMatch(
    /^Usage: ralph-action budget \[OPTIONS\]\n {7}ralph-action budget release LEASE --spent USD\n/
  )
  expect(out).toContain('  --ref REF ')
})
