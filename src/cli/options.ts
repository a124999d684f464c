// The options `run` and `loop` share: the reference runtime's, then ours (gates, budgets, record).
import path from 'node:path'
import { parseFileSize } from '../git/index.js'
import { pyFloatRepr } from '../ralph/index.js'
import type { LoopConfig } from '../loop/index.js'
import { ModelProxyError, modelProxySettings, type ModelProxySettings } from '../proxy/agent.js'
import { MIN_AGENT_MAX_PROCESSES } from '../security/index.js'
import { UsageError, type OptionSpec, type ParsedArgs } from './argv.js'

/** `ralph run`'s own options, with its names and meanings. */
export const REFERENCE_OPTIONS: OptionSpec[] = [
  {
    key: 'n',
    names: ['-n', '--max-iterations'],
    kind: 'int',
    metavar: 'N',
    help: 'Max number of iterations. Infinite if not set.'
  },
  {
    key: 'stopOnError',
    names: ['--stop-on-error', '-s'],
    kind: 'flag',
    help: 'Stop if the agent exits non-zero or times out.'
  },
  {
    key: 'delay',
    names: ['--delay', '-d'],
    kind: 'float',
    metavar: 'S',
    help: 'Seconds to wait between iterations.'
  },
  {
    key: 'logDir',
    names: ['--log-dir', '-l'],
    kind: 'string',
    metavar: 'DIR',
    help: "Also save each iteration's agent output to DIR (ralphify's log files)."
  },
  {
    key: 'timeout',
    names: ['--timeout', '-t'],
    kind: 'float',
    metavar: 'S',
    help: 'Max seconds per agent run. Kill the agent if exceeded.'
  }
]

/** Our additions: the reference runtime has none of these. */
export const LOOP_OPTIONS: OptionSpec[] = [
  {
    key: 'check',
    names: ['--check'],
    kind: 'strings',
    metavar: 'CMD',
    help: 'A gate, run with bash after each iteration; repeatable. All must exit 0.'
  },
  {
    key: 'noBaseline',
    names: ['--no-baseline'],
    kind: 'flag',
    help: "Don't run the checks before iteration 1 (by default their failures fill its prompt)."
  },
  {
    key: 'skipIfGreen',
    names: ['--skip-if-green'],
    kind: 'flag',
    help: 'Stop at once (already_green, exit 0, no agent) when every check passes before iteration 1.'
  },
  {
    key: 'parallelChecks',
    names: ['--parallel-checks'],
    kind: 'flag',
    help: "Run the checks together (only when they don't share a build folder)."
  },
  {
    key: 'maxCost',
    names: ['--max-cost'],
    kind: 'float',
    metavar: 'USD',
    help: 'Stop (killing the agent) when its cost reaches USD.'
  },
  {
    key: 'maxTime',
    names: ['--max-time'],
    kind: 'duration',
    metavar: 'TIME',
    help: 'Stop (killing the agent) after TIME in all, checks included: seconds, or 90s, 2m, 1h.'
  },
  {
    key: 'completionTag',
    names: ['--completion-tag'],
    kind: 'string',
    metavar: 'TAG',
    help: "The agent's done signal <promise>TAG</promise> (default COMPLETE; '' = gates alone decide)."
  },
  {
    key: 'commit',
    names: ['--commit'],
    kind: 'flag',
    help: 'Commit what the agent left after each iteration.'
  },
  {
    key: 'maxFileSize',
    names: ['--max-file-size'],
    kind: 'string',
    metavar: 'SIZE',
    help: 'With --commit, leave out a file larger than SIZE (50 MB by default; 500KB, 1GB), with a warning.'
  },
  {
    key: 'recordDir',
    names: ['--record-dir'],
    kind: 'string',
    metavar: 'DIR',
    help: 'Where progress.md, status.json and logs/ go (default: under the system temp dir).'
  },
  {
    key: 'outputCap',
    names: ['--output-cap'],
    kind: 'int',
    metavar: 'BYTES',
    help: "Most bytes of one command's output put in the prompt; the middle is cut (default 1048576)."
  },
  {
    key: 'allowEnv',
    names: ['--allow-env'],
    kind: 'strings',
    metavar: 'NAME',
    help: 'Give the agent a credential variable it would not get (e.g. GH_TOKEN, or PREFIX*); repeatable.'
  },
  {
    key: 'maxTurns',
    names: ['--max-turns'],
    kind: 'int',
    metavar: 'N',
    help: "Cap the agent's turns per run (Claude Code's --max-turns)."
  },
  {
    key: 'costPattern',
    names: ['--cost-pattern'],
    kind: 'string',
    metavar: 'REGEX',
    help: 'How a generic agent reports cost: a regex with named groups usd, input, output… tried on each line.'
  },
  {
    key: 'noPresets',
    names: ['--no-presets'],
    kind: 'flag',
    help: 'Run the agent exactly as written (no preset flags).'
  },
  {
    key: 'modelProxy',
    names: ['--model-proxy'],
    kind: 'flag',
    help: 'Run the agent behind a loopback model proxy that holds its API key and meters every token.'
  },
  {
    key: 'modelUpstream',
    names: ['--model-upstream'],
    kind: 'string',
    metavar: 'URL',
    help: "Where the model proxy forwards (a gateway); default: the CLI's base-URL variable, else the vendor's API."
  },
  {
    key: 'modelCa',
    names: ['--model-ca'],
    kind: 'string',
    metavar: 'FILE',
    help: "Certificate authorities (PEM) the model proxy trusts for the upstream, besides the system's."
  },
  {
    key: 'agentNetwork',
    names: ['--agent-network'],
    kind: 'string',
    metavar: 'MODE',
    help: 'What the agent may connect to behind the proxy: model-only (default), allow-list or open.'
  },
  {
    key: 'allowedHosts',
    names: ['--allowed-hosts'],
    kind: 'strings',
    metavar: 'HOST',
    help: "A host the agent may reach through the proxy's CONNECT (e.g. registry.npmjs.org); repeatable."
  },
  {
    key: 'isolation',
    names: ['--isolation'],
    kind: 'string',
    metavar: 'MODE',
    help: 'user: run the agent, commands and checks as their own user (needs root or passwordless sudo); none (default): as you.'
  },
  {
    key: 'agentUser',
    names: ['--agent-user'],
    kind: 'string',
    metavar: 'NAME',
    help: 'The user --isolation user runs them as (created on first use; default ralph-agent).'
  },
  {
    key: 'agentMaxProcesses',
    names: ['--agent-max-processes'],
    kind: 'int',
    metavar: 'N',
    help: 'With --isolation user, the most processes (threads count) that user may have at once (default 4096).'
  }
]

