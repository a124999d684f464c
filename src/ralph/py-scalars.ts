// PyYAML's constructors of scalars (construct_yaml_int, _float, _timestamp): a YAML 1.1 scalar's text as the
// Python value safe_load makes of it. Pure.
import { pyStrip } from './pystr.js'
import { PyOpaque } from './pyvalue.js'

// construct_yaml_int: underscores dropped; 0b, 0x, leading-0 octal, base-60 with colons.
export function constructInt(text: string): bigint | null {
  let value = pyStrip(text.replace(/_/g, ''))
  let sign = 1n
  if (value.startsWith('-')) sign = -1n
  if (value.startsWith('-') || value.startsWith('+')) value = value.slice(1)
  try {
    if (value === '0') return 0n
    if (value.startsWith('0b')) return sign * BigInt('0b' + value.slice(2))
    if (value.startsWith('0x')) return sign * BigInt('0x' + value.slice(2))
    // Python's int(value, 8) also takes an `0o` prefix (only reachable with an explicit !!int).
    if (value.startsWith('0')) return sign * BigInt('0o' + value.replace(/^0[oO](?=.)/, ''))
    if (value.includes(':')) {
      let total = 0n
      let base = 1n
      for (const part of value.split(':').reverse()) {
        total += BigInt(part) * base
        base *= 60n
      }
      return sign * total
    }
    return /^[0-9]+$/.test(value) ? sign * BigInt(value) : null
  } catch {
    return null
  }
}

// construct_yaml_float: underscores dropped, .inf/.nan, base-60 with colons, else Python's float().
export function constructFloat(text: string): number | null {
  let value = pyStrip(text.replace(/_/g, '').toLowerCase())
  let sign = 1
  if (value.startsWith('-')) sign = -1
  if (value.startsWith('-') || value.startsWith('+')) value = value.slice(1)
  if (value === '.inf') return sign * Infinity
  if (value === '.nan' || value === 'nan') return NaN
  if (value === 'inf' || value === 'infinity') return sign * Infinity
  if (value.includes(':')) {
    let total = 0
    let base = 1
    for (const part of value.split(':').reverse()) {
      total += Number(part) * base
      base *= 60
    }
    return sign * total
  }
  if (!/^(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:e[-+]?[0-9]+)?$/.test(value)) return null
  return sign * Number(value)
}

const TIMESTAMP =
  /^([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})(?:(?:[Tt]|[ \t]+)([0-9]{1,2}):([0-9]{2}):([0-9]{2})(?:\.([0-9]*))?(?:[ \t]*(Z|([-+])([0-9]{1,2})(?::([0-9]{2}))?))?)?$/

// construct_yaml_timestamp: a datetime.date, or a datetime.datetime (tz-aware with an offset or Z).
export function constructTimestamp(text: string): PyOpaque | null {
  const m = TIMESTAMP.exec(text)
  if (!m) return null
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])]
  if (month < 1 || month > 12) return null
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate()
  if (year < 1 || day < 1 || day > daysInMonth) return null
  if (m[4] === undefined) return new PyOpaque('date', `datetime.date(${year}, ${month}, ${day})`)
  const [hour, minute, second] = [Number(m[4]), Number(m[5]), Number(m[6])]
  if (hour > 23 || minute > 59 || second > 59) return null
  const micro = m[7] ? Number(m[7].slice(0, 6).padEnd(6, '0')) : 0
  const fields = [year, month, day, hour, minute]
  if (micro) fields.push(second, micro)
  else if (second) fields.push(second)
  let tz = ''
  if (m[9]) {
    let seconds = (Number(m[10]) * 60 + Number(m[11] ?? 0)) * 60
    if (m[9] === '-') seconds = -seconds
    if (seconds <= -86400 || seconds >= 86400) return null
    tz = seconds === 0 ? 'datetime.timezone.utc' : `datetime.timezone(${timedeltaRepr(seconds)})`
  } else if (m[8]) {
    tz = 'datetime.timezone.utc'
  }
  const args = fields.join(', ') + (tz ? `, tzinfo=${tz}` : '')
  return new PyOpaque('datetime', `datetime.datetime(${args})`)
}

function timedeltaRepr(seconds: number): string {
  const days = Math.floor(seconds / 86400)
  const rest = seconds - days * 86400
  const parts = []
  if (days) parts.push(`days=${days}`)
  if (rest) parts.push(`seconds=${rest}`)
  return `datetime.timedelta(${parts.join(', ')})`
}
