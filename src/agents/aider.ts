// Aider has no JSON mode. After each model reply it prints (Aider-AI/aider aider/coders/base_coder.py,
// calculate_and_show_tokens_and_cost):
//   Tokens: 12k sent, 1.2k cache write, 10k cache hit, 133 received. Cost: $0.04 message, $0.10 session.
// with the Cost part on its own line when both cache figures are shown, and no Cost part at all for a model
// it has no price for. Counts above 999 are abbreviated (`format_tokens`: 2.5k, 12k). The session cost is
// the run's total (one aider process per iteration); token counts are summed over replies. Aider takes
// its prompt with --message, so it usually runs as `bash -c 'aider … --message "$(cat -)"'`; no flag is added.
import { programStem, wrappedProgram } from './argv.js'
import { genericReader, type PlainSink } from './generic.js'
import { oneLine, resetFromMessage, USAGE_LIMIT } from './stream.js'
import type { AgentPreset, AgentRunHooks, UsageReport } from './types.js'

/** `aider …`, or a shell wrapper whose script starts with aider. */
export function isAiderCommand(argv: string[]): boolean {
  if (programStem(argv[0]) === 'aider') return true
  const wrapped = wrappedProgram(argv)
  return wrapped !== undefined && programStem(wrapped) === 'aider'
}

/** `12k` → 12000, `2.5k` → 2500, `1.2M` → 1200000, `133` → 133. */
export function parseTokenCount(text: string): number {
  const match = /^([\d.,]+)\s*([kKmM]?)$/.exec(text.trim())
  if (!match) return 0
  const value = Number(match[1].replace(/,/g, ''))
  const scale = match[2].toLowerCase() === 'k' ? 1e3 : match[2].toLowerCase() === 'm' ? 1e6 : 1
  return Number.isFinite(value) ? Math.round(value * scale) : 0
}

const TOKENS = /^Tokens:\s*(.+?)\.?(?:\s+Cost:.*)?$/
const COST = /Cost:\s*\$([\d.]+)\s*message,\s*\$([\d.]+)\s*session/
const RETRY = /Retrying in [\d.]+ seconds/i

/** Parses aider's usage lines as they come; the totals are the run's so far. */
export class AiderUsage {
  private readonly totals: UsageReport = { input: 0, output: 0, cache_read: 0, cache_write: 0 }
  private seen = false

  /** Reads one line; answers the new totals when it was a usage line. */
  line(line: string): UsageReport | undefined {
    const text = line.trim()
    let changed = false
    const tokens = TOKENS.exec(text)
    if (tokens) {
      let sent = 0
      let cacheWrite = 0
      for (const part of tokens[1].split(/[,;]/)) {
        const m = /^\s*([\d.,]+\s*[kKmM]?)\s+(sent|received|Total|cache write|cache hit|cache read)\b/.exec(
          part
        )
        if (!m) continue
        const n = parseTokenCount(m[1])
        if (m[2] === 'sent') sent = n
        else if (m[2] === 'received' || m[2] === 'Total') this.totals.output += n
        else if (m[2] === 'cache write') cacheWrite = n
        else this.totals.cache_read += n
      }
      // "sent" counts the cache writes too.
      this.totals.input += Math.max(0, sent - cacheWrite)
      this.totals.cache_write += cacheWrite
      changed = true
    }
    const cost = COST.exec(text)
    if (cost) {
      this.totals.reportedUsd = Number(cost[2])
      changed = true
    }
    if (!changed) return undefined
    this.seen = true
    return { ...this.totals }
  }

  get any(): boolean {
    return this.seen
  }
}

/** Aider's status lines are not part of its answer. */
export function withoutAiderStatus(stdout: string): string {
  return stdout
    .split('\n')
    .filter(line => !/^\s*(Tokens:|Cost: \$|Applied edit to |Commit [0-9a-f]{7,} )/.test(line))
    .join('\n')
}

function aiderReader(prompt: string, hooks?: AgentRunHooks) {
  const usage = new AiderUsage()
  return genericReader(prompt, hooks, {
    clean: withoutAiderStatus,
    onLine: (line: string, sink: PlainSink) => {
      const totals = usage.line(line)
      if (totals) return sink.report(totals)
      if (RETRY.test(line)) sink.retried()
      if (USAGE_LIMIT.test(line)) {
        const message = oneLine(line, 300)
        const resetsAt = resetFromMessage(message)
        sink.fail({ kind: 'usage_limit', message, ...(resetsAt !== undefined ? { resetsAt } : {}) })
      }
    }
  })
}

export const aiderPreset: AgentPreset = {
  name: 'aider',
  jsonStream: false,
  argv: userArgv => [...userArgv],
  read: (prompt, hooks) => aiderReader(prompt, hooks)
}