/** The options as given: an optional one is undefined when it was not. */
export interface LoopSettings {
  maxIterations?: number | undefined
  stopOnError: boolean
  delaySeconds: number
  agentTimeoutSeconds?: number | undefined
  logDir?: string | undefined
  checks: string[]
  baseline: boolean
  skipIfGreen: boolean
  /** Given: run the checks together; absent: the ralph's `checks_parallel:`. */
  parallelChecks: boolean
  maxCostUsd?: number | undefined
  maxTimeSeconds?: number | undefined
  completionTag?: string | undefined
  commit: boolean
  maxFileBytes?: number | undefined
  recordDir?: string | undefined
  outputCap?: number | undefined
  presets: boolean
  allowEnv: string[]
  /** The model proxy's settings; undefined: off. */
  modelProxy?: ModelProxySettings | undefined
  maxTurns?: number | undefined
  costPattern?: string | undefined
  /** `user`: the loop's processes run as their own user; `none`: as the person running the CLI. */
  isolation: 'user' | 'none'
  agentUser?: string
  /** With isolation, RLIMIT_NPROC of the agent's user; undefined: the default. */
  agentMaxProcesses?: number
}

const positive = (v: number): boolean => Number.isFinite(v) && v > 0

/**
 * Checks the values with the reference's messages, cheap checks before any file is read. A bad value is a
 * mistake on the command line like any other: a usage error (exit 2), named as it was typed.
 */
