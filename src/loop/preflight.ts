// Say no before spending: every program a loop will start (the agent, the ralph's commands, every gate) is
// looked for before the first agent run. A missing one would otherwise show only after the agent had run
// (a gate's "command not found", iteration after iteration, until the circuit opened).
import { missingAgentProgram, missingCommandProgram, missingGateProgram } from '../ralph/index.js'
import type { LoopConfig } from './types.js'

/** One line for each program the loop would start that cannot be found; [] when every one is there. */
export function missingPrograms(config: LoopConfig, searchPath = process.env.PATH): string[] {
  const { ralph } = config
  const dirs = { ralphDir: ralph.dir, projectRoot: config.projectRoot }
  return [
    missingAgentProgram(ralph.agentArgv, config.projectRoot, searchPath),
    ...ralph.commands.map(command => missingCommandProgram(command, config.userArgs, dirs, searchPath)),
    ...config.checks.map(check => missingGateProgram(check, config.projectRoot, searchPath))
  ].filter((problem): problem is string => problem !== undefined)
}
