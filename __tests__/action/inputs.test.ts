// The action's inputs, read the way the runner hands them over (INPUT_* with action.yml's defaults filled
// in): typed values, and one-line errors that name the input and the fix.
import { describe, expect, test } from '@jest/globals'
import { InputError, branchNameProblem, readInputs } from '../../src/action/inputs.js'
import { parseDuration } from '../../src/ralph/index.js'
import { agentEnvironment } from '../../src/security/index.js'
import { actionYaml, inputEnv } from './harness.js'

const read = (given: Record<string, string>) => readInputs(inputEnv(given))
const problem = (given: Record<string, string>): string => {
  try {
    read(given)
  } catch (error) {
    expect(error).toBeInstanceOf(InputError)
    return (error as Error).message
  }
  throw new Error('expected an InputError')
}

test('the defaults from action.yml give a safe run: 10 iterations, 60 minutes, PR on success, upload on', () => {
  expect(read({ ralph: 'fix-tests' })).toEqual({
    ralph: 'fix-tests',
    checks: [],
    continueJobs: 1,
    baseline: true,
    botLogin: 'github-actions[bot]',
    // On for a hunt's ralph, off for a comment's task (decided once the trigger is known).
    skipIfGreen: 'auto',
    args: [],
    maxIterations: 10,
    maxTimeSeconds: 3600,
    // GitHub warns at 50 MB and refuses 100 MB: a larger file is not delivered.
    maxFileBytes: 50 * 1024 * 1024,
    openPr: true,
    draft: false,
    labels: [],
    reviewers: [],
    assignees: [],
    onFailure: 'none',
    githubToken: 'ghs_StandInJobToken0123456789abcdefABCD',
    uploadArtifacts: true,
    workingDirectory: '.',
    dryRun: false,
    mode: 'run',
    allowedBots: [],
    reportIssue: false,
    triggerLabel: 'ralph',
    presets: true,
    allowEnv: [],
    // The agent runs as its own user wherever the runner allows it.
    isolation: 'auto',
    agentUser: 'ralph-agent',
    agentMaxProcesses: 4096,
    // The model proxy for a preset whose key the job holds (decided once the agent is known).
    modelProxy: { network: 'model-only', auto: true },
    // No CI failure starts a round unless named; three rounds per pull request; threads left to the reviewer.
    ciFix: [],
    maxFixRounds: 3,
    resolveThreads: false
  })
})

test('ci-fix names workflows by comma or line (a name may hold spaces); max-fix-rounds is at least 1', () => {
  expect(
    read({ ralph: 'r', 'ci-fix': 'CI tests, lint.yml\n.github/workflows/e2e.yml\nCI tests' }).ciFix
  ).toEqual(['CI tests', 'lint.yml', '.github/workflows/e2e.yml'])
  expect(read({ ralph: 'r', 'max-fix-rounds': '5', 'resolve-threads': 'true' })).toMatchObject({
    maxFixRounds: 5,
    resolveThreads: true
  })
  expect(problem({ ralph: 'r', 'max-fix-rounds': '0' })).toMatch(
    /^Input 'max-fix-rounds' must be a whole number of at least 1/
  )
})

test('continue-jobs is 1 (no chain) unless given, and at most 20', () => {
  expect(read({ ralph: 'r' }).continueJobs).toBe(1)
  expect(read({ ralph: 'r', 'continue-jobs': '20' }).continueJobs).toBe(20)
  expect(() => read({ ralph: 'r', 'continue-jobs': '21' })).toThrow(InputError)
})

test('isolation is auto, user or none, and the agent user a plain user name', () => {
  expect(read({ ralph: 'r', isolation: 'user', 'agent-user': 'agent-2' })).toMatchObject({
    isolation: 'user',
    agentUser: 'agent-2'
  })
  expect(read({ ralph: 'r', isolation: 'none' }).isolation).toBe('none')
  expect(problem({ ralph: 'r', isolation: 'sandbox' })).toBe(
    `Input 'isolation' must be auto, user or none, got "sandbox".`
  )
  expect(problem({ ralph: 'r', 'agent-user': '../root' })).toMatch(/^Input 'agent-user' must be a user name/)
})

test("the agent's process cap is 4096 unless raised, and at least 32 (threads count)", () => {
  expect(read({ ralph: 'r', 'agent-max-processes': '20000' }).agentMaxProcesses).toBe(20000)
  expect(problem({ ralph: 'r', 'agent-max-processes': '10' })).toBe(
    "Input 'agent-max-processes' must be at least 32 (threads count, and a node program alone has about ten), got 10."
  )
  expect(problem({ ralph: 'r', 'agent-max-processes': 'many' })).toMatch(
    /^Input 'agent-max-processes' must be a whole number/
  )
})

