// `ralph-action prompt PATH [--iteration N] [user args…]`: the assembled prompt, exactly, without the agent.
import { loopConfig, previewPrompt } from '../loop/index.js'
import { loadRalph, RalphError, resolveRalphPath } from '../ralph/index.js'
import { parseArgs, UsageError, type OptionSpec } from './argv.js'
import type { CliIO } from './io.js'

export const PROMPT_OPTIONS: OptionSpec[] = [
  {
    key: 'iteration',
    names: ['--iteration'],
    kind: 'int',
    metavar: 'N',
    help: 'The iteration number {{ ralph.iteration }} shows (default 1).'
  },
  {
    key: 'n',
    names: ['-n'],
    kind: 'int',
    metavar: 'N',
    help: 'The max iterations {{ ralph.max_iterations }} shows.'
  }
]

export async function promptCommand(args: string[], io: CliIO): Promise<number> {
  const { options, rest } = parseArgs(args, PROMPT_OPTIONS)
  const [pathArg, ...userArgs] = rest
  if (pathArg === undefined) throw new UsageError("Missing argument 'PATH'.")
  const iteration = (options.iteration as number | undefined) ?? 1
  if (iteration < 1) throw new RalphError(`'--iteration' must be a positive integer, got ${iteration}.`)
  const resolved = resolveRalphPath(pathArg, { cwd: io.cwd, home: io.home })
  const ralph = loadRalph(resolved.file, { cwd: io.cwd, env: io.env, userArgs, skipAgentLookup: true })
  const maxIterations = options.n as number | undefined
  const config = loopConfig({
    ralph,
    projectRoot: io.cwd,
    userArgs: ralph.argValues,
    ...(maxIterations !== undefined ? { maxIterations } : {})
  })
  const prompt = await previewPrompt(config, iteration)
  io.stdout(prompt)
  return 0
}
