// Which ralph a request runs, for every trigger that may name one (a `/ralph` comment, a label, a review's
// `/ralph` line, a CI round): an installed ralph by name, else the action's `ralph` input, else a ralph-less
// loop when the workflow gives `agent` alone. And whether the args a command gives are ones that ralph reads.
import path from 'node:path'
import { RALPH_MARKER } from '../ralph/index.js'
import { argsIn, argsOf, installedRalph } from '../ralph/installed.js'
import type { RalphCommand } from './grammar.js'
import { quote as code } from './quote.js'
import type { TriggerSettings } from './types.js'

export type RalphChoice = { ralph?: string; ralphName?: string }

/**
 * A named ralph must be installed in the project (ralph/installed.ts); no name means the action's `ralph`
 * input, or a ralph-less run when the workflow gives `agent` without one.
 */
export function resolveRalph(
  name: string | undefined,
  settings: TriggerSettings
): RalphChoice | { problem: string } {
  if (name === undefined) {
    if (settings.defaultRalph === undefined)
      return settings.ralphLess
        ? {}
        : { problem: 'no ralph was named, and the workflow sets no default (the ralph input)' }
    const ralphName = ralphNameOf(settings.defaultRalph)
    return { ralph: settings.defaultRalph, ...(ralphName ? { ralphName } : {}) }
  }
  const installed = installedRalph(settings.projectRoot, name)
  return 'problem' in installed ? installed : { ralph: installed.dir, ralphName: name }
}

/**
 * The ralph a parsed `/ralph` command runs, when every arg it gives is one that ralph reads: an arg it never
 * reads is a typo, or a request it cannot honour, so it is refused rather than ignored.
 */
export function commandRalph(
  command: Extract<RalphCommand, { kind: 'command' }>,
  settings: TriggerSettings
): RalphChoice | { problem: string } {
  const resolved = resolveRalph(command.name, settings)
  if ('problem' in resolved) return resolved
  const takes =
    resolved.ralph !== undefined
      ? argsOf(resolved.ralph, settings.projectRoot)
      : argsIn(settings.ralphLess?.prompt ?? '')
  const unknown = takes ? Object.keys(command.args).filter(name => !takes.includes(name)) : []
  if (!takes || unknown.length === 0) return resolved
  return {
    problem:
      `${resolved.ralph !== undefined ? `the ralph ${code(resolved.ralphName ?? resolved.ralph)}` : 'a run without a ralph'} takes no ${unknown.map(n => code(`--${n}`)).join(', ')} ` +
      `arg (${takes.length ? `it takes ${takes.map(n => code(`--${n}`)).join(', ')}` : 'it takes none'})`
  }
}

/** The name of the ralph an input names: an installed name, or the folder of a path. */
export function ralphNameOf(input: string | undefined): string | undefined {
  if (!input) return undefined
  const trimmed = input.trim().replace(/\/+$/, '')
  const folder = path.basename(trimmed) === RALPH_MARKER ? path.dirname(trimmed) : trimmed
  const name = path.basename(folder)
  return name && name !== '.' && name !== '..' ? name : undefined
}
