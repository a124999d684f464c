// Running the real agent CLIs (installed by scripts/install-agent-clis.mjs) against the scripted model servers.
//
//   const server = await startAnthropicServer({ script: [claudeWrite('a.txt', 'hi\n'), text('Done.')] })
//   const run = await runAgentCli('claude', { cwd, env: claudeEnv(server.url, home), args: claudeArgs(), prompt })
import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { AgentIsolation } from '../../src/security/index.js'
import { agentCli, type AgentCli, type AgentCliName } from '../../src/agents/clis.js'
import { endpointSetup } from '../../src/agents/endpoints.js'

export type AgentName = AgentCliName

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
export const INSTALL_SCRIPT = 'scripts/install-agent-clis.mjs'
/** Where the install script puts the CLIs (gitignored). */
export const AGENT_CACHE_DIR = join(repoRoot, '.tool-cache', 'agents')

/** A model id claude 2.1.332 has a list price for ($3 / $15 per million input / output tokens). */
export const CLAUDE_TEST_MODEL = 'claude-sonnet-4-5'
/** A model id in codex 0.169.0's catalog (an unknown one works too, but prints a "metadata not found" item). */
export const CODEX_TEST_MODEL = 'gpt-5.5'

/** The model each CLI asks the scripted server for: all of them in the price table. */
export const TEST_MODELS: Record<AgentName, string> = {
  claude: CLAUDE_TEST_MODEL,
  codex: CODEX_TEST_MODEL,
  gemini: 'gemini-2.5-flash',
  // Through opencode's OpenAI-compatible provider, with the price table's cost in its config.
  opencode: CLAUDE_TEST_MODEL,
  qwen: 'qwen3-coder-plus'
}

function cli(name: AgentName): AgentCli {
  const found = agentCli(name)
  if (!found) throw new Error(`${name} is not in scripts/install-agent-clis.json`)
  return found
}

/** The version the repo pins for an agent CLI (scripts/install-agent-clis.json). */
export function pinnedVersion(name: AgentName): string {
  return cli(name).version
}

