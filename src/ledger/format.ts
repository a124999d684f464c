// The ledger's file, ledger.json: versioned JSON, read strictly (a field out of place is a malformed ledger,
// never a guess) and bounded in size. Amounts are whole micro-dollars (money.ts); times are ISO 8601 UTC.
import { MAX_MICROS, type Micros } from './money.js'
import type { BudgetLimits, WindowLimits } from './budget.js'
import { validWindowKey, WINDOW_KINDS, type WindowKind } from './windows.js'

export const LEDGER_VERSION = 1
/** The one file in a ledger commit's tree. */
export const LEDGER_FILE = 'ledger.json'
/** A ledger larger than this is refused unread (compaction keeps a busy repository's under 64 KB). */
export const MAX_LEDGER_BYTES = 1024 * 1024
export const UNIT = 'micro-usd'

/** What a window's runs spent, settled: in all, by ralph and by requester (login). */
export interface Totals {
  spent: Micros
  byRalph: Record<string, Micros>
  byRequester: Record<string, Micros>
}

/** The run a lease belongs to: GITHUB_RUN_ID, GITHUB_RUN_ATTEMPT, the job and the workflow. */
export interface RunRef {
  id: string
  attempt: number
  job?: string
  workflow?: string
}

/** One grant to a lease (its reservation, or a top-up), counted in the windows of its time. */
export interface Draw {
  at: string
  usd: Micros
}

/**
 * Money held for a run that has not settled. `open` until its deadline; `expired` after it (the run never
 * settled: killed, or its runner lost): counted in full either way, until it is settled.
 */
export interface LeaseRecord {
  id: string
  state: 'open' | 'expired'
  run: RunRef
  ralph?: string
  requester?: string
  opened: string
  /** Past this the lease is expired: the run cannot be running any more (its job's time limit). */
  deadline: string
  /** The run's own max-cost: no lease is granted more. */
  maxCost?: Micros
  draws: Draw[]
}

/** A lease settled recently: a second settle of it (the post step after main) changes nothing. */
export interface Settlement {
  id: string
  at: string
  spent: Micros
}

export interface Ledger {
  version: typeof LEDGER_VERSION
  unit: typeof UNIT
  /** When this ledger started empty: a lease opened before it was in a ledger since deleted. */
  since: string
  /** The limits the last reservation was given (runs may be given others): for people reading it. */
  limits?: { repository: WindowLimits; perRequester: WindowLimits; at: string }
  days: Record<string, Totals>
  months: Record<string, Totals>
  leases: LeaseRecord[]
  settled: Settlement[]
}

export function emptyLedger(now: Date): Ledger {
  return {
    version: LEDGER_VERSION,
    unit: UNIT,
    since: now.toISOString(),
    days: {},
    months: {},
    leases: [],
    settled: []
  }
}

export function emptyTotals(): Totals {
  return { spent: 0, byRalph: nameMap(), byRequester: nameMap() }
}

/**
 * A map keyed by names (ralphs, logins) with no prototype: a ralph called `__proto__` or `constructor` is a
 * key like any other, never the object's prototype or a function found through it.
 */
export function nameMap(from: Record<string, Micros> = {}): Record<string, Micros> {
  return Object.assign(Object.create(null) as Record<string, Micros>, from)
}

/**
 * The file's text: one line a window, a lease or a settlement, so `git diff` between two commits shows
 * what changed line by line, and the file stays small.
 */
export function serializeLedger(ledger: Ledger): string {
  const block = (entries: string[], open: string, close: string): string =>
    entries.length === 0 ? `${open}${close}` : `${open}\n${entries.map(e => `  ${e}`).join(',\n')}\n ${close}`
  const map = (m: Record<string, unknown>): string =>
    block(
      Object.entries(m).map(([k, v]) => `${JSON.stringify(k)}: ${JSON.stringify(v)}`),
      '{',
      '}'
    )
  const fields: Array<[string, string]> = [
    ['version', JSON.stringify(ledger.version)],
    ['unit', JSON.stringify(ledger.unit)],
    ['since', JSON.stringify(ledger.since)],
    ...(ledger.limits ? [['limits', JSON.stringify(ledger.limits)] as [string, string]] : []),
    ['days', map(ledger.days)],
    ['months', map(ledger.months)],
    [
      'leases',
      block(
        ledger.leases.map(l => JSON.stringify(l)),
        '[',
        ']'
      )
    ],
    [
      'settled',
      block(
        ledger.settled.map(l => JSON.stringify(l)),
        '[',
        ']'
      )
    ]
  ]
  return `{\n${fields.map(([k, v]) => ` ${JSON.stringify(k)}: ${v}`).join(',\n')}\n}\n`
}