export function loopSettings(options: ParsedArgs['options'], typed: ParsedArgs['typed'] = {}): LoopSettings {
  const name = (key: string, fallback: string): string => typed[key] ?? fallback
  const n = options.n as number | undefined
  const delay = (options.delay as number | undefined) ?? 0
  const timeout = options.timeout as number | undefined
  if (n !== undefined && n < 1)
    throw new UsageError(`'${name('n', '-n')}' must be a positive integer, got ${n}.`)
  if (!Number.isFinite(delay) || delay < 0)
    throw new UsageError(`'--delay' must be non-negative, got ${pyFloatRepr(delay)}.`)
  if (timeout !== undefined && !positive(timeout))
    throw new UsageError(`'--timeout' must be a positive number, got ${pyFloatRepr(timeout)}.`)
  const maxCost = options.maxCost as number | undefined
  if (maxCost !== undefined && !(Number.isFinite(maxCost) && maxCost >= 0))
    throw new UsageError(
      `'--max-cost' must be a non-negative number of dollars, got ${pyFloatRepr(maxCost)}.`
    )
  const maxTime = options.maxTime as number | undefined
  const maxFileSize = options.maxFileSize as string | undefined
  const maxFileBytes = maxFileSize === undefined ? undefined : parseFileSize(maxFileSize)
  if (maxFileSize !== undefined && maxFileBytes === undefined)
    throw new UsageError(
      `'--max-file-size' must be a size like 50MB, 500KB or 1GB (a bare number is megabytes), got '${maxFileSize}'.`
    )
  const outputCap = options.outputCap as number | undefined
  if (outputCap !== undefined && outputCap < 1024)
    throw new UsageError(`'--output-cap' must be at least 1024 bytes, got ${outputCap}.`)
  const maxTurns = options.maxTurns as number | undefined
  if (maxTurns !== undefined && maxTurns < 1)
    throw new UsageError(`'--max-turns' must be a positive integer, got ${maxTurns}.`)
  const costPattern = options.costPattern as string | undefined
  if (costPattern !== undefined) {
    try {
      new RegExp(costPattern)
    } catch (error) {
      throw new UsageError(`'--cost-pattern' is not a valid regular expression: ${(error as Error).message}`)
    }
  }
  let modelProxy: ModelProxySettings | undefined
  try {
    modelProxy = modelProxySettings({
      on: options.modelProxy === true,
      upstream: options.modelUpstream as string | undefined,
      caFile: options.modelCa as string | undefined,
      allowedHosts: (options.allowedHosts as string[] | undefined) ?? [],
      network: options.agentNetwork as string | undefined
    })
  } catch (error) {
    if (error instanceof ModelProxyError)
      throw new UsageError(error.message.replace(/^The setting '([^']+)'/, "'--$1'"))
    throw error
  }
  const isolation = (options.isolation as string | undefined) ?? 'none'
  if (isolation !== 'user' && isolation !== 'none')
    throw new UsageError(`'--isolation' must be user or none, got '${isolation}'.`)
  const agentMaxProcesses = options.agentMaxProcesses as number | undefined
  if (agentMaxProcesses !== undefined && agentMaxProcesses < MIN_AGENT_MAX_PROCESSES)
    throw new UsageError(
      `'--agent-max-processes' must be at least ${MIN_AGENT_MAX_PROCESSES} (threads count, and a node program alone has about ten), got ${agentMaxProcesses}.`
    )
  return {
    modelProxy,
    isolation,
    ...(options.agentUser !== undefined ? { agentUser: options.agentUser as string } : {}),
    ...(agentMaxProcesses !== undefined ? { agentMaxProcesses } : {}),
    maxIterations: n,
    stopOnError: options.stopOnError === true,
    delaySeconds: delay,
    agentTimeoutSeconds: timeout,
    logDir: options.logDir as string | undefined,
    checks: (options.check as string[] | undefined) ?? [],
    baseline: options.noBaseline !== true,
    skipIfGreen: options.skipIfGreen === true,
    parallelChecks: options.parallelChecks === true,
    maxCostUsd: maxCost,
    maxTimeSeconds: maxTime,
    completionTag: options.completionTag as string | undefined,
    commit: options.commit === true,
    maxFileBytes,
    recordDir: options.recordDir as string | undefined,
    outputCap,
    presets: options.noPresets !== true,
    allowEnv: (options.allowEnv as string[] | undefined) ?? [],
    maxTurns,
    costPattern
  }
}

/**
 * The engine's settings that the options both loop commands share carry: budgets, the agent's, the gates'
 * (a ralph's `checks_parallel:` unless given) and the record's. Paths are resolved against `cwd`.
 */
export function engineSettings(settings: LoopSettings, cwd: string): Partial<LoopConfig> {
  return {
    // Only what was given: these are spread over loopConfig's defaults.
    ...(settings.maxIterations !== undefined ? { maxIterations: settings.maxIterations } : {}),
    stopOnError: settings.stopOnError,
    delaySeconds: settings.delaySeconds,
    ...(settings.agentTimeoutSeconds !== undefined
      ? { agentTimeoutSeconds: settings.agentTimeoutSeconds }
      : {}),
    ...(settings.maxTimeSeconds !== undefined ? { maxTimeSeconds: settings.maxTimeSeconds } : {}),
    ...(settings.maxCostUsd !== undefined ? { maxCostUsd: settings.maxCostUsd } : {}),
    ...(settings.maxFileBytes !== undefined ? { maxFileBytes: settings.maxFileBytes } : {}),
    baseline: settings.baseline,
    skipIfGreen: settings.skipIfGreen,
    ...(settings.parallelChecks ? { parallelChecks: true } : {}),
    ...(settings.modelProxy ? { modelProxy: settings.modelProxy } : {}),
    ...(settings.allowEnv.length > 0 ? { agentEnv: { allow: settings.allowEnv } } : {}),
    ...(settings.maxTurns !== undefined ? { agentMaxTurns: settings.maxTurns } : {}),
    ...(settings.costPattern !== undefined ? { agentCost: { pattern: settings.costPattern } } : {}),
    ...(settings.recordDir ? { recordDir: path.resolve(cwd, settings.recordDir) } : {}),
    ...(settings.outputCap ? { outputCap: settings.outputCap } : {})
  }
}
