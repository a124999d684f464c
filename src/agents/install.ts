// Installing one agent CLI from the npm registry into a folder of its own, as the live tier installs the
// versions it tests: npm with scripts off (the result never depends on the user's npm config), then the one
// postinstall that links a native binary (claude, opencode) run explicitly, then `<bin> --version` checked.
// Everything runs with the agent's environment (no GitHub or Actions credential): a package's postinstall is
// third-party code.
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  writeFileSync
} from 'node:fs'
import path from 'node:path'
import { decodeCaptured, runProcess } from '../proc/index.js'
import type { RunResult } from '../proc/types.js'
import type { AgentCli } from './clis.js'

/** Something went wrong installing: the message says what and how to fix it. */
export class InstallError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'InstallError'
  }
}

const NPM_TIMEOUT_MS = 15 * 60 * 1000
const SCRIPT_TIMEOUT_MS = 5 * 60 * 1000
const VERSION_TIMEOUT_MS = 2 * 60 * 1000

/** The folder whose programs go on PATH. */
export const binDirOf = (dir: string): string => path.join(dir, 'node_modules', '.bin')

/** What went wrong, in a few lines: npm says it first (`npm error code …`), other programs last. */
function whatFailed(result: RunResult): string {
  const lines = decodeCaptured(result.stderr).trim().split('\n')
  const npm = lines.filter(line => line.startsWith('npm error') && !/complete log|proxy/i.test(line))
  return (npm.length > 0 ? npm.slice(0, 4) : lines.slice(-3)).join(' ').slice(0, 400)
}

/**
 * Whether `dir` holds `cli` at `version` with its program in place: a look at its files, without starting it
 * (gemini takes seconds to print its version), for an install restored from a cache.
 */
export function holds(cli: AgentCli, version: string, dir: string): boolean {
  try {
    const manifest = path.join(dir, 'node_modules', ...cli.package.split('/'), 'package.json')
    const found = (JSON.parse(readFileSync(manifest, 'utf8')) as { version?: unknown }).version
    return found === version && existsSync(path.join(binDirOf(dir), cli.bin))
  } catch {
    return false
  }
}

/** The version `<bin> --version` prints from `dir`, or undefined when it does not run. */
export async function reportedVersion(
  cli: AgentCli,
  dir: string,
  env: NodeJS.ProcessEnv
): Promise<string | undefined> {
  const result = await runProcess({
    argv: [path.join(binDirOf(dir), cli.bin), '--version'],
    cwd: dir,
    env,
    timeoutMs: VERSION_TIMEOUT_MS
  })
  return result.exitCode === 0 ? decodeCaptured(result.stdout).trim() : undefined
}

/**
 * Makes an install usable by every user (the agent's own, under isolation): what the package ships without
 * its x bit runnable, and every file readable, every folder passable (a umask of 077 would hide them), nothing
 * writable but by its owner. Only `dir`'s own content changes; links are not followed.
 */
export function openToEveryUser(cli: AgentCli, dir: string): void {
  const packageDir = path.join(dir, 'node_modules', ...cli.package.split('/'))
  const runnable = new Set((cli.executables ?? []).map(file => path.join(packageDir, file)))
  const open = (file: string): void => {
    const stat = lstatSync(file)
    if (stat.isSymbolicLink()) return
    const wanted = stat.isDirectory() || runnable.has(file) || (stat.mode & 0o100) !== 0 ? 0o755 : 0o644
    const mode = ((stat.mode & 0o7777) | wanted) & ~0o022
    if (mode !== (stat.mode & 0o7777)) chmodSync(file, mode)
    if (stat.isDirectory()) for (const entry of readdirSync(file)) open(path.join(file, entry))
  }
  for (const file of runnable) if (!existsSync(file)) runnable.delete(file)
  open(dir)
}

/** Installs `cli` at `version` into `dir` (made if missing) and checks that it runs at that version. */
export async function installAgentCli(
  cli: AgentCli,
  version: string,
  dir: string,
  env: NodeJS.ProcessEnv
): Promise<void> {
  mkdirSync(dir, { recursive: true })
  const manifest = { name: 'ralph-action-agent', private: true, dependencies: { [cli.package]: version } }
  writeFileSync(path.join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`)
  const npm = await runProcess({
    argv: [
      'npm',
      'install',
      '--ignore-scripts',
      '--include=optional',
      '--no-package-lock',
      '--no-audit',
      '--no-fund',
      '--engine-strict=false',
      '--loglevel=error'
    ],
    cwd: dir,
    env,
    timeoutMs: NPM_TIMEOUT_MS
  })
  if (npm.spawnError?.code === 'ENOENT')
    throw new InstallError(
      `install-agent needs npm on PATH to install ${cli.package}: add actions/setup-node before this step.`
    )
  if (npm.exitCode !== 0)
    throw new InstallError(
      `npm could not install ${cli.package}@${version} (${npm.timedOut ? 'timed out' : `exit ${npm.exitCode}`}): ${whatFailed(npm)}`
    )
  if (cli.postinstall) {
    const script = await runProcess({
      argv: [process.execPath, cli.postinstall],
      cwd: path.join(dir, 'node_modules', ...cli.package.split('/')),
      env,
      timeoutMs: SCRIPT_TIMEOUT_MS
    })
    if (script.exitCode !== 0)
      throw new InstallError(
        `${cli.package}'s ${cli.postinstall} (which links its native binary) failed (exit ${script.exitCode}): ${whatFailed(script)}`
      )
  }
  openToEveryUser(cli, dir)
  const reported = await reportedVersion(cli, dir, env)
  if (!reported?.includes(version))
    throw new InstallError(
      `${cli.bin} --version printed ${JSON.stringify(reported ?? '(nothing: it did not run)')} after installing ${cli.package}@${version}.`
    )
}