/** Malformed ledger.json: `message` is one line naming the field. */
export class LedgerFormatError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'LedgerFormatError'
  }
}

/** Names (ralphs, logins, lease ids, jobs) are printed in logs and summaries: only these characters. */
export const LEDGER_NAME = /^[A-Za-z0-9_.[\]-]{1,100}$/
const MAX_ENTRIES = 10_000

/** Reads ledger.json's text; throws LedgerFormatError with one line for anything out of place. */
export function parseLedger(text: string): Ledger {
  if (Buffer.byteLength(text, 'utf8') > MAX_LEDGER_BYTES)
    throw new LedgerFormatError(`${LEDGER_FILE} is over ${MAX_LEDGER_BYTES / 1024} KB`)
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (error) {
    throw new LedgerFormatError(`${LEDGER_FILE} is not JSON (${(error as Error).message.split('\n')[0]})`)
  }
  try {
    return readLedgerJson(json)
  } catch (error) {
    if (error instanceof LedgerFormatError) throw new LedgerFormatError(`${LEDGER_FILE}: ${error.message}`)
    throw error
  }
}

function readLedgerJson(json: unknown): Ledger {
  const top = record(json, 'the file')
  if (top.version !== LEDGER_VERSION)
    throw new LedgerFormatError(
      typeof top.version === 'number' && top.version > LEDGER_VERSION
        ? `it is version ${top.version}, newer than this ralph-action reads (${LEDGER_VERSION}): use the newer ralph-action in every workflow of the repository`
        : `version must be ${LEDGER_VERSION}, got ${short(top.version)}`
    )
  keys(top, 'the file', ['version', 'unit', 'since', 'days', 'months', 'leases', 'settled'], ['limits'])
  if (top.unit !== UNIT) throw new LedgerFormatError(`unit must be "${UNIT}", got ${short(top.unit)}`)
  const ledger: Ledger = {
    version: LEDGER_VERSION,
    unit: UNIT,
    since: time(top.since, 'since'),
    days: windows(top.days, 'day', 'days'),
    months: windows(top.months, 'month', 'months'),
    leases: list(top.leases, 'leases').map((v, i) => readLease(v, `leases[${i}]`)),
    settled: list(top.settled, 'settled').map((v, i) => settlement(v, `settled[${i}]`))
  }
  if (top.limits !== undefined) {
    const l = record(top.limits, 'limits')
    keys(l, 'limits', ['repository', 'perRequester', 'at'])
    ledger.limits = {
      ...readBudgetLimits({ repository: l.repository, perRequester: l.perRequester }, 'limits'),
      at: time(l.at, 'limits.at')
    }
  }
  const ids = new Set<string>()
  for (const l of ledger.leases) {
    if (ids.has(l.id)) throw new LedgerFormatError(`lease ${l.id} is there twice`)
    ids.add(l.id)
  }
  return ledger
}

function fail(path: string, what: string, value: unknown): never {
  throw new LedgerFormatError(`${path} must be ${what}, got ${short(value)}`)
}

function short(value: unknown): string {
  const text = value === undefined ? 'nothing' : (JSON.stringify(value) ?? String(value))
  return text.length > 40 ? `${text.slice(0, 37)}...` : text
}

function record(value: unknown, path: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) fail(path, 'an object', value)
  return value as Record<string, unknown>
}

function keys(
  value: Record<string, unknown>,
  path: string,
  required: string[],
  optional: string[] = []
): void {
  for (const key of required) if (!(key in value)) throw new LedgerFormatError(`${path} has no ${key}`)
  for (const key of Object.keys(value))
    if (!required.includes(key) && !optional.includes(key))
      throw new LedgerFormatError(`${path} has an unknown field ${short(key)}`)
}

function list(value: unknown, path: string): unknown[] {
  if (!Array.isArray(value)) fail(path, 'a list', value)
  if (value.length > MAX_ENTRIES) fail(path, `a list of at most ${MAX_ENTRIES}`, `${value.length} entries`)
  return value
}

function amount(value: unknown, path: string): Micros {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0 || value > MAX_MICROS)
    fail(path, 'a whole number of micro-dollars, 0 or more', value)
  return value
}

function name(value: unknown, path: string): string {
  if (typeof value !== 'string' || !LEDGER_NAME.test(value))
    fail(path, 'a name of letters, digits and _.-[] (at most 100)', value)
  return value
}

function time(value: unknown, path: string): string {
  if (
    typeof value !== 'string' ||
    !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/.test(value) ||
    Number.isNaN(Date.parse(value))
  )
    fail(path, 'a UTC time like 2026-12-01T10:00:00.000Z', value)
  return value
}

