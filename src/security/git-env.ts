// The action's own git is hermetic. git reads ~/.gitconfig and the system config before any `-c`: a
// trace2.eventTarget there records the push's auth header, and an insteadOf rewrite there wins the tie with
// ours and sends the push (and its header) to a program of the agent's. So every git command the action runs
// reads no system or global config, has a HOME of its own, inherits no GIT_* variable and runs no hook.
import { execFileSync } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { isSecretVariable } from './env.js'

/** `git -c` settings passed through the environment (GIT_CONFIG_COUNT), so no value ever shows in argv. */
export type ConfigEntries = ReadonlyArray<readonly [key: string, value: string]>

// Whatever the agent left in .git/config must not run code while the action (and its tokens) is alive: no
// hooks (post-checkout, reference-transaction, husky's core.hooksPath), no fsmonitor daemon.
// Nor does the work tree, the agent's: its .gitattributes can name a filter or a diff driver, which runs
// only if config defines it, so no attributes file and no submodule recursion of git's own add to that.
const HARDENING: ConfigEntries = [
  ['core.hooksPath', '/dev/null'],
  ['core.fsmonitor', 'false'],
  ['core.attributesFile', '/dev/null'],
  ['submodule.recurse', 'false'],
  ['fetch.recurseSubmodules', 'false']
]

/** Environment variables that add `entries` as command-line-scope config, after any already set. */
export function configEnv(entries: ConfigEntries, base: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const start = Number(base.GIT_CONFIG_COUNT ?? 0) || 0
  const env: NodeJS.ProcessEnv = { GIT_CONFIG_COUNT: String(start + entries.length) }
  entries.forEach(([key, value], i) => {
    env[`GIT_CONFIG_KEY_${start + i}`] = key
    env[`GIT_CONFIG_VALUE_${start + i}`] = value
  })
  return env
}

let ownHome: string | undefined
let jobSafeDirectories: string[] | undefined

/** An empty HOME of the action's own (mode 0700), made once per process. */
function gitHome(): string {
  ownHome ??= mkdtempSync(path.join(process.env.RUNNER_TEMP || tmpdir(), 'ralph-git-home-'))
  return ownHome
}

/**
 * The job's own `safe.directory` settings (a container job's checkout is owned by another user, and
 * actions/checkout trusts it in the global config), read once, the first time git runs: before the loop.
 */
function safeDirectories(): string[] {
  if (jobSafeDirectories) return jobSafeDirectories
  try {
    const out = execFileSync('git', ['config', '--get-all', 'safe.directory'], {
      cwd: '/',
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: 10_000
    })
    jobSafeDirectories = out.split('\n').filter(Boolean)
  } catch {
    jobSafeDirectories = []
  }
  return jobSafeDirectories
}

/**
 * The variables for one git command of the action, merged over `base` by the caller (an undefined value
 * removes a variable): no secret, no GIT_* of the job's, no system or global config, an own HOME, no hooks,
 * no prompt; `config` is added as command-line config.
 */
export function hermeticGitEnvironment(
  config: ConfigEntries = [],
  base: NodeJS.ProcessEnv = process.env
): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {}
  for (const name of Object.keys(base))
    if (name.startsWith('GIT_') || isSecretVariable(name) || name.startsWith('XDG_')) env[name] = undefined
  const home = gitHome()
  const trusted: ConfigEntries = safeDirectories().map(dir => ['safe.directory', dir] as const)
  return {
    ...env,
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, '.config'),
    GIT_CONFIG_NOSYSTEM: '1',
    // Not a file of ours: under isolation none the agent is our user and could write one; /dev/null stays empty.
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_ATTR_NOSYSTEM: '1',
    GIT_TERMINAL_PROMPT: '0',
    GIT_ASKPASS: '',
    SSH_ASKPASS: '',
    ...configEnv([...HARDENING, ...trusted, ...config])
  }
}
