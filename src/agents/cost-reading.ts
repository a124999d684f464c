// How the agent's dollars will be known, decided from its command line before it runs: metered by the model
// proxy, read from its output, read only if a generic agent reports them, or not at all. A dollar budget the
// run cannot know is said before iteration 1, with its fix, instead of after an unmetered iteration.
import { optionValue } from './argv.js'
import { codexModel } from './codex.js'
import { lookupPrice } from './prices.js'
import type { AgentCostOptions } from './generic.js'
import type { AgentPreset } from './types.js'

export type CostReading =
  /** Behind the model proxy: every request priced at the wire (an unlisted model at its vendor's top rates). */
  | { how: 'metered' }
  /** The agent's output says dollars (claude, opencode, aider), or tokens of a model the price table holds. */
  | { how: 'reported' }
  /** A generic agent: known only if it reports them (a cost line, the cost file, the cost pattern). */
  | { how: 'if_reported'; fix: string }
  /** Nothing the agent prints can be priced: `why`, and what would make it known. */
  | { how: 'unknown'; why: string; fix: string }

export interface CostReadingOf {
  preset: Pick<AgentPreset, 'name' | 'jsonStream'>
  /** The model the command line names (codex: or its config.toml); undefined = it names none. */
  model: string | undefined
  /** The agent runs behind the model proxy. */
  proxied: boolean
  /** How a generic agent reports its cost, as configured. */
  cost?: AgentCostOptions | undefined
}

/** The presets the model proxy can run (the five CLIs it holds a key for). */
const PROXIED_PRESETS = ['claude', 'codex', 'gemini', 'opencode', 'qwen']
/** Presets whose JSON output carries dollars, whatever the model. */
const SAYS_DOLLARS = ['claude', 'opencode']
const PROXY_FIX =
  'run it behind the model proxy (model-proxy: true; the CLI: --model-proxy), which meters every request'
const GENERIC_FIX =
  'make it print a `ralph-cost: usd=…` line or write the JSON file at $RALPH_COST_FILE, or match its own cost line with a cost pattern (the CLI: --cost-pattern)'

/** What would make a preset's cost known, in one clause. */
export function costFix(preset: string): string {
  if (PROXIED_PRESETS.includes(preset)) return PROXY_FIX
  if (preset === 'aider') return 'use a model aider knows the price of (it prints no cost for others)'
  return GENERIC_FIX
}

/** How the agent's cost will be known (see CostReading); pure, from the preset, the model and the settings. */
export function costReading(of: CostReadingOf): CostReading {
  const { preset, model } = of
  if (of.proxied) return { how: 'metered' }
  if (preset.name === 'generic')
    return of.cost?.pattern || of.cost?.fileEnv
      ? { how: 'reported' }
      : { how: 'if_reported', fix: GENERIC_FIX }
  if (preset.name === 'aider') return { how: 'reported' }
  const fix = costFix(preset.name)
  if (!preset.jsonStream)
    return { how: 'unknown', why: `${preset.name} runs with text output, which says nothing of cost`, fix }
  if (SAYS_DOLLARS.includes(preset.name)) return { how: 'reported' }
  // codex, gemini, qwen: tokens only, priced by the table. gemini and qwen name their model in the stream.
  if (model === undefined)
    return preset.name === 'codex'
      ? {
          how: 'unknown',
          why: 'codex names no model (-m, or model in config.toml), so its tokens cannot be priced',
          fix: `${fix}, or name a model the price table holds (-m gpt-5)`
        }
      : { how: 'reported' }
  return lookupPrice(model)
    ? { how: 'reported' }
    : {
        how: 'unknown',
        why: `${preset.name}'s model ${model} is not in the price table, so its tokens cannot be priced`,
        fix
      }
}

/** The model an agent's command line names (codex: or its config.toml), for costReading. */
export function modelNamed(preset: string, argv: string[], env: NodeJS.ProcessEnv): string | undefined {
  if (preset === 'codex') return codexModel(argv, env)
  if (preset === 'gemini' || preset === 'qwen') return optionValue(argv, ['-m', '--model'])
  return undefined
}

/** The warning a dollar budget of `maxUsd` needs before iteration 1, or undefined when it holds. */
export function costWarning(reading: CostReading, maxUsd: number): string | undefined {
  switch (reading.how) {
    case 'metered':
    case 'reported':
      return undefined
    case 'if_reported':
      return `the $${maxUsd} budget (max-cost) holds only if the agent reports its cost, as ralph-action cannot read it from this agent: ${reading.fix}; otherwise only time and iteration limits apply`
    case 'unknown':
      return `the agent's cost cannot be known (${reading.why}): the $${maxUsd} budget (max-cost) cannot be enforced, only time and iteration limits; to enforce it, ${reading.fix}`
  }
}