test('every input action.yml declares is read (none is ignored)', () => {
  const source = readInputsSource()
  for (const name of Object.keys(actionYaml().inputs)) expect(source).toContain(`'${name}'`)
})

function readInputsSource(): string {
  return readInputs.toString()
}

test('lists, lines, args, durations, dollars and booleans', () => {
  const inputs = read({
    ralph: 'r',
    checks: 'npm test\n\n  npx tsc --noEmit  \n',
    args: 'focus=src/a b.ts\nmode = strict=yes',
    labels: 'ralph, automated\nbot',
    reviewers: 'octocat,org/team',
    'max-cost': '$2.50',
    'max-time': '90s',
    'max-file-size': '500 KB',
    'agent-timeout': '1.5',
    'completion-tag': 'DONE',
    'on-failure': 'draft-pr',
    draft: 'TRUE',
    'retention-days': '7'
  })
  expect(inputs).toMatchObject({
    checks: ['npm test', 'npx tsc --noEmit'],
    args: [
      ['focus', 'src/a b.ts'],
      ['mode', 'strict=yes']
    ],
    labels: ['ralph', 'automated', 'bot'],
    reviewers: ['octocat', 'org/team'],
    maxCostUsd: 2.5,
    maxTimeSeconds: 90,
    maxFileBytes: 500 * 1024,
    agentTimeoutSeconds: 90,
    completionTag: 'DONE',
    onFailure: 'draft-pr',
    draft: true,
    retentionDays: 7
  })
  expect(read({ ralph: 'r', 'completion-tag': 'none' }).completionTag).toBe('')
  expect(read({ ralph: 'r' }).completionTag).toBeUndefined()
  expect(read({ ralph: 'r', 'max-file-size': '20' }).maxFileBytes).toBe(20 * 1024 * 1024)
  expect(read({ ralph: 'r', 'max-file-size': '1GB' }).maxFileBytes).toBe(1024 ** 3)
})

test("the gates' inputs: baseline on unless false, skip-if-green auto unless true or false, parallel-checks left to the ralph unless given", () => {
  expect(read({ ralph: 'r' })).toMatchObject({ baseline: true, skipIfGreen: 'auto' })
  expect(read({ ralph: 'r', 'skip-if-green': 'false' }).skipIfGreen).toBe(false)
  expect(read({ ralph: 'r' }).parallelChecks).toBeUndefined()
  expect(
    read({ ralph: 'r', baseline: 'false', 'skip-if-green': 'true', 'parallel-checks': 'true' })
  ).toMatchObject({
    baseline: false,
    skipIfGreen: true,
    parallelChecks: true
  })
  expect(read({ ralph: 'r', 'parallel-checks': 'false' }).parallelChecks).toBe(false)
})

test('setup and verify are left to the ralph unless given', () => {
  expect(read({ ralph: 'r' })).not.toHaveProperty('setup')
  expect(read({ ralph: 'r' })).not.toHaveProperty('verify')
  expect(read({ ralph: 'r', setup: 'npm ci\n\nmake fixtures\n', verify: 'tree' })).toMatchObject({
    setup: ['npm ci', 'make fixtures'],
    verify: 'tree'
  })
})

test.each([
  ['30', 1800],
  ['1.5', 90],
  ['90s', 90],
  ['45m', 2700],
  ['2h', 7200],
  ['10 min', 600]
])('the input duration %s is %i seconds (a bare number is minutes)', (text, seconds) => {
  expect(parseDuration(text, 'm')).toBe(seconds)
})

