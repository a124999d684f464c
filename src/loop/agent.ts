// One agent run: the prompt on stdin, cwd = the work tree, the preset reading its output as it arrives
// (usage → the cost meter, live), logs written as they come, the whole tree killed when the run must stop.
import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs'
import path from 'node:path'
import { agentEnvironment, type AgentEnvOptions } from '../security/index.js'
import type { AgentCaps, AgentOutcome, AgentPreset } from '../agents/types.js'
import { decodeCaptured } from '../proc/index.js'
import type { RunOptions, RunResult } from '../proc/types.js'
import { pyStrRepr } from '../ralph/index.js'
import type { CostMeter } from '../agents/cost-meter.js'
import type { AgentRun, KilledBy } from './types.js'

/** Characters of the final message kept in the record. */
export const FINAL_MESSAGE_CHARS = 2000

export interface AgentContext {
  preset: AgentPreset
  /** The agent command as written (for messages) and shell-split. */
  agent: string
  agentArgv: string[]
  /** The agent line comes from a RALPH.md (not a CLI option or an action input): messages point there. */
  fromRalphFile?: boolean
  prompt: string
  workTree: string
  iterationDir: string
  relative: (file: string) => string
  /** Undefined: no agent timeout. */
  timeoutMs?: number | undefined
  killGraceMs: number
  signal: AbortSignal
  stopCause: () => KilledBy | undefined
  meter: CostMeter
  /** Caps the agent can enforce itself (claude's --max-budget-usd, --max-turns). */
  caps?: AgentCaps
  /** The job's environment the agent's is made from (default process.env), and what the user allows. */
  baseEnv?: NodeJS.ProcessEnv
  agentEnv?: AgentEnvOptions
  runProcess: (options: RunOptions) => Promise<RunResult>
  /** The environment runProcess gives the agent (isolated: its own HOME), for the preset's reader. */
  agentEnvironment?: (env: NodeJS.ProcessEnv) => NodeJS.ProcessEnv
  /** Live output for front-ends: raw chunks, and transcript lines of JSON-stream presets. */
  onOutput?: (output: { stream: 'stdout' | 'stderr'; chunk: Buffer } | { transcript: string }) => void
  /** The front-end cannot take more output yet: the agent's pipes wait for it (back-pressure). */
  outputRoom?: () => Promise<void> | undefined
}

export interface AgentResult {
  run: AgentRun
  outcome: AgentOutcome
  /** The agent could not be started: the reference's "Run crashed" reason. */
  crash?: string
}

function crashMessage(agent: string, error: NodeJS.ErrnoException, fromRalphFile: boolean): string {
  if (error.code === 'ENOENT')
    return `Agent command not found: ${pyStrRepr(agent)}.${fromRalphFile ? " Check the 'agent' field in your RALPH.md frontmatter." : ''}`
  if (error.code === 'EACCES') return `[Errno 13] Permission denied: ${pyStrRepr(error.path ?? agent)}`
  return `The agent could not be started: ${error.message}`
}

/** A log file written synchronously: bounded memory, and nothing lost when the process dies. */
class SyncLog {
  private fd: number | undefined
  constructor(readonly file: string) {
    mkdirSync(path.dirname(file), { recursive: true })
    this.fd = openSync(file, 'a')
  }
  write(data: string | Buffer): void {
    if (this.fd === undefined) return
    if (typeof data === 'string') writeSync(this.fd, data)
    else writeSync(this.fd, data)
  }
  close(): void {
    if (this.fd !== undefined) closeSync(this.fd)
    this.fd = undefined
  }
}

/** The agent's log of an iteration: every byte it printed (its transcript for JSON-stream presets). */
export const agentLogFile = (iterationDir: string): string => path.join(iterationDir, 'agent.log')

