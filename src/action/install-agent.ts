// The install-agent input: the agent's CLI at the version ralph-action tested, installed into the runner's
// tool cache, kept across runs in the Actions cache (keyed on name, version, OS and arch), and put on PATH
// for the agent and the job's later steps. A second run restores it from the cache instead of npm.
import { existsSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import * as core from '@actions/core'
import { agentCli, agentCliOf, AGENT_CLIS, type AgentCli } from '../agents/clis.js'
import { agentEnvironment } from '../security/index.js'
import { binDirOf, holds, installAgentCli } from '../agents/install.js'
import { restoreFolder, saveFolder } from '../github/cache.js'
import { InputError, type ActionInputs } from './inputs.js'

export interface AgentInstall {
  cli: AgentCli
  version: string
}

/** Which CLI and version install-agent asks for, with the agent command it is for. */
export function agentInstallFor(
  request: NonNullable<ActionInputs['installAgent']>,
  agentArgv: string[]
): AgentInstall {
  const cli = request.name ? agentCli(request.name) : agentCliOf(agentArgv)
  if (!cli)
    throw new InputError(
      `Input 'install-agent' is true, but the agent command starts with '${agentArgv[0]}', not one of the CLIs ralph-action installs (${AGENT_CLIS.map(c => c.name).join(', ')}): name the CLI (install-agent: claude), or install the agent in an earlier step.`
    )
  return { cli, version: request.version ?? cli.version }
}

/** Where an install lives: the tool cache's layout (`<tool>/<version>/<arch>`, done when `<arch>.complete` exists). */
function toolDir({ cli, version }: AgentInstall, env: NodeJS.ProcessEnv): string {
  const toolCache = env.RUNNER_TOOL_CACHE || path.join(env.RUNNER_TEMP || os.tmpdir(), 'tool-cache')
  return path.join(toolCache, `ralph-action-agent-${cli.name}`, version, os.arch())
}

/** The Actions cache key of an install. */
export const cacheKeyOf = ({ cli, version }: AgentInstall): string =>
  `ralph-action-agent-${cli.name}-${version}-${process.platform}-${os.arch()}`

export interface InstalledAgent {
  /** The folder put on PATH. */
  binDir: string
  /** Where the CLI came from this time. */
  source: 'tool cache' | 'Actions cache' | 'npm registry'
  seconds: number
}

/** Installs (or finds, or restores) the CLI and puts it on PATH. Throws InstallError when it cannot. */
export async function installAgent(install: AgentInstall, env = process.env): Promise<InstalledAgent> {
  const started = Date.now()
  const { cli, version } = install
  if (version !== cli.version)
    core.warning(
      `install-agent: ${cli.name} ${version} is not the version ralph-action tested (${cli.version}): its output may differ from what the ${cli.name} preset reads.`
    )
  const dir = toolDir(install, env)
  const complete = `${dir}.complete`
  // The CLI's own code runs here (its postinstall, --version): never with the job's credentials.
  const agentEnv = agentEnvironment(env)
  let source: InstalledAgent['source']
  if (existsSync(complete) && holds(cli, version, dir)) source = 'tool cache'
  else {
    rmSync(complete, { force: true })
    rmSync(dir, { recursive: true, force: true })
    const key = cacheKeyOf(install)
    // Saved only after a checked install (it ran and printed its version): its files are enough here.
    if ((await restoreFolder(dir, key)) && holds(cli, version, dir)) source = 'Actions cache'
    else {
      rmSync(dir, { recursive: true, force: true })
      core.info(`Installing ${cli.package}@${version} from the npm registry into ${dir}.`)
      await installAgentCli(cli, version, dir, agentEnv)
      source = 'npm registry'
      // Saved before the agent runs: the cache holds the install as npm made it.
      if (await saveFolder(dir, key))
        core.info(`Saved ${cli.name} ${version} in the Actions cache as ${key}.`)
    }
    writeFileSync(complete, '')
  }
  const binDir = binDirOf(dir)
  core.addPath(binDir)
  const seconds = (Date.now() - started) / 1000
  core.info(`${cli.name} ${version} is on PATH (${binDir}), from the ${source} in ${seconds.toFixed(1)} s.`)
  return { binDir, source, seconds }
}
