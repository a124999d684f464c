// A path of the work tree is bytes (git's and the file system's), not text: a name need not be UTF-8. Here a
// path is a string that holds UTF-8 as its characters and every other byte as a lone surrogate U+DC80–U+DCFF
// (Python's surrogateescape), so it compares, keys a map and matches a glob exactly, and turns back into the
// same bytes for the file system and git. A log line names one with `showPath`.
import { isUtf8 } from 'node:buffer'
import path from 'node:path'

/** A byte that is not part of UTF-8, kept in a path string. */
const ESCAPED_BYTE = /[\u{dc80}-\u{dcff}]/u

/** The path string of `bytes` (a name as git or the file system gives it). */
export function pathFromBytes(bytes: Uint8Array): string {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  if (isUtf8(buffer)) return buffer.toString('utf8')
  let out = ''
  let start = 0
  for (let i = 0; i < buffer.length;) {
    if (buffer[i] < 0x80) {
      i++
      continue
    }
    // UTF-8 is prefix-free: at most one of these lengths is a whole valid character.
    const length = [2, 3, 4].find(n => i + n <= buffer.length && isUtf8(buffer.subarray(i, i + n)))
    if (length !== undefined) {
      i += length
      continue
    }
    out += buffer.toString('utf8', start, i) + String.fromCharCode(0xdc00 + buffer[i])
    start = ++i
  }
  return out + buffer.toString('utf8', start)
}

/** The bytes a path string stands for (what git and the file system are given). */
export function pathBytes(p: string): Buffer {
  if (!ESCAPED_BYTE.test(p)) return Buffer.from(p, 'utf8')
  const parts: Buffer[] = []
  let start = 0
  for (const m of p.matchAll(new RegExp(ESCAPED_BYTE, 'gu'))) {
    parts.push(Buffer.from(p.slice(start, m.index), 'utf8'), Buffer.of(m[0].charCodeAt(0) - 0xdc00))
    start = m.index + 1
  }
  parts.push(Buffer.from(p.slice(start), 'utf8'))
  return Buffer.concat(parts)
}

/** The records of git's `-z` output as path strings (the empty one after the last NUL left out). */
export function splitNul(out: Buffer): string[] {
  const records: string[] = []
  if (isUtf8(out)) records.push(...out.toString('utf8').split('\0'))
  else
    for (let at = 0; at <= out.length;) {
      const end = out.indexOf(0, at)
      const stop = end === -1 ? out.length : end
      records.push(pathFromBytes(out.subarray(at, stop)))
      at = stop + 1
    }
  if (records.at(-1) === '') records.pop()
  return records
}

/** `rel` (relative to `top`) as the file system's bytes: what fs calls on a path of the tree are given. */
export function onDisk(top: string, rel: string): Buffer {
  return pathBytes(rel === '' ? top : path.join(top, rel))
}

/** Characters a name is never shown with as they are: controls, format characters (bidi, zero-width), line breaks. */
const UNSHOWN = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}"\\\u{dc80}-\u{dcff}]/u

/**
 * A path for a log line: as it is when it holds only printable UTF-8, else in double quotes with C escapes, as
 * git quotes one (`"caf\xe9/.git"`): a byte that is not UTF-8 as `\xNN`, a control or format character as
 * `\t`, `\n`, `\r` or `\u{NNNN}`, `"` and `\` escaped.
 */
export function showPath(p: string): string {
  if (!UNSHOWN.test(p)) return p
  let out = '"'
  for (const ch of p) {
    const code = ch.codePointAt(0) as number
    if (ch === '"' || ch === '\\') out += `\\${ch}`
    else if (ch === '\t') out += '\\t'
    else if (ch === '\n') out += '\\n'
    else if (ch === '\r') out += '\\r'
    else if (code >= 0xdc80 && code <= 0xdcff) out += `\\x${(code - 0xdc00).toString(16).padStart(2, '0')}`
    else if (UNSHOWN.test(ch)) out += `\\u{${code.toString(16).padStart(4, '0')}}`
    else out += ch
  }
  return `${out}"`
}
