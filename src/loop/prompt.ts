// The prompt for one iteration. Without gates it is exactly the reference's (RALPH.md re-read, body
// stripped, comments removed, placeholders filled in one pass, credit trailer). Our `ralph.*` values are
// filled in the same single pass; when gates exist and the body uses none of them, a "Loop status"
// section is appended after the body and before the credit trailer.
import { code, fence } from '../text/markdown.js'
import { exitWords } from '../text/exit-words.js'
import {
  stripHtmlComments,
  pyStrip,
  PLACEHOLDER_RE,
  assemblePrompt,
  promptTemplate,
  CREDIT_TRAILER,
  renderPlaceholders,
  type RalphCheck
} from '../ralph/index.js'
import type { WorkspaceDiff } from '../git/workspace.js'
import type { BaselineRecord, CheckRun, IterationRecord } from './types.js'

/** Our additions to the `ralph.` kind; the reference renders them as ''. */
export const LOOP_PLACEHOLDERS = [
  'checks',
  'failures',
  'diff',
  'progress',
  'completion_tag',
  'guardrails'
] as const
export type LoopPlaceholder = (typeof LOOP_PLACEHOLDERS)[number]

/** Progress entries shown to the agent. */
export const PROGRESS_ENTRIES = 5

export interface LoopContext {
  gates: RalphCheck[]
  completionTag: string
  /** The previous iteration's checks, or the baseline's in the first iteration (else undefined). */
  previousChecks?: CheckRun[] | undefined
  /** The gates as they were before iteration 1, when they ran then. */
  baseline?: BaselineRecord
  /** The work tree's change since the start; undefined before it is known. */
  diff?: WorkspaceDiff | undefined
  /** The last iterations (at most PROGRESS_ENTRIES are shown). */
  history: readonly IterationRecord[]
  guardrails?: { file: string; content: string } | undefined
}

export interface PromptInputs {
  /** RALPH.md as read now (its frontmatter is re-parsed, like the reference); unused with `body`. */
  ralphText: string
  ralphFile: string
  /** Ralph-less runs: the task text stands in for the body (same strip/comments/placeholder rules). */
  body?: string | undefined
  name: string
  iteration: number
  /** Undefined: no cap. */
  maxIterations?: number | undefined
  commandOutputs: Record<string, string>
  userArgs: Record<string, string>
  credit: boolean
  /** Appended after the body as it is (LoopConfig.promptAppendix). */
  appendix?: string
}

/** A ralph-less body (a task, a spec file) as a template: no frontmatter, otherwise RALPH.md's rules. */
const bodyTemplate = (body: string): string => pyStrip(stripHtmlComments(pyStrip(body)))

