import type { Captured } from './types.js'

export interface DecodeOptions {
  /** Python text-mode universal newlines: `\r\n` → `\n`, then a lone `\r` → `\n`. */
  translateNewlines?: boolean
  /** Text put where the middle of a truncated capture was dropped. Default: {@link defaultTruncationMarker}. */
  truncationMarker?: (droppedBytes: number) => string
}

export const defaultTruncationMarker = (droppedBytes: number): string =>
  `\n[... ${droppedBytes} bytes omitted ...]\n`

/**
 * Decodes a capture as UTF-8 with replacement, like Python's `bytes.decode('utf-8', 'replace')`.
 * Node's decoder replaces exactly the same maximal invalid subparts as Python (checked against
 * CPython 3.11 for stray bytes, truncated sequences, overlongs, surrogates, > U+10FFFF) and, unlike
 * `TextDecoder`'s default, keeps a leading BOM as Python's 'utf-8' codec does.
 * A character split by the head/tail cut is dropped rather than shown as replacement characters;
 * the bytes it loses are counted in the marker.
 */
export function decodeCaptured(c: Captured, opts: DecodeOptions = {}): string {
  const text = (bytes: Buffer): string => {
    const s = bytes.toString('utf8')
    return opts.translateNewlines ? translateNewlines(s) : s
  }
  if (!c.truncated) return text(c.tail.length === 0 ? c.head : Buffer.concat([c.head, c.tail]))
  const head = c.head.subarray(0, c.head.length - cutCharacterAtEnd(c.head))
  const tail = c.tail.subarray(cutCharacterAtStart(c.tail))
  const dropped = c.totalBytes - head.length - tail.length
  return text(head) + (opts.truncationMarker ?? defaultTruncationMarker)(dropped) + text(tail)
}

/** What Python's text mode does to subprocess output (`subprocess.run(..., text=True)`). */
export function translateNewlines(s: string): string {
  return s.replace(/\r\n?/g, '\n')
}

/**
 * The reference runtime's rule for one command's text: stdout then stderr, with a "\n" between them
 * only when both are non-empty and stdout does not already end with one. Nothing is trimmed.
 */
export function combineOutput(stdout: string, stderr: string): string {
  if (stdout === '') return stderr
  if (stderr === '') return stdout
  return stdout.endsWith('\n') ? stdout + stderr : `${stdout}\n${stderr}`
}

const isContinuation = (b: number): boolean => b >= 0x80 && b <= 0xbf

/** Length of a UTF-8 sequence started by `lead`, or 0 when `lead` cannot start one. */
function sequenceLength(lead: number): number {
  if (lead >= 0xc2 && lead <= 0xdf) return 2
  if (lead >= 0xe0 && lead <= 0xef) return 3
  if (lead >= 0xf0 && lead <= 0xf4) return 4
  return 0
}

/** The second byte is restricted for some leads (no overlongs, no surrogates, nothing above U+10FFFF). */
function validSecondByte(lead: number, b: number): boolean {
  if (lead === 0xe0) return b >= 0xa0 && b <= 0xbf
  if (lead === 0xed) return b >= 0x80 && b <= 0x9f
  if (lead === 0xf0) return b >= 0x90 && b <= 0xbf
  if (lead === 0xf4) return b >= 0x80 && b <= 0x8f
  return isContinuation(b)
}

/**
 * Bytes at the end of `buf` that are the valid beginning of a character the cut split. An invalid
 * or complete ending returns 0, so it decodes exactly as Python would decode it.
 */
function cutCharacterAtEnd(buf: Buffer): number {
  for (let back = 1; back <= Math.min(3, buf.length); back++) {
    const lead = buf[buf.length - back]
    if (isContinuation(lead)) continue
    const need = sequenceLength(lead)
    if (need <= back) return 0
    const rest = buf.subarray(buf.length - back + 1)
    if (rest.length > 0 && !validSecondByte(lead, rest[0])) return 0
    return rest.every(isContinuation) ? back : 0
  }
  return 0
}

/** Continuation bytes at the start of the tail belong to a character whose beginning was dropped. */
function cutCharacterAtStart(buf: Buffer): number {
  let n = 0
  while (n < 3 && n < buf.length && isContinuation(buf[n])) n++
  return n
}