describe('bad input is one line that names the input and the fix', () => {
  test.each([
    [{}, "Input 'ralph' is required: name a folder holding RALPH.md"],
    [{ ralph: 'r', prompt: 'do it' }, "Inputs 'ralph' and 'prompt' were both given"],
    [{ prompt: 'do it' }, "Input 'prompt' needs 'agent'"],
    [
      { ralph: 'r', 'max-iterations': '0' },
      'Input \'max-iterations\' must be a whole number of at least 1, got "0".'
    ],
    [
      { ralph: 'r', 'max-time': 'an hour' },
      "Input 'max-time' must be a number of minutes (like 30 or 1.5) or have a unit"
    ],
    [{ ralph: 'r', 'agent-timeout': '-5' }, "Input 'agent-timeout' must be a number of minutes"],
    [{ ralph: 'r', 'max-cost': 'five' }, "Input 'max-cost' must be an amount in US dollars like 5 or 2.50"],
    [{ ralph: 'r', draft: 'yes' }, 'Input \'draft\' must be true or false, got "yes".'],
    [
      { ralph: 'r', 'max-file-size': 'big' },
      'Input \'max-file-size\' must be a size like 50 MB, 500 KB or 1 GB (a bare number is megabytes), got "big".'
    ],
    [
      { ralph: 'r', 'skip-if-green': 'yes' },
      'Input \'skip-if-green\' must be auto, true or false, got "yes".'
    ],
    [{ ralph: 'r', 'parallel-checks': 'on' }, 'Input \'parallel-checks\' must be true or false, got "on".'],
    [{ ralph: 'r', verify: 'yes' }, 'Input \'verify\' must be clean or tree, got "yes"'],
    [{ ralph: 'r', 'on-failure': 'pr' }, 'Input \'on-failure\' must be none, push or draft-pr, got "pr".'],
    [{ ralph: 'r', args: 'focus' }, 'Input \'args\' line 1 ("focus") is not name=value'],
    [{ ralph: 'r', args: 'a b=c' }, 'Input \'args\' line 1 ("a b=c") is not name=value'],
    [
      { ralph: 'r', branch: 'ralph/../x' },
      "Input 'branch' is not a valid branch name (it holds .., @{ or is @)"
    ],
    [
      { ralph: 'r', base: 'refs/heads/main' },
      "Input 'base' is not a valid branch name (give the branch name without refs/heads/)"
    ],
    [
      { ralph: 'r', labels: 'needs review' },
      'Input \'labels\' has "needs review": separate the items with commas or newlines.'
    ],
    [{ ralph: 'r', 'artifact-name': 'a/b' }, "Input 'artifact-name' may not hold any of"],
    [{ ralph: 'r', 'retention-days': '365' }, "Input 'retention-days' must be between 1 and 90, got 365."],
    [{ ralph: 'r', 'completion-tag': '<promise>' }, "Input 'completion-tag' must be one word"],
    [{ ralph: 'r', 'github-token': '' }, "Input 'github-token' is empty"],
    [{ ralph: 'r', 'continue-jobs': '0' }, "Input 'continue-jobs' must be a whole number of at least 1"],
    [{ ralph: 'r', 'continue-jobs': '21' }, 'Input \'continue-jobs\' must be between 1 and 20, got "21".'],
    [
      { ralph: 'r', 'continue-jobs': '99999999999999999999' },
      'Input \'continue-jobs\' must be between 1 and 20, got "99999999999999999999".'
    ],
    [{ ralph: 'r', resume: '12; rm -rf /' }, "Input 'resume' must be the run id of the chain's previous run"],
    [{ ralph: 'r', resume: '0' }, "Input 'resume' must be the run id"],
    [
      { ralph: 'r', mode: 'agent', 'continue-jobs': '3' },
      "Inputs 'continue-jobs' and 'resume' work in mode: run only"
    ],
    [
      { ralph: 'r', 'continue-jobs': '3', 'upload-artifacts': 'false' },
      "Inputs 'continue-jobs' and 'resume' need upload-artifacts: true"
    ]
  ])('%j', (given, message) => {
    const text = problem(given as Record<string, string>)
    expect(text.startsWith(message)).toBe(true)
    expect(text).not.toContain('\n')
  })
})

test.each(['ralph/fix-tests', 'ralph/issue-12', 'feature/a.b_c-d'])('%s is a valid branch name', name => {
  expect(branchNameProblem(name)).toBeUndefined()
})

test.each(['-x', 'a..b', 'a b', 'a~1', 'a:b', 'a/', 'a.lock', '.hidden', 'a//b', 'a@{1}'])(
  '%s is not a valid branch name',
  name => {
    expect(branchNameProblem(name)).toBeDefined()
  }
)

test("the agent's environment keeps the job's variables and drops every token and input", () => {
  const env = agentEnvironment({
    PATH: '/usr/bin',
    HOME: '/home/runner',
    GITHUB_WORKSPACE: '/w',
    GITHUB_TOKEN: 't',
    GH_TOKEN: 't',
    ACTIONS_RUNTIME_TOKEN: 't',
    ACTIONS_RESULTS_URL: 'u',
    ACTIONS_ID_TOKEN_REQUEST_TOKEN: 't',
    ACTIONS_ID_TOKEN_REQUEST_URL: 'u',
    'INPUT_GITHUB-TOKEN': 't',
    'INPUT_PUSH-TOKEN': 't',
    STATE_isPost: 'true',
    ANTHROPIC_API_KEY: 'k'
  })
  expect(env).toEqual({
    PATH: '/usr/bin',
    HOME: '/home/runner',
    GITHUB_WORKSPACE: '/w',
    ANTHROPIC_API_KEY: 'k'
  })
})

