// The `budget` and `budget-per-requester` inputs: `<dollars>/day` and/or `<dollars>/month`, comma-separated
// (`20/day, 300/month`). A problem is one line naming the input and the fix, for the action's input errors,
// `validate` and the CLI alike.
import { formatLimit, MAX_MICROS, microsOf, type Micros } from './money.js'
import { WINDOW_KINDS, type WindowKind } from './windows.js'

/** What one budget allows per window; a window without a limit is not capped. */
export type WindowLimits = Partial<Record<WindowKind, Micros>>

/** The limits a run is given: the repository's, and each requester's (applied to runs a person started). */
export interface BudgetLimits {
  repository: WindowLimits
  perRequester: WindowLimits
}

export const BUDGET_INPUTS = { repository: 'budget', perRequester: 'budget-per-requester' } as const

const ITEM = /^\$?\s*(\d+(?:\.\d+)?|\.\d+)\s*\/\s*([A-Za-z]+)$/
const EXAMPLE = 'like 20/day, 300/month'

const quote = (value: string): string =>
  JSON.stringify(value.length > 40 ? `${value.slice(0, 37)}...` : value)

/** Parses one budget input (`name` is the input, for the message); empty or absent is no limit. */
export function parseBudget(
  text: string | undefined,
  name: string
): { limits: WindowLimits } | { problem: string } {
  const limits: WindowLimits = {}
  const given: Partial<Record<WindowKind, string>> = {}
  const items = (text ?? '')
    .split(/[,\n]/)
    .map(item => item.trim())
    .filter(item => item !== '')
  for (const item of items) {
    const m = ITEM.exec(item)
    const kind = m ? windowOf(m[2]) : undefined
    if (!m && item.split('/').length > 2)
      return { problem: `Input '${name}' has ${quote(item)}: separate the windows with commas, ${EXAMPLE}.` }
    if (!m || !kind) {
      const unit = m ? ` (${quote(m[2])} is not a window: budgets are per day or per month, UTC)` : ''
      return {
        problem: `Input '${name}' has ${quote(item)}${unit}: give dollars per day and/or per month, comma-separated, ${EXAMPLE}.`
      }
    }
    const micros = microsOf(Number(m[1]), 'down')
    if (micros <= 0)
      return {
        problem: `Input '${name}' has ${quote(item)}: a budget must be more than $0 (to stop every run, disable the workflow).`
      }
    if (micros >= MAX_MICROS)
      return {
        problem: `Input '${name}' has ${quote(item)}: a budget must be under ${formatLimit(MAX_MICROS)}.`
      }
    if (given[kind] !== undefined)
      return {
        problem: `Input '${name}' gives a ${kind === 'day' ? 'daily' : 'monthly'} budget twice (${quote(given[kind] as string)} and ${quote(item)}): give each window once, ${EXAMPLE}.`
      }
    given[kind] = item
    limits[kind] = micros
  }
  return { limits }
}

/** `day`, `daily`, `d`, `month`, `monthly`, `mo` (any case); anything else is not a window. */
function windowOf(word: string): WindowKind | undefined {
  const w = word.toLowerCase()
  if (['day', 'daily', 'd'].includes(w)) return 'day'
  if (['month', 'monthly', 'mo'].includes(w)) return 'month'
  return undefined
}

/** Both inputs at once: the first problem, or the limits. */
export function parseBudgets(inputs: {
  budget?: string | undefined
  perRequester?: string | undefined
}): { limits: BudgetLimits } | { problem: string } {
  const repository = parseBudget(inputs.budget, BUDGET_INPUTS.repository)
  if ('problem' in repository) return repository
  const perRequester = parseBudget(inputs.perRequester, BUDGET_INPUTS.perRequester)
  if ('problem' in perRequester) return perRequester
  return { limits: { repository: repository.limits, perRequester: perRequester.limits } }
}

/** Whether any window is capped: without one, a run needs no ledger. */
export function hasBudget(limits: BudgetLimits): boolean {
  return WINDOW_KINDS.some(k => limits.repository[k] !== undefined || limits.perRequester[k] !== undefined)
}

/** `$20/day` */
export function describeLimit(kind: WindowKind, micros: Micros): string {
  return `${formatLimit(micros)}/${kind}`
}

/** `$20/day, $300/month`, as the input would give it (for the log and the ledger's record of it). */
export function describeLimits(limits: WindowLimits): string {
  return WINDOW_KINDS.filter(k => limits[k] !== undefined)
    .map(k => describeLimit(k, limits[k] as Micros))
    .join(', ')
}
