// What PyYAML's safe_load gives the reference runtime, modelled closely enough to reproduce its messages:
// the Python type of a value (`got list`) and its repr (`got 'false'`, `invalid timeout: 1.5`).

/** A Python value with no JavaScript counterpart (date, datetime, bytes, set, tuple): its type name and repr. */
export class PyOpaque {
  constructor(
    readonly typeName: string,
    readonly repr: string
  ) {}
}

/**
 * A value as PyYAML's safe_load builds it. Python int is `bigint` (exact, and distinct from float),
 * float is `number`, None is `null`, list is an array, dict is a Map (str keys are JS strings).
 */
export type PyValue = null | boolean | bigint | number | string | PyValue[] | PyDict | PyOpaque
export type PyDict = Map<PyValue, PyValue>

/** Python's `type(v).__name__`. */
export function pyTypeName(v: PyValue): string {
  if (v === null) return 'NoneType'
  switch (typeof v) {
    case 'boolean':
      return 'bool'
    case 'bigint':
      return 'int'
    case 'number':
      return 'float'
    case 'string':
      return 'str'
  }
  if (Array.isArray(v)) return 'list'
  if (v instanceof Map) return 'dict'
  return v.typeName
}

/** Python's `repr(v)`. */
export function pyRepr(v: PyValue): string {
  return reprIn(v, new Set())
}

function reprIn(v: PyValue, open: Set<object>): string {
  if (v === null) return 'None'
  switch (typeof v) {
    case 'boolean':
      return v ? 'True' : 'False'
    case 'bigint':
      return v.toString()
    case 'number':
      return pyFloatRepr(v)
    case 'string':
      return pyStrRepr(v)
  }
  if (v instanceof PyOpaque) return v.repr
  // A YAML alias can make a structure contain itself; Python prints the inner reference as [...] / {...}.
  if (open.has(v)) return Array.isArray(v) ? '[...]' : '{...}'
  open.add(v)
  try {
    if (Array.isArray(v)) return `[${v.map(item => reprIn(item, open)).join(', ')}]`
    const entries = [...v].map(([key, value]) => `${reprIn(key, open)}: ${reprIn(value, open)}`)
    return `{${entries.join(', ')}}`
  } finally {
    open.delete(v)
  }
}

// Python's str.isprintable() is false for these categories (the space character excepted).
const NOT_PRINTABLE = /^[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]$/u

/** Python's `repr(s)` for a str. */
export function pyStrRepr(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'"
  let out = quote
  for (const ch of s) {
    const code = ch.codePointAt(0) as number
    if (ch === quote || ch === '\\') out += '\\' + ch
    else if (ch === '\t') out += '\\t'
    else if (ch === '\n') out += '\\n'
    else if (ch === '\r') out += '\\r'
    else if (code < 0x20 || code === 0x7f) out += '\\x' + hex(code, 2)
    else if (code < 0x7f) out += ch
    else if (!NOT_PRINTABLE.test(ch)) out += ch
    else if (code <= 0xff) out += '\\x' + hex(code, 2)
    else if (code <= 0xffff) out += '\\u' + hex(code, 4)
    else out += '\\U' + hex(code, 8)
  }
  return out + quote
}

/** Python's `repr(b)` for bytes. */
export function pyBytesRepr(bytes: Uint8Array): string {
  const hasSingle = bytes.includes(0x27)
  const quote = hasSingle && !bytes.includes(0x22) ? '"' : "'"
  let out = 'b' + quote
  for (const b of bytes) {
    const ch = String.fromCharCode(b)
    if (ch === quote || ch === '\\') out += '\\' + ch
    else if (ch === '\t') out += '\\t'
    else if (ch === '\n') out += '\\n'
    else if (ch === '\r') out += '\\r'
    else if (b < 0x20 || b >= 0x7f) out += '\\x' + hex(b, 2)
    else out += ch
  }
  return out + quote
}

function hex(n: number, width: number): string {
  return n.toString(16).padStart(width, '0')
}

/** Python's `repr(x)` for a float: the shortest digits that round-trip, `1e+16`, `1e-05`, `inf`, `nan`. */
export function pyFloatRepr(x: number): string {
  if (Number.isNaN(x)) return 'nan'
  if (x === Infinity) return 'inf'
  if (x === -Infinity) return '-inf'
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0'
  const sign = x < 0 ? '-' : ''
  // toExponential() without an argument gives the shortest round-trip digits, like Python's repr.
  const [mantissa, exponent] = Math.abs(x).toExponential().split('e')
  const digits = mantissa.replace('.', '')
  const decpt = Number(exponent) + 1
  if (decpt > -4 && decpt <= 16) {
    if (decpt <= 0) return `${sign}0.${'0'.repeat(-decpt)}${digits}`
    if (decpt >= digits.length) return `${sign}${digits}${'0'.repeat(decpt - digits.length)}.0`
    return `${sign}${digits.slice(0, decpt)}.${digits.slice(decpt)}`
  }
  const exp = decpt - 1
  const frac = digits.length > 1 ? `.${digits.slice(1)}` : ''
  const expText = String(Math.abs(exp)).padStart(2, '0')
  return `${sign}${digits[0]}${frac}e${exp < 0 ? '-' : '+'}${expText}`
}

/**
 * Python's `'%.1f' % x`: the exact binary value correctly rounded, an exact tie going to the even digit
 * (`0.25` → `0.2`). JavaScript's toFixed sends ties up, and switches to exponent notation from 1e21.
 */
export function pyFormatFixed1(x: number): string {
  if (Number.isNaN(x)) return 'nan'
  if (!Number.isFinite(x)) return x > 0 ? 'inf' : '-inf'
  const sign = x < 0 || Object.is(x, -0) ? '-' : ''
  const a = Math.abs(x)
  if (a >= 1e21) return `${sign}${BigInt(a).toString()}.0`
  const quarters = a * 4
  // Only n + 0.25 and n + 0.75 are exact ties at one decimal: a*4 is then an odd integer.
  if (Number.isInteger(quarters) && quarters % 2 === 1) {
    const five = BigInt(quarters) * 5n // tenths * 2, odd
    let tenths = (five - 1n) / 2n
    if (tenths % 2n === 1n) tenths += 1n
    return `${sign}${tenths / 10n}.${tenths % 10n}`
  }
  return `${sign}${a.toFixed(1)}`
}
