// The agent never sees GitHub or Actions credentials: not in its environment, not in /proc/<pid>/environ.
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { agentEnvironment, isSecretVariable, removedVariables } from '../../src/security/index.js'
import { harness, type Harness } from '../loop/harness.js'

const SECRETS: Record<string, string> = {
  GITHUB_TOKEN: 'ghs_secretGithubToken0001',
  GH_TOKEN: 'ghp_secretGhToken0002',
  ACTIONS_RUNTIME_TOKEN: 'secretRuntimeToken0003',
  ACTIONS_ID_TOKEN_REQUEST_TOKEN: 'secretIdRequestToken0004',
  ACTIONS_ID_TOKEN_REQUEST_URL: 'https://secret.example/id-token-0005',
  ACTIONS_RESULTS_URL: 'https://secret.example/results-0006',
  'INPUT_GITHUB-TOKEN': 'ghs_secretInputToken0007',
  INPUT_ANTHROPIC_API_KEY: 'sk-ant-secretInput0008'
}

test('the deny-list: GitHub and Actions credentials and every INPUT_* go; everything else stays', () => {
  const base = {
    ...SECRETS,
    PATH: '/usr/bin',
    HOME: '/home/runner',
    ANTHROPIC_API_KEY: 'sk-ant-x',
    GITHUB_SHA: 'abc'
  }
  const env = agentEnvironment(base)
  expect(env).toEqual({
    PATH: '/usr/bin',
    HOME: '/home/runner',
    ANTHROPIC_API_KEY: 'sk-ant-x',
    GITHUB_SHA: 'abc'
  })
  expect(removedVariables(base)).toEqual(Object.keys(SECRETS).sort())
  expect(isSecretVariable('github_token')).toBe(true)
  expect(isSecretVariable('GITHUB_REPOSITORY')).toBe(false)
})

test('the user can let a variable through by name or prefix, and set more', () => {
  const env = agentEnvironment(SECRETS, { allow: ['GH_TOKEN', 'INPUT_ANTHROPIC*'], set: { MY_FLAG: '1' } })
  expect(Object.keys(env).sort()).toEqual(['GH_TOKEN', 'INPUT_ANTHROPIC_API_KEY', 'MY_FLAG'])
})

describe('a real agent run by the loop', () => {
  let h: Harness
  const saved: Record<string, string | undefined> = {}

  beforeEach(() => {
    h = harness()
    for (const [name, value] of Object.entries({ ...SECRETS, RALPH_ENV_VISIBLE: 'visible-0009' })) {
      saved[name] = process.env[name]
      process.env[name] = value
    }
  })

  afterEach(() => {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name]
      else process.env[name] = value
    }
    h.cleanup()
  })

  /** An agent that writes what it can see: `env`, its own /proc/<pid>/environ, and a child's. */
  function spyAgent(): string {
    return h.script(
      'spy-agent.sh',
      `cat >/dev/null
env > '${h.tools}/env.txt'
tr '\\0' '\\n' < /proc/$$/environ > '${h.tools}/proc-environ.txt'
sh -c 'tr "\\\\0" "\\\\n" < /proc/self/environ' > '${h.tools}/child-environ.txt'`
    )
  }

  const seen = (file: string): string => readFileSync(path.join(h.tools, file), 'utf8')

  it('cannot see the credentials, by env or through /proc/self/environ', async () => {
    h.writeRalph(`agent: ${spyAgent()}`, 'Look around.')
    const { result } = await h.run({ maxIterations: 1 })
    expect(result.iterations[0].agent?.exitCode).toBe(0)
    for (const file of ['env.txt', 'proc-environ.txt', 'child-environ.txt']) {
      const text = seen(file)
      expect(text).toContain('RALPH_ENV_VISIBLE=visible-0009')
      for (const [name, value] of Object.entries(SECRETS)) {
        expect(text).not.toContain(`${name}=`)
        expect(text).not.toContain(value)
      }
    }
  })

  it('sees what the user allowed back', async () => {
    h.writeRalph(`agent: ${spyAgent()}`, 'Look around.')
    await h.run({ maxIterations: 1, agentEnv: { allow: ['GH_TOKEN'], set: { RALPH_EXTRA: 'set-0010' } } })
    const text = seen('proc-environ.txt')
    expect(text).toContain(`GH_TOKEN=${SECRETS.GH_TOKEN}`)
    expect(text).toContain('RALPH_EXTRA=set-0010')
    expect(text).not.toContain(SECRETS.GITHUB_TOKEN)
  })
})