describe('agent inputs', () => {
  test('presets, allow-env and max-turns are read', () => {
    const inputs = read({ ralph: 'r', presets: 'false', 'allow-env': 'GH_TOKEN, NPM_*', 'max-turns': '12' })
    expect(inputs).toMatchObject({ presets: false, allowEnv: ['GH_TOKEN', 'NPM_*'], maxTurns: 12 })
  })

  test('protected-paths: the ralph decides when empty; auto, none, or globs (a brace comma is the glob’s)', () => {
    expect(read({ ralph: 'r' }).protectedPaths).toBeUndefined()
    expect(read({ ralph: 'r', 'protected-paths': 'none' }).protectedPaths).toEqual(['none'])
    expect(read({ ralph: 'r', 'protected-paths': 'auto, docs/*.{md,txt}\nspec/**' }).protectedPaths).toEqual([
      'auto',
      'docs/*.{md,txt}',
      'spec/**'
    ])
    expect(problem({ ralph: 'r', 'protected-paths': 'none, docs' })).toBe(
      "Input 'protected-paths': 'none' turns protection off and cannot be listed with other globs."
    )
    expect(problem({ ralph: 'r', 'protected-paths': '../up' })).toMatch(
      /^Input 'protected-paths': '..\/up' must be a path inside/
    )
  })

  test('install-agent: off by default; true, a CLI, or a CLI at an exact version', () => {
    expect(read({ ralph: 'r' }).installAgent).toBeUndefined()
    expect(read({ ralph: 'r', 'install-agent': 'false' }).installAgent).toBeUndefined()
    expect(read({ ralph: 'r', 'install-agent': 'true' }).installAgent).toEqual({})
    expect(read({ ralph: 'r', 'install-agent': 'qwen' }).installAgent).toEqual({ name: 'qwen' })
    expect(read({ ralph: 'r', 'install-agent': 'claude@2.1.400-beta.1' }).installAgent).toEqual({
      name: 'claude',
      version: '2.1.400-beta.1'
    })
  })

  test('install-agent refuses an unknown CLI and a version that is not exact, naming the fix', () => {
    expect(problem({ ralph: 'r', 'install-agent': 'aider' })).toBe(
      'Input \'install-agent\' must be true, false, or one of claude, codex, gemini, opencode, qwen (optionally @version, e.g. claude@2.1.332), got "aider".'
    )
    expect(problem({ ralph: 'r', 'install-agent': 'claude@latest' })).toBe(
      'Input \'install-agent\' has the version "latest": give an exact version like 2.1.332.'
    )
    // No shell or npm syntax reaches npm: a range, a tag, a URL or a second @ is refused.
    for (const value of ['codex@^0.169.0', 'codex@0.169.0 --foo', 'gemini@file:../x', 'qwen@1.0.0@2'])
      expect(problem({ ralph: 'r', 'install-agent': value })).toMatch(/^Input 'install-agent' /)
  })
})

describe('the model proxy inputs', () => {
  test('are auto by default (decided once the agent is known), off with false, and carry the network mode when on', () => {
    expect(read({ ralph: 'r' }).modelProxy).toEqual({ network: 'model-only', auto: true })
    expect(read({ ralph: 'r', 'model-proxy': 'auto' }).modelProxy).toEqual({
      network: 'model-only',
      auto: true
    })
    expect(read({ ralph: 'r', 'model-proxy': 'false' }).modelProxy).toBeUndefined()
    expect(read({ ralph: 'r', 'model-proxy': 'true' }).modelProxy).toEqual({ network: 'model-only' })
    // A proxy setting given under auto asks for the proxy: it is then on, or fails, as with true.
    expect(read({ ralph: 'r', 'agent-network': 'open' }).modelProxy).toEqual({ network: 'open' })
    expect(
      read({ ralph: 'r', 'model-proxy': 'true', 'allowed-hosts': 'registry.npmjs.org, *.pypi.org' })
        .modelProxy
    ).toEqual({
      network: 'allow-list',
      allowedHosts: ['registry.npmjs.org', '*.pypi.org']
    })
  })

  test('name the input and the fix when they cannot work', () => {
    expect(() => read({ ralph: 'r', 'model-proxy': 'false', 'allowed-hosts': 'x.org' })).toThrow(
      new InputError("Input 'allowed-hosts' needs the model proxy: turn model-proxy on as well.")
    )
    expect(() => read({ ralph: 'r', 'model-proxy': 'yes' })).toThrow(
      new InputError('Input \'model-proxy\' must be auto, true or false, got "yes".')
    )
    expect(() => read({ ralph: 'r', 'model-proxy': 'true', 'agent-network': 'closed' })).toThrow(
      /^Input 'agent-network' must be one of model-only, allow-list, open, got "closed"\.$/
    )
  })
})

