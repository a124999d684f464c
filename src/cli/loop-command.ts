// `ralph-action loop "TASK" --agent CMD --check CMD …`: a ralph-less run; the task (and/or a spec file)
// stands in for the RALPH.md body.
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { loopConfig, taskRalph } from '../loop/index.js'
import { fileProblem, RalphError } from '../ralph/index.js'
import { closeOption, parseArgs, UsageError, type OptionSpec } from './argv.js'
import type { CliIO } from './io.js'
import { LOOP_OPTIONS, REFERENCE_OPTIONS, engineSettings, loopSettings } from './options.js'
import { cliChecks, runWithConsole } from './run-command.js'

export const TASK_OPTIONS: OptionSpec[] = [
  {
    key: 'agent',
    names: ['--agent'],
    kind: 'string',
    metavar: 'CMD',
    help: 'The agent command; it reads the prompt on stdin.'
  },
  {
    key: 'spec',
    names: ['--spec'],
    kind: 'string',
    metavar: 'FILE',
    help: 'A spec file whose content is the task (after TASK, if both).'
  },
  {
    key: 'n',
    names: ['--max-iterations', '-n'],
    kind: 'int',
    metavar: 'N',
    help: 'Max number of iterations (default 10).'
  },
  {
    key: 'worktree',
    names: ['--worktree'],
    kind: 'flag',
    help: 'Run in a new git worktree on its own branch, left in place for inspection.'
  },
  ...REFERENCE_OPTIONS.filter(o => o.key !== 'n'),
  ...LOOP_OPTIONS
]

export async function loopCommand(args: string[], io: CliIO): Promise<number> {
  const { options, rest, typed } = parseArgs(args, TASK_OPTIONS)
  const unknown = rest.find(token => token.startsWith('-'))
  if (unknown) {
    const meant = closeOption(unknown, TASK_OPTIONS)
    throw new UsageError(`No such option: ${unknown}${meant ? ` (did you mean ${meant}?)` : ''}`)
  }
  if (rest.length > 1) throw new UsageError(`Got ${rest.length} tasks; quote the task as one argument.`)
  const agent = options.agent as string | undefined
  if (!agent) throw new UsageError("Missing option '--agent'.")
  const parts: string[] = []
  if (rest[0] !== undefined) parts.push(rest[0])
  if (options.spec !== undefined) {
    const spec = path.resolve(io.cwd, options.spec as string)
    try {
      parts.push(readFileSync(spec, 'utf8'))
    } catch (error) {
      throw new RalphError(`Cannot read the spec file ${spec}: ${fileProblem(error)}.`)
    }
  }
  if (parts.length === 0) throw new UsageError('Give the task as an argument or with --spec FILE.')
  const settings = loopSettings({ n: 10, ...options }, typed)
  const ralph = taskRalph({ agent, dir: io.cwd, checks: cliChecks(settings.checks, []) })
  const config = loopConfig({
    ralph,
    promptText: parts.join('\n\n'),
    projectRoot: io.cwd,
    ...engineSettings(settings, io.cwd),
    completionTag: settings.completionTag ?? 'COMPLETE',
    commit: settings.commit || options.worktree === true,
    presets: settings.presets,
    ...(options.worktree === true ? { worktree: {} } : {})
  })
  return runWithConsole(config, settings, io)
}