export async function runAgent(ctx: AgentContext): Promise<AgentResult> {
  const argv = ctx.preset.argv(ctx.agentArgv, ctx.caps)
  const logFile = agentLogFile(ctx.iterationDir)
  const streamFile = path.join(ctx.iterationDir, 'agent.jsonl')
  const log = ctx.preset.jsonStream ? new SyncLog(logFile) : undefined
  const stream = ctx.preset.jsonStream ? new SyncLog(streamFile) : undefined
  // The job's environment without GitHub and Actions credentials: the agent never holds a write token.
  // PWD names the work tree, as a shell's cd would: opencode trusts PWD over its real working directory,
  // and the inherited one names the folder the loop was started in.
  const env = { ...agentEnvironment(ctx.baseEnv ?? process.env, ctx.agentEnv), PWD: ctx.workTree }
  ctx.meter.beginRun()
  const reader = ctx.preset.read(
    ctx.prompt,
    {
      onUsage: usage => ctx.meter.observe(usage),
      onTranscript: line => {
        log?.write(line.endsWith('\n') ? line : `${line}\n`)
        ctx.onOutput?.({ transcript: line })
      }
    },
    { argv, env: ctx.agentEnvironment?.(env) ?? env, cwd: ctx.workTree }
  )
  let result: RunResult
  let outcome: AgentOutcome
  try {
    const options: RunOptions = {
      argv,
      cwd: ctx.workTree,
      env: reader.env ? { ...env, ...reader.env } : env,
      input: ctx.prompt,
      killGraceMs: ctx.killGraceMs,
      signal: ctx.signal,
      timeoutMs: ctx.timeoutMs,
      ...(ctx.outputRoom ? { outputRoom: ctx.outputRoom } : {}),
      onStdout: chunk => {
        stream?.write(chunk)
        reader.stdout(chunk)
        ctx.onOutput?.({ stream: 'stdout', chunk })
      },
      onStderr: chunk => {
        log?.write(chunk)
        reader.stderr(chunk)
        ctx.onOutput?.({ stream: 'stderr', chunk })
      }
    }
    // Plain agents: proc streams stdout and stderr to agent.log in arrival order.
    if (!ctx.preset.jsonStream) options.logFile = logFile
    result = await ctx.runProcess(options)
    // Before the logs close: finishing may still write the transcript's last line (opencode's [done]).
    outcome = reader.finish(decodeCaptured(result.stdout, { translateNewlines: true }), {
      code: result.exitCode,
      signal: result.signal,
      killed: result.aborted || result.timedOut
    })
  } finally {
    log?.close()
    stream?.close()
  }
  const usage = ctx.meter.endRun(outcome.usage)
  const killedBy = result.aborted ? ctx.stopCause() : undefined
  const exitedWell = result.exitCode === 0 && !result.timedOut && !result.aborted && !result.spawnError
  const run: AgentRun = {
    preset: ctx.preset.name,
    argv,
    exitCode: result.exitCode,
    signal: result.signal,
    timedOut: result.timedOut,
    // Judged by the agent's own word too: claude says is_error with exit code 0 and subtype "success".
    success: exitedWell && outcome.isError !== true && outcome.failure === undefined,
    durationMs: Math.round(result.durationMs),
    usage,
    log: ctx.relative(logFile),
    notes: outcome.notes
  }
  if (killedBy) run.killedBy = killedBy
  if (outcome.finalMessage !== undefined) run.finalMessage = outcome.finalMessage.slice(-FINAL_MESSAGE_CHARS)
  if (outcome.isError !== undefined) run.isError = outcome.isError
  if (outcome.failure) {
    const { resetsAt, ...failure } = outcome.failure
    run.failure =
      resetsAt !== undefined ? { ...failure, resetsAt: new Date(resetsAt).toISOString() } : failure
  }
  if (outcome.permissionDenials?.length) run.permissionDenials = outcome.permissionDenials
  if (outcome.apiRetries) run.apiRetries = outcome.apiRetries
  if (ctx.preset.jsonStream) run.stream = ctx.relative(streamFile)
  const agentResult: AgentResult = { run, outcome }
  if (result.spawnError)
    agentResult.crash = crashMessage(ctx.agent, result.spawnError, ctx.fromRalphFile === true)
  return agentResult
}