test('allowed-bots takes a bot login with or without its [bot] suffix, as the permission check does (issue #26)', () => {
  expect(read({ ralph: 'r', 'allowed-bots': 'labeler, my-app[bot]' }).allowedBots).toEqual([
    'labeler',
    'my-app[bot]'
  ])
  expect(() => read({ ralph: 'r', 'allowed-bots': 'evil/app' })).toThrow(
    new InputError(
      'Input \'allowed-bots\' has "evil/app": give bot logins as they appear, like my-app[bot] (the [bot] suffix may be left out).'
    )
  )
})

test('bot-login names the account an installation token delivers as; github-actions[bot] by default', () => {
  expect(read({ ralph: 'r' }).botLogin).toBe('github-actions[bot]')
  expect(read({ ralph: 'r', 'bot-login': 'my-app[bot]' }).botLogin).toBe('my-app[bot]')
  expect(() => read({ ralph: 'r', 'bot-login': 'my-app' })).toThrow(
    new InputError('Input \'bot-login\' must be a bot login as it appears, like my-app[bot], got "my-app".')
  )
})

test("holdout-ref is read as the held-out files' source instead of holdout-path", () => {
  expect(read({ ralph: 'r', holdout: 'npm test', 'holdout-ref': 'refs/ralph/holdout' }).holdout).toEqual({
    commands: ['npm test'],
    ref: 'refs/ralph/holdout',
    feedback: 'none'
  })
})

test('holdout, holdout-path and holdout-feedback are read: commands one a line, feedback none by default', () => {
  expect(
    read({ ralph: 'r', holdout: 'node --test holdout/\nmake hidden', 'holdout-path': '/srv/h/' }).holdout
  ).toEqual({
    commands: ['node --test holdout/', 'make hidden'],
    path: '/srv/h/',
    feedback: 'none'
  })
  expect(
    read({ ralph: 'r', holdout: 'x', 'holdout-path': '/srv/h', 'holdout-feedback': 'full' }).holdout?.feedback
  ).toBe('full')
  expect(read({ ralph: 'r' }).holdout).toBeUndefined()
})

test('a held-out setting that cannot work is one line naming the input and the fix', () => {
  expect(problem({ ralph: 'r', holdout: 'x' })).toBe(
    "Input 'holdout' needs 'holdout-path' (a folder outside the workspace that only the action’s user can read, filled by an earlier step (e.g. mkdir -m 700 \"$RUNNER_TEMP/holdout\")) or 'holdout-ref' (a ref such as refs/ralph/holdout)."
  )
  expect(
    problem({ ralph: 'r', holdout: 'x', 'holdout-path': '/srv/h', 'holdout-ref': 'refs/ralph/holdout' })
  ).toBe("Inputs 'holdout-path' and 'holdout-ref' are both set: give one source of held-out files.")
  for (const bad of ['ralph/holdout', 'refs/a..b', 'refs/x/', 'refs/x.lock', 'refs/-x y', '--upload-pack=x'])
    expect(problem({ ralph: 'r', holdout: 'x', 'holdout-ref': bad })).toBe(
      `Input 'holdout-ref' must be a full ref name such as refs/ralph/holdout, got '${bad}'.`
    )
  expect(problem({ ralph: 'r', 'holdout-ref': 'refs/ralph/holdout' })).toBe(
    "Input 'holdout-ref' is set but 'holdout' is empty: give the held-out gate commands, one a line."
  )
  expect(problem({ ralph: 'r', holdout: 'x', 'holdout-path': 'rel/h' })).toMatch(
    /^Input 'holdout-path' must be an absolute path, got 'rel\/h': /
  )
  expect(problem({ ralph: 'r', 'holdout-path': '/srv/h' })).toBe(
    "Input 'holdout-path' is set but 'holdout' is empty: give the held-out gate commands, one a line."
  )
  expect(problem({ ralph: 'r', holdout: 'x', 'holdout-path': '/srv/h', 'holdout-feedback': 'some' })).toBe(
    "Input 'holdout-feedback' must be none or full, got 'some'."
  )
})