function installedVersion(name: AgentName): string | undefined {
  const manifest = join(AGENT_CACHE_DIR, 'node_modules', ...cli(name).package.split('/'), 'package.json')
  if (!existsSync(manifest)) return undefined
  return (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version
}

/** Why an agent CLI cannot be run, or undefined when it is installed at the pinned version. */
export function whyNotInstalled(name: AgentName): string | undefined {
  const want = pinnedVersion(name)
  const have = installedVersion(name)
  if (have === want && existsSync(join(AGENT_CACHE_DIR, 'node_modules', '.bin', name))) return undefined
  const state = have
    ? `is at ${have}, not the pinned ${want}`
    : `${want} is not installed in ${AGENT_CACHE_DIR}`
  return `${name} ${state}: run \`node ${INSTALL_SCRIPT}\` (about 1.4 GB, 1-2 minutes)`
}

/** The path of the installed CLI; throws with the fix when it is missing. */
export function agentBin(name: AgentName): string {
  const why = whyNotInstalled(name)
  if (why) throw new Error(why)
  return join(AGENT_CACHE_DIR, 'node_modules', '.bin', name)
}

/** Variables that must not leak from the developer's or the runner's environment into a test CLI. */
const BASE_VARIABLES = ['PATH', 'LANG', 'LC_ALL', 'TZ', 'TMPDIR', 'SYSTEMROOT']

function baseEnv(home: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { HOME: home, USERPROFILE: home, XDG_CONFIG_HOME: join(home, '.config') }
  for (const name of BASE_VARIABLES) if (process.env[name] !== undefined) env[name] = process.env[name]
  env.LANG ??= 'C.UTF-8'
  return env
}

export interface AgentEnvOptions {
  /** Retries on a failed request. claude: CLAUDE_CODE_MAX_RETRIES (default 10, exponential back-off up to
   * ~35 s: minutes in all); codex: request_max_retries and stream_max_retries of the provider (default 5). */
  maxRetries?: number | undefined
  /** Another model than TEST_MODELS[name]. */
  model?: string
}

export interface LiveSetup {
  env: NodeJS.ProcessEnv
  /** Flags the CLI needs on its command line to reach only the server (opencode's --pure). */
  args: string[]
}

/**
 * A real CLI pointed at a scripted server, through the product's own recipe (src/agents/endpoints.ts): its
 * files written under a throwaway HOME, its variables on top of PATH and locale only, so a developer's login or
 * API settings cannot leak in.
 */
export function liveSetup(
  name: AgentName,
  serverUrl: string,
  home: string,
  options: AgentEnvOptions = {}
): LiveSetup {
  mkdirSync(home, { recursive: true })
  const setup = endpointSetup(
    name,
    {
      url: serverUrl,
      apiKey: `sk-scripted-offline-${name}`,
      model: options.model ?? TEST_MODELS[name],
      ...(options.maxRetries !== undefined ? { maxRetries: options.maxRetries } : {})
    },
    home
  )
  for (const [file, content] of Object.entries(setup.files)) {
    mkdirSync(dirname(file), { recursive: true })
    writeFileSync(file, content)
  }
  return { env: { ...baseEnv(home), ...setup.env }, args: setup.args }
}

/** The environment for the real claude CLI against a scripted Anthropic server. */
export function claudeEnv(serverUrl: string, home: string, options: AgentEnvOptions = {}): NodeJS.ProcessEnv {
  return liveSetup('claude', serverUrl, home, options).env
}

export interface ClaudeArgsOptions {
  model?: string
  /** Extra arguments, e.g. ['--max-budget-usd', '0.5'] or ['--max-turns', '3']. */
  extra?: string[] | undefined
}

/**
 * Headless argv for claude, prompt on stdin. As root `--dangerously-skip-permissions` refuses to run without
 * IS_SANDBOX=1. `--permission-mode acceptEdits` lets Write/Edit touch files under the working directory only (a
 * path outside it is denied: a `permission_denials` entry); `--allowedTools Bash` adds the shell, which acceptEdits
 * alone denies. (Naming Write in --allowedTools would allow writes anywhere, /etc included, as root.)
 */
export function claudeArgs(options: ClaudeArgsOptions = {}): string[] {
  return [
    '-p',
    '--output-format',
    'stream-json',
    '--verbose',
    '--model',
    options.model ?? CLAUDE_TEST_MODEL,
    '--permission-mode',
    'acceptEdits',
    '--allowedTools',
    'Bash',
    ...(options.extra ?? [])
  ]
}

/**
 * The environment for codex against the scripted Responses server ($CODEX_HOME/config.toml names it: codex ignores
 * OPENAI_BASE_URL). HOME is the throwaway one too: codex runs commands in a login shell, which must not read the
 * real ~/.bash_profile.
 */
export function codexEnv(serverUrl: string, home: string, options: AgentEnvOptions = {}): NodeJS.ProcessEnv {
  return liveSetup('codex', serverUrl, home, options).env
}

export interface CodexArgsOptions {
  /** Extra arguments before the trailing `-`. */
  extra?: string[] | undefined
}

/** Headless argv for codex, prompt on stdin (`-`), quiet: no update check, analytics, feedback, plugins or apps. */
export function codexArgs(options: CodexArgsOptions = {}): string[] {
  return [
    'exec',
    '--json',
    '--skip-git-repo-check',
    '--dangerously-bypass-approvals-and-sandbox',
    '-c',
    'check_for_update_on_startup=false',
    '-c',
    'analytics.enabled=false',
    '-c',
    'feedback.enabled=false',
    '--disable',
    'plugins',
    '--disable',
    'apps',
    ...(options.extra ?? []),
    '-'
  ]
}

export interface AgentRun {
  /** The CLI's pid, which is also its process group id (it runs detached, so a kill takes the whole tree). */
  pid: number
  exitCode: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
  /** stdout parsed line by line; lines that are not JSON are kept as { unparsed: line }. */
  events: Array<Record<string, unknown>>
  durationMs: number
  /** When the CLI was spawned: compare with the server's first request to see the start-up time. */
  startedAt: Date
  /** From the kill (timeout, onLine or abort) to the CLI's exit, when it was killed. */
  killLatencyMs?: number | undefined
  /** When onLine killed the CLI: how many events (non-empty stdout lines) it had read, the killing one included. */
  eventsAtKill?: number | undefined
}

export interface RunAgentOptions {
  cwd: string
  env: NodeJS.ProcessEnv
  args: string[]
  prompt: string
  /** Kill the CLI (its whole process group) after this long. Default 120 s. */
  timeoutMs?: number
  /** Called with each stdout line as it arrives; return true to kill the CLI there (a budget kill). */
  onLine?: (line: string) => boolean | void
  /**
   * How a kill (timeout or onLine) is done. 'tree' (default) signals the process group and every descendant found
   * through /proc; 'group' only the process group, which misses the tools' commands: claude runs each Bash command
   * in a new session, codex each command in its own PTY session.
   */
  kill?: 'tree' | 'group'
  /** Kills the CLI when aborted. */
  abort?: AbortSignal
  /** Run the CLI as the agent's own user (as the action does by default), with `env` made that user's. */
  as?: AgentIsolation
}

interface ProcessInfo {
  pid: number
  state: string
  ppid: number
  pgrp: number
  cmdline: string
}

/** Every process from /proc (Linux), zombies included. */
function listProcesses(): ProcessInfo[] {
  const found: ProcessInfo[] = []
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      // pid (comm) state ppid pgrp …: comm may hold spaces and parentheses, so split after the last ')'.
      const [state, ppid, pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' ')
      found.push({ pid: Number(entry), state, ppid: Number(ppid), pgrp: Number(pgrp), cmdline })
    } catch {
      // gone while we looked
    }
  }
  return found
}

