// `ralph-action run PATH [options] [user args…]`: ralphify's `ralph run`, plus gates, budgets and a record.
import { copyFileSync, existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import {
  addedChecks,
  loopConfig,
  makeFolder,
  missingPrograms,
  runLoop,
  type LoopConfig,
  type LoopEvent,
  type LoopResult
} from '../loop/index.js'
import {
  argsRead,
  fileProblem,
  loadRalph,
  RalphError,
  resolveRalphPath,
  type LoadedRalph
} from '../ralph/index.js'
import { closeOption, parseArgs, UsageError } from './argv.js'
import { consoleRenderer } from './console.js'
import { isolateCli, type CliIsolation } from './isolation.js'
import type { CliIO } from './io.js'
import { problemLine } from './validate-command.js'
import {
  LOOP_OPTIONS,
  REFERENCE_OPTIONS,
  engineSettings,
  loopSettings,
  type LoopSettings
} from './options.js'

export const RUN_OPTIONS = [...REFERENCE_OPTIONS, ...LOOP_OPTIONS]

/** Gates from `--check`, named by their command, after the ralph's own. */
export const cliChecks = addedChecks

/** The exit code for a finished loop: see "Exit codes" in the README. */
export function exitCodeFor(result: LoopResult, gated: boolean): number {
  if (result.success) return 0
  if (result.stopReason === 'cancelled') return 130
  // A gate-less run that reached its cap ended normally, as it does under ralphify.
  if (result.stopReason === 'max_iterations' && !gated) return 0
  return 3
}

/** The reference's --log-dir files: `<NNN>_<UTC stamp>.log` with the agent's output, echoed after each iteration. */
function logDirWriter(logDir: string, recordDir: string, io: CliIO): (event: LoopEvent) => void {
  return event => {
    if (event.type !== 'iteration_finished' || !event.record.agent) return
    const source = path.join(recordDir, event.record.agent.log)
    if (!existsSync(source)) return
    const stamp = new Date().toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15)
    const file = path.join(logDir, `${String(event.record.iteration).padStart(3, '0')}_${stamp}.log`)
    try {
      makeFolder(logDir)
    } catch (error) {
      throw new RalphError(`The log folder ${logDir} cannot be written: ${fileProblem(error)}.`)
    }
    copyFileSync(source, file)
    io.stdout(`  → ${file}\n`)
  }
}

/**
 * Runs a loop with the CLI's console and signal handling. Interactive: the first Ctrl+C finishes the
 * iteration, the second cancels at once. Otherwise (CI) the first SIGINT or SIGTERM cancels: the agent's
 * tree is killed and the record finished.
 */
export async function runWithConsole(config: LoopConfig, settings: LoopSettings, io: CliIO): Promise<number> {
  const missing = missingPrograms(config, io.env.PATH)
  if (missing.length > 0) throw new RalphError(missing.join('\n'))
  const cancel = new AbortController()
  const finish = new AbortController()
  const onSignal = (signal: NodeJS.Signals): void => {
    if (signal === 'SIGINT' && io.interactive && !finish.signal.aborted) {
      finish.abort()
      io.stdout('\nFinishing current iteration… (Ctrl+C again to force stop)\n')
    } else cancel.abort()
  }
  process.on('SIGINT', onSignal)
  process.on('SIGTERM', onSignal)
  const render = consoleRenderer({
    out: io.stdout,
    agentTimeoutSeconds: settings.agentTimeoutSeconds,
    completionTag: config.completionTag
  })
  const logDir = settings.logDir
    ? logDirWriter(path.resolve(io.cwd, settings.logDir), config.recordDir, io)
    : undefined
  if (settings.logDir) io.stdout(`Logging output to ${settings.logDir}/\n`)
  let isolation: CliIsolation | undefined
  try {
    isolation = await isolateCli(config, settings, message => io.stderr(`${message}\n`))
    // Behind the model proxy, the isolated uid is what the egress rules match.
    const egress = isolation && { agentUid: isolation.uid, agentPrivilege: isolation.privilege }
    const loopConfig =
      egress && config.modelProxy ? { ...config, modelProxy: { ...config.modelProxy, ...egress } } : config
    const result = await runLoop(loopConfig, {
      signal: cancel.signal,
      finishSignal: finish.signal,
      emit: event => {
        render(event)
        logDir?.(event)
      },
      ...(isolation
        ? {
            runProcess: isolation.runProcess,
            agentEnvironment: isolation.agentEnvironment,
            verify: isolation.verify
          }
        : {}),
      ...(io.stdoutRoom ? { outputRoom: io.stdoutRoom } : {})
    })
    if (result.error) io.stderr(`Run crashed: ${result.error}\n`)
    return exitCodeFor(result, config.checks.length > 0)
  } finally {
    await isolation?.release(message => io.stderr(`Warning: ${message}\n`))
    process.off('SIGINT', onSignal)
    process.off('SIGTERM', onSignal)
  }
}

