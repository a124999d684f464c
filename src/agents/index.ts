// Agent presets: recognised by the agent command's program name; anything else is generic.
import { aiderPreset, isAiderCommand } from './aider.js'
import { claudePreset, isClaudeCommand } from './claude.js'
import { codexAskedForJson, codexPlainPreset, codexPreset, isCodexExec } from './codex.js'
import { geminiFormat, geminiPlainPreset, geminiPreset, isGeminiCommand } from './gemini.js'
import { genericPresetWith, type AgentCostOptions } from './generic.js'
import { isOpencodeRun, opencodeFormat, opencodePlainPreset, opencodePreset } from './opencode.js'
import { isQwenCommand, qwenFormat, qwenPlainPreset, qwenPreset } from './qwen.js'
import type { AgentPreset } from './types.js'

export { aiderPreset, AiderUsage, isAiderCommand, parseTokenCount, withoutAiderStatus } from './aider.js'
export { claudePreset, claudeArgv, isClaudeCommand, CLAUDE_STREAM_FLAGS, formatBudget } from './claude.js'
export { codexPreset, codexArgv, codexModel, isCodexExec, modelInConfigToml } from './codex.js'
export { geminiPreset, geminiArgv, isGeminiCommand, GEMINI_EXIT_FAILURES } from './gemini.js'
export { opencodePreset, opencodeArgv, isOpencodeRun } from './opencode.js'
export { qwenPreset, qwenArgv, isQwenCommand } from './qwen.js'
export {
  AGENT_CLIS,
  agentCli,
  agentCliOf,
  agentSettings,
  type AgentCli,
  type AgentCliName,
  type AgentSettings
} from './clis.js'
export { costFix, costReading, costWarning, modelNamed, type CostReading } from './cost-reading.js'
export { endpointSetup, AGENT_WIRE, type EndpointSetup, type ModelEndpoint } from './endpoints.js'
export {
  genericPreset,
  genericPresetWith,
  finalMessageFromOutput,
  parseCostReport,
  COST_FILE_ENV,
  type AgentCostOptions
} from './generic.js'
export {
  PRICE_TABLE,
  PRICE_TABLE_VERSION,
  lookupPrice,
  normaliseModelId,
  priceFromTable,
  costAt,
  topPriceOf,
  vendorOfModel,
  type ModelPrice,
  type ModelVendor
} from './prices.js'
export { transcriptLine, resetFromMessage, parseDuration } from './stream.js'
export { LineSplitter } from './lines.js'
export type {
  AgentCaps,
  AgentEvent,
  AgentExit,
  AgentFailure,
  AgentFailureKind,
  AgentOutcome,
  AgentPreset,
  AgentRunContext,
  AgentRunHooks,
  AgentRunReader,
  PermissionDenial,
  UsageReport
} from './types.js'

export interface PresetOptions {
  /** Presets on (default) or off: off, every agent is generic and runs exactly as written. */
  presets: boolean
  /**
   * Which flags a preset may add. 'all' (default): what machine-readable output needs (codex `--json`,
   * gemini and qwen `--output-format stream-json`, opencode `--format json`). 'reference': only what the reference
   * runtime adds (claude's stream flags), so argv stays byte-identical to ralphify's; agents then run as
   * written and are read as plain text unless the user asked for JSON output themselves.
   */
  flags?: 'all' | 'reference' | undefined
  /** How a generic agent reports its cost (undefined: the default). */
  cost?: AgentCostOptions | undefined
}

/** The preset for an agent command line. */
export function presetFor(agentArgv: string[], options: PresetOptions): AgentPreset {
  const generic = genericPresetWith(options.cost)
  if (!options.presets) return generic
  const all = (options.flags ?? 'all') === 'all'
  if (isClaudeCommand(agentArgv[0])) return claudePreset
  if (isCodexExec(agentArgv)) return all || codexAskedForJson(agentArgv) ? codexPreset : codexPlainPreset
  if (isGeminiCommand(agentArgv)) {
    const format = geminiFormat(agentArgv)
    if (format === 'text') return geminiPlainPreset
    return all || format !== undefined ? geminiPreset : geminiPlainPreset
  }
  if (isQwenCommand(agentArgv)) {
    // Only stream-json is read as a stream (`-o json` prints one document at the end).
    const format = qwenFormat(agentArgv)
    if (format !== undefined) return format === 'stream-json' ? qwenPreset : qwenPlainPreset
    return all ? qwenPreset : qwenPlainPreset
  }
  if (isOpencodeRun(agentArgv)) {
    const format = opencodeFormat(agentArgv)
    if (format !== undefined) return format === 'json' ? opencodePreset : opencodePlainPreset
    return all ? opencodePreset : opencodePlainPreset
  }
  if (isAiderCommand(agentArgv)) return aiderPreset
  return generic
}