function amounts(value: unknown, path: string): Record<string, Micros> {
  const map = record(value, path)
  const out = nameMap()
  const entries = Object.entries(map)
  if (entries.length > MAX_ENTRIES) fail(path, `at most ${MAX_ENTRIES} entries`, `${entries.length}`)
  for (const [key, v] of entries) out[name(key, `${path} key`)] = amount(v, `${path}.${key}`)
  return out
}

function windows(value: unknown, kind: WindowKind, path: string): Record<string, Totals> {
  const map = record(value, path)
  const out: Record<string, Totals> = {}
  for (const [key, v] of Object.entries(map)) {
    if (!validWindowKey(kind, key))
      fail(`${path} key`, kind === 'day' ? 'a day like 2026-12-01' : 'a month like 2026-12', key)
    const t = record(v, `${path}.${key}`)
    keys(t, `${path}.${key}`, ['spent', 'byRalph', 'byRequester'])
    out[key] = {
      spent: amount(t.spent, `${path}.${key}.spent`),
      byRalph: amounts(t.byRalph, `${path}.${key}.byRalph`),
      byRequester: amounts(t.byRequester, `${path}.${key}.byRequester`)
    }
  }
  return out
}

/** A run's limits (the repository's and per requester), strictly. */
export function readBudgetLimits(value: unknown, path: string): BudgetLimits {
  const map = record(value, path)
  keys(map, path, ['repository', 'perRequester'])
  return {
    repository: limits(map.repository, `${path}.repository`),
    perRequester: limits(map.perRequester, `${path}.perRequester`)
  }
}

function limits(value: unknown, path: string): WindowLimits {
  const map = record(value, path)
  keys(map, path, [], [...WINDOW_KINDS])
  const out: WindowLimits = {}
  for (const kind of WINDOW_KINDS)
    if (map[kind] !== undefined) out[kind] = amount(map[kind], `${path}.${kind}`)
  return out
}

/** One lease, strictly (also a lease handed from one job to another): `path` names it in the message. */
export function readLease(value: unknown, path: string): LeaseRecord {
  const l = record(value, path)
  keys(l, path, ['id', 'state', 'run', 'opened', 'deadline', 'draws'], ['ralph', 'requester', 'maxCost'])
  if (l.state !== 'open' && l.state !== 'expired') fail(`${path}.state`, '"open" or "expired"', l.state)
  const run = record(l.run, `${path}.run`)
  keys(run, `${path}.run`, ['id', 'attempt'], ['job', 'workflow'])
  const attempt = run.attempt
  if (typeof attempt !== 'number' || !Number.isSafeInteger(attempt) || attempt < 1)
    fail(`${path}.run.attempt`, 'a whole number of at least 1', attempt)
  const out: LeaseRecord = {
    id: name(l.id, `${path}.id`),
    state: l.state,
    run: {
      id: name(run.id, `${path}.run.id`),
      attempt,
      ...(run.job !== undefined ? { job: text(run.job, `${path}.run.job`) } : {}),
      ...(run.workflow !== undefined ? { workflow: text(run.workflow, `${path}.run.workflow`) } : {})
    },
    opened: time(l.opened, `${path}.opened`),
    deadline: time(l.deadline, `${path}.deadline`),
    draws: list(l.draws, `${path}.draws`).map((d, i) => draw(d, `${path}.draws[${i}]`))
  }
  if (l.ralph !== undefined) out.ralph = name(l.ralph, `${path}.ralph`)
  if (l.requester !== undefined) out.requester = name(l.requester, `${path}.requester`)
  if (l.maxCost !== undefined) out.maxCost = amount(l.maxCost, `${path}.maxCost`)
  if (out.draws.length === 0) fail(`${path}.draws`, 'a list of at least one draw', [])
  return out
}

/** A job's or a workflow's name: printable (no control or format character), one line, bounded. */
function text(value: unknown, path: string): string {
  if (
    typeof value !== 'string' ||
    value.length === 0 ||
    value.length > 200 ||
    /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u.test(value)
  )
    fail(path, 'a name of one line (at most 200 characters)', value)
  return value
}

function draw(value: unknown, path: string): Draw {
  const d = record(value, path)
  keys(d, path, ['at', 'usd'])
  return { at: time(d.at, `${path}.at`), usd: amount(d.usd, `${path}.usd`) }
}

function settlement(value: unknown, path: string): Settlement {
  const s = record(value, path)
  keys(s, path, ['id', 'at', 'spent'])
  return {
    id: name(s.id, `${path}.id`),
    at: time(s.at, `${path}.at`),
    spent: amount(s.spent, `${path}.spent`)
  }
}