/**
 * `--max-iteration 3` is a typo of our own option, not an arg: run unbounded it would spend without a cap.
 * Exit 2, unless the ralph declares an arg of that name or reads one (a ralph written for ralphify may read
 * args it never declares).
 */
function refuseMistypedOptions(ralph: LoadedRalph, userArgs: string[], read: string[]): void {
  for (const name of Object.keys(ralph.argValues)) {
    if (ralph.args.includes(name) || read.includes(name)) continue
    const token = (userArgs.find(t => t === `--${name}` || t.startsWith(`--${name}=`)) ?? `--${name}`).split(
      '='
    )[0]
    const meant = closeOption(token, RUN_OPTIONS)
    if (meant)
      throw new UsageError(
        `No such option: ${token} (did you mean ${meant}?). ${ralph.name} declares no arg of that name either.`
      )
  }
}

/**
 * The reference takes any `--name value` as a ralph arg, so a mistyped option (`--max-iteration 2`) is
 * silently an arg. Those args stay args, but one the ralph never reads is named, with the option it was
 * probably meant to be.
 */
function warnUnreadArgs(ralph: LoadedRalph, userArgs: string[], read: string[] | undefined, io: CliIO): void {
  if (read === undefined) return
  for (const name of Object.keys(ralph.argValues)) {
    if (read.includes(name)) continue
    const token = userArgs.find(t => t === `--${name}` || t.startsWith(`--${name}=`)) ?? `--${name}`
    const meant = closeOption(token, RUN_OPTIONS)
    io.stderr(
      `Warning: ${token.split('=')[0]} is not an option of run, and ${ralph.name} never reads {{ args.${name} }}: it is ignored.${meant ? ` Did you mean ${meant}?` : ''}\n`
    )
  }
}

export async function runCommand(args: string[], io: CliIO): Promise<number> {
  const { options, rest, typed } = parseArgs(args, RUN_OPTIONS)
  const [pathArg, ...userArgs] = rest
  if (pathArg === undefined) throw new UsageError("Missing argument 'PATH'.")
  const settings = loopSettings(options, typed)
  const resolved = resolveRalphPath(pathArg, { cwd: io.cwd, home: io.home })
  if (resolved.notice) io.stdout(`${resolved.notice}\n`)
  const ralph = loadRalph(resolved.file, { cwd: io.cwd, env: io.env, userArgs, checkPrograms: true })
  // The args the body reads (undefined when that cannot be told), read once for both checks.
  const read = argsRead(ralph.file, readFileSync(ralph.file, 'utf8'))
  refuseMistypedOptions(ralph, userArgs, read ?? [])
  // ralphify runs such a ralph as it is, and so does run: said, not refused.
  for (const warning of ralph.warnings) io.stderr(problemLine(warning, io.cwd, 'warning: '))
  warnUnreadArgs(ralph, userArgs, read, io)
  const checks = [...ralph.checks, ...cliChecks(settings.checks, ralph.checks)]
  const config = loopConfig({
    ralph,
    projectRoot: io.cwd,
    userArgs: ralph.argValues,
    ...engineSettings(settings, io.cwd),
    checks,
    completionTag: settings.completionTag ?? ralph.completionTag ?? 'COMPLETE',
    commit: settings.commit,
    presets: settings.presets && (ralph.presets ?? true),
    // `run` is ralphify's `ralph run`: the agent's argv stays the reference's (claude's stream flags only)
    // unless our own settings need more (--max-cost: codex --json, claude --max-budget-usd).
    presetFlags: 'reference'
  })
  return runWithConsole(config, settings, io)
}