/** The pids of every descendant of `pid`, found through parent links (before the parent dies). */
function descendants(pid: number): number[] {
  const all = listProcesses()
  const found: number[] = []
  let frontier = [pid]
  while (frontier.length > 0) {
    const children = all.filter(proc => frontier.includes(proc.ppid)).map(proc => proc.pid)
    found.push(...children)
    frontier = children
  }
  return found
}

/**
 * Living processes left in a finished run's process group. Zombies do not count: in a container whose PID 1 does
 * not reap, a killed CLI's native child stays a zombie forever.
 */
export function survivorsInGroup(run: AgentRun): number[] {
  return listProcesses()
    .filter(proc => proc.pgrp === run.pid && proc.state !== 'Z')
    .map(proc => proc.pid)
}

/** Living processes whose command line contains `marker` (a tool command can leave the group: codex runs
 * commands in a PTY, in their own session). */
export function survivorsMatching(marker: string): number[] {
  return listProcesses()
    .filter(proc => proc.cmdline.includes(marker) && proc.state !== 'Z' && proc.pid !== process.pid)
    .map(proc => proc.pid)
}

/**
 * Aborts once a process whose command line holds `marker` runs (a command the agent started), or after
 * `capMs`; answers whether one was seen. A kill test that fired before the command started would prove nothing.
 */
export function abortWhenRunning(marker: string, abort: AbortController, capMs = 20_000): Promise<boolean> {
  const until = performance.now() + capMs
  return new Promise(resolve => {
    const look = (): void => {
      const seen = survivorsMatching(marker).length > 0
      if (!seen && performance.now() < until) return void setTimeout(look, 50)
      abort.abort()
      resolve(seen)
    }
    look()
  })
}

/** Runs a real agent CLI to the end and collects its output. */
export function runAgentCli(name: AgentName, options: RunAgentOptions): Promise<AgentRun> {
  const started = performance.now()
  const startedAt = new Date()
  let killedAt: number | undefined
  let eventsRead = 0
  let eventsAtKill: number | undefined
  const command = options.as?.command([agentBin(name), ...options.args], options.env)
  const child = spawn(command?.argv[0] ?? agentBin(name), command?.argv.slice(1) ?? options.args, {
    cwd: options.cwd,
    env: command?.env ?? options.env,
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true
  })
  const signal = (pid: number): void => {
    try {
      process.kill(pid, 'SIGKILL')
    } catch {
      // already gone
    }
  }
  const kill = (): void => {
    if (child.pid === undefined) return
    killedAt ??= performance.now()
    const tree = options.kill === 'group' ? [] : descendants(child.pid)
    signal(-child.pid)
    tree.forEach(signal)
  }
  const timer = setTimeout(kill, options.timeoutMs ?? 120000)
  options.abort?.addEventListener('abort', kill, { once: true })
  let stdout = ''
  let stderr = ''
  let pending = ''
  child.stdout.setEncoding('utf8')
  child.stderr.setEncoding('utf8')
  child.stdout.on('data', (chunk: string) => {
    stdout += chunk
    pending += chunk
    const lines = pending.split('\n')
    pending = lines.pop() ?? ''
    for (const line of lines) {
      if (line.trim() !== '') eventsRead++
      if (options.onLine?.(line) !== true) continue
      eventsAtKill ??= eventsRead
      kill()
    }
  })
  child.stderr.on('data', (chunk: string) => (stderr += chunk))
  child.stdin.on('error', () => undefined)
  if (command) child.stdin.write(command.stdin)
  child.stdin.end(options.prompt)
  return new Promise((resolve, reject) => {
    child.on('error', reject)
    child.on('close', (exitCode, signal) => {
      clearTimeout(timer)
      const ended = performance.now()
      resolve({
        pid: child.pid ?? -1,
        exitCode,
        signal,
        stdout,
        stderr,
        events: parseJsonLines(stdout),
        durationMs: ended - started,
        startedAt,
        killLatencyMs: killedAt === undefined ? undefined : ended - killedAt,
        eventsAtKill
      })
    })
  })
}

export function parseJsonLines(text: string): Array<Record<string, unknown>> {
  return text
    .split('\n')
    .filter(line => line.trim() !== '')
    .map(line => {
      try {
        return JSON.parse(line) as Record<string, unknown>
      } catch {
        return { unparsed: line }
      }
    })
}