/** Which of our `ralph.*` placeholders the template uses (comments removed first, as rendering does). */
export function loopPlaceholdersUsed(inputs: Pick<PromptInputs, 'ralphText' | 'body'>): Set<LoopPlaceholder> {
  const template = inputs.body !== undefined ? bodyTemplate(inputs.body) : promptTemplate(inputs.ralphText)
  const used = new Set<LoopPlaceholder>()
  for (const match of template.matchAll(PLACEHOLDER_RE)) {
    if (match[1] === 'ralph' && (LOOP_PLACEHOLDERS as readonly string[]).includes(match[2]))
      used.add(match[2] as LoopPlaceholder)
  }
  return used
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)}s`

/** `{{ ralph.checks }}`: one line per gate. */
export function renderChecks(gates: RalphCheck[]): string {
  return gates.map(gate => `- ${code(gate.name)}: ${code(gate.run)}`).join('\n')
}

/** `{{ ralph.failures }}`: the previous iteration's failing checks, each with the end of its output. */
export function renderFailures(checks: CheckRun[] | undefined): string {
  const failing = (checks ?? []).filter(check => !check.passed)
  return failing
    .map(check => {
      const how = check.timedOut
        ? 'timed out'
        : check.exitCode === null
          ? 'was stopped'
          : `exit code ${check.exitCode}`
      return `${code(check.name)} failed (${how}). The end of its output:\n\n${fence(check.tail, '', '~')}`
    })
    .join('\n\n')
}

/** `{{ ralph.diff }}`: the stat, then the start of the patch. */
export function renderDiff(diff: WorkspaceDiff | undefined): string {
  if (!diff || (diff.stat.trim() === '' && diff.patch === '')) return ''
  const cut = diff.patchTruncated ? '\n[the rest of the diff is not shown]' : ''
  return `${diff.stat.replace(/\n+$/, '')}\n\n${fence(diff.patch, '', '~')}${cut}`
}

/** One line about an iteration, for `{{ ralph.progress }}`. */
export function progressEntry(record: IterationRecord): string {
  const parts: string[] = [record.verdict.replace(/_/g, ' ')]
  if (record.checks.length > 0) parts.push(checksTally(record.checks))
  if (record.agent) {
    const agent = record.agent
    parts.push(
      agent.killedBy
        ? `agent stopped (${agent.killedBy})`
        : agent.timedOut
          ? 'agent timed out'
          : `agent ${exitWords(agent)}`
    )
  }
  if (record.progressed === false) parts.push('no change to the work tree')
  else if (record.progressed === true) parts.push('work tree changed')
  if (record.completion.given) parts.push('completion signal given')
  if (record.error) parts.push(`crashed: ${record.error}`)
  return `- Iteration ${record.iteration} (${seconds(record.durationMs)}): ${parts.join('; ')}`
}

/** `checks 1/3 passing (failing: lint, test)`. */
function checksTally(checks: CheckRun[]): string {
  const failing = checks.filter(check => !check.passed).map(check => check.name)
  const passing = checks.length - failing.length
  return `checks ${passing}/${checks.length} passing${failing.length ? ` (failing: ${failing.join(', ')})` : ''}`
}

/** The baseline as a progress line: the gates before the first agent run. */
export function baselineEntry(baseline: BaselineRecord): string {
  const what = baseline.verdict === 'interrupted' ? 'stopped' : checksTally(baseline.checks)
  return `- Before iteration 1 (the gates alone, ${seconds(baseline.durationMs)}): ${what}`
}

/** `{{ ralph.progress }}`: the last few iterations (the baseline first), one line each. */
export function renderProgress(history: readonly IterationRecord[], baseline?: BaselineRecord): string {
  const entries = [
    ...(baseline ? [baselineEntry(baseline)] : []),
    ...history.slice(-PROGRESS_ENTRIES).map(progressEntry)
  ]
  return entries.slice(-PROGRESS_ENTRIES).join('\n')
}

/** The values of our `ralph.*` placeholders for this iteration. */
export function loopValues(ctx: LoopContext): Record<LoopPlaceholder, string> {
  return {
    checks: renderChecks(ctx.gates),
    failures: renderFailures(ctx.previousChecks),
    diff: renderDiff(ctx.diff),
    progress: renderProgress(ctx.history, ctx.baseline),
    completion_tag: ctx.completionTag ? `<promise>${ctx.completionTag}</promise>` : '',
    guardrails: ctx.guardrails?.content ?? ''
  }
}

/** The standard section for a gated ralph whose body uses none of our placeholders. */
export function loopStatusSection(
  values: Record<LoopPlaceholder, string>,
  ctx: LoopContext,
  iteration: number,
  maxIterations?: number
): string {
  const tag = values.completion_tag
  const goal = tag
    ? 'every check passes and your final message gives the completion signal'
    : 'every check passes'
  const of = maxIterations !== undefined ? ` of at most ${maxIterations}` : ''
  const firstIteration = ctx.history.length === 0
  const afterBaseline = firstIteration && ctx.previousChecks !== undefined
  const failures =
    values.failures ||
    (afterBaseline
      ? 'None: every check passes now (they ran before this iteration). Do what the task asks all the same.'
      : firstIteration
        ? 'None yet: this is the first iteration.'
        : 'None: every check passed.')
  const sections = [
    '## Loop status',
    `You are working in a loop. When you exit, the checks below run on the work tree you leave; exit code 0 ` +
      `means pass. The loop ends when ${goal}. This is iteration ${iteration}${of}.`,
    '### Checks',
    values.checks,
    afterBaseline
      ? '### Failing checks now (run before this iteration)'
      : '### Failing checks from the previous iteration',
    failures,
    '### Changes since the loop started',
    values.diff || 'None yet.',
    '### Recent progress',
    values.progress || 'None yet: this is the first iteration.'
  ]
  if (ctx.guardrails) {
    sections.push(
      '### Guardrails',
      values.guardrails.trim() || '(none written yet)',
      `When you meet a failure mode these do not cover, append a new lesson (a "Sign") to ` +
        `${code(ctx.guardrails.file)}: the trigger, the instruction, and what taught it.`
    )
  }
  if (tag) {
    sections.push(
      '### When you are done',
      'When every check passes on your work, end your final message with this line, on a line of its own:',
      tag,
      'Only the end of your final message is read, and the checks run again before the loop accepts it. ' +
        'Do not give it while a check still fails.'
    )
  }
  return `\n\n---\n\n${sections.join('\n\n')}`
}

/**
 * The prompt for one iteration. `loop` is undefined for reference behaviour (no gates, no tag-aware
 * placeholders needed); then the result is byte for byte the reference's.
 */
export function buildPrompt(
  inputs: PromptInputs,
  loop?: { values: Partial<Record<LoopPlaceholder, string>>; section: string }
): string {
  const ralph: Record<string, string> = { name: inputs.name, iteration: String(inputs.iteration) }
  if (inputs.maxIterations !== undefined) ralph.max_iterations = String(inputs.maxIterations)
  Object.assign(ralph, loop?.values)
  const values = { commands: inputs.commandOutputs, args: inputs.userArgs, ralph }
  const section = (inputs.appendix ?? '') + (loop?.section ?? '')
  if (inputs.body !== undefined) {
    const prompt = renderPlaceholders(bodyTemplate(inputs.body), values) + section
    return inputs.credit ? prompt + CREDIT_TRAILER : prompt
  }
  if (section === '') return assemblePrompt(inputs.ralphText, values, inputs.credit, inputs.ralphFile)
  return (
    assemblePrompt(inputs.ralphText, values, false, inputs.ralphFile) +
    section +
    (inputs.credit ? CREDIT_TRAILER : '')
  )
}
