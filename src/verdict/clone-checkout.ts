// The clean checkout is what a clone gets (#37): the bytes `git clone` writes for a blob, given the attributes the
// delivered commit's .gitattributes give its path, with git's default configuration (no core.autocrlf, core.eol
// native = LF, no filter driver defined, so a `filter=` passes content through as a clone without it does). The
// conversions are git's own (convert.c): `ident` first, then LF to CRLF where `eol=crlf` asks for it (with
// `text=auto`'s binary and mixed-ending exceptions). A path that `working-tree-encoding` re-encodes is not
// reproduced: the verification says so instead of judging other bytes than a clone's.

/** A path's attributes as `git check-attr -a` prints them: `set`, `unset` or the value. */
export type Attributes = Record<string, string>

/** `git check-attr -a -z` output (path NUL attribute NUL value NUL …), by path. */
export function parseCheckAttr(output: Buffer): Map<string, Attributes> {
  const parts = output.toString('latin1').split('\0')
  const byPath = new Map<string, Attributes>()
  for (let i = 0; i + 2 < parts.length; i += 3) {
    // Names as bytes (a non-UTF-8 name stays byte-exact through latin1).
    const file = parts[i]
    const attrs = byPath.get(file) ?? {}
    attrs[parts[i + 1]] = parts[i + 2]
    byPath.set(file, attrs)
  }
  return byPath
}

type CrlfAction =
  'binary' | 'text' | 'text-input' | 'text-crlf' | 'auto' | 'auto-input' | 'auto-crlf' | 'undefined'

/** git's crlf_action from `text` (or the older `crlf`) and `eol`, as convert.c decides it. */
function crlfAction(attrs: Attributes): CrlfAction {
  const text = attrs.text ?? (attrs.crlf === 'input' ? 'input' : attrs.crlf)
  let action: CrlfAction =
    text === 'set'
      ? 'text'
      : text === 'unset'
        ? 'binary'
        : text === 'auto'
          ? 'auto'
          : text === 'input'
            ? 'text-input'
            : 'undefined'
  if (action === 'binary' || action === 'text-input') return action
  if (attrs.eol === 'lf') action = action === 'auto' ? 'auto-input' : 'text-input'
  else if (attrs.eol === 'crlf') action = action === 'auto' ? 'auto-crlf' : 'text-crlf'
  return action
}

interface Stats {
  nul: number
  loneCr: number
  loneLf: number
  crlf: number
  printable: number
  nonPrintable: number
}

function gatherStats(buf: Buffer): Stats {
  const s: Stats = { nul: 0, loneCr: 0, loneLf: 0, crlf: 0, printable: 0, nonPrintable: 0 }
  for (let i = 0; i < buf.length; i++) {
    const c = buf[i]
    if (c === 0x0d) {
      if (buf[i + 1] === 0x0a) {
        s.crlf++
        i++
      } else s.loneCr++
    } else if (c === 0x0a) s.loneLf++
    else if (c === 0x7f) s.nonPrintable++
    else if (c < 32) {
      // BS, HT, ESC and FF read as text.
      if (c === 0x08 || c === 0x09 || c === 0x1b || c === 0x0c) s.printable++
      else {
        if (c === 0) s.nul++
        s.nonPrintable++
      }
    } else s.printable++
  }
  // A file ending in ^Z (DOS EOF) does not count it.
  if (buf.length > 0 && buf[buf.length - 1] === 0x1a) s.nonPrintable--
  return s
}

const isBinary = (s: Stats): boolean => s.loneCr > 0 || s.nul > 0 || s.printable >> 7 < s.nonPrintable

/** Whether git writes CRLF for each lone LF (will_convert_lf_to_crlf, default config). */
function toCrlf(action: CrlfAction, s: Stats): boolean {
  if (action !== 'text-crlf' && action !== 'auto-crlf') return false
  if (s.loneLf === 0) return false
  if (action === 'auto-crlf' && (s.loneCr > 0 || s.crlf > 0 || isBinary(s))) return false
  return true
}

/** ident_to_worktree: `$Id$` (and a git-style `$Id: … $` on one line) become `$Id: <blob id> $`. */
function expandIdent(buf: Buffer, oid: string): Buffer {
  const text = buf.toString('latin1')
  let out = ''
  let at = 0
  for (let i = text.indexOf('$Id', at); i >= 0; i = text.indexOf('$Id', at)) {
    const next = text[i + 3]
    if (next === '$') {
      out += `${text.slice(at, i)}$Id: ${oid} $`
      at = i + 4
      continue
    }
    if (next === ':') {
      const dollar = text.indexOf('$', i + 4)
      if (dollar < 0) break
      const inside = text.slice(i + 4, dollar)
      // Over a line break, or spaces inside (another system's id): kept as it is.
      const space = text.indexOf(' ', i + 5)
      if (inside.includes('\n') || (space >= 0 && space < dollar - 1)) {
        out += text.slice(at, i + 3)
        at = i + 3
        continue
      }
      out += `${text.slice(at, i)}$Id: ${oid} $`
      at = dollar + 1
      continue
    }
    out += text.slice(at, i + 3)
    at = i + 3
  }
  return Buffer.from(out + text.slice(at), 'latin1')
}

/** LF to CRLF for each lone LF; a CRLF stays as it is. */
function lfToCrlf(buf: Buffer): Buffer {
  const parts: Buffer[] = []
  let from = 0
  for (let i = 0; i < buf.length; i++) {
    if (buf[i] !== 0x0a || (i > 0 && buf[i - 1] === 0x0d)) continue
    parts.push(buf.subarray(from, i), Buffer.from('\r'))
    from = i
  }
  parts.push(buf.subarray(from))
  return Buffer.concat(parts)
}

/**
 * The bytes `git clone` writes for a regular file whose blob is `blob` (object id `oid`) under `attrs`, or why the
 * clean checkout cannot reproduce them.
 */
export function cloneBytes(
  blob: Buffer,
  oid: string,
  attrs: Attributes
): { bytes: Buffer } | { why: string } {
  const encoding = attrs['working-tree-encoding']
  if (encoding !== undefined && encoding !== 'unset' && encoding !== 'set')
    return { why: `a clone re-encodes it (working-tree-encoding=${encoding})` }
  let bytes = attrs.ident === 'set' ? expandIdent(blob, oid) : blob
  if (toCrlf(crlfAction(attrs), gatherStats(bytes))) bytes = lfToCrlf(bytes)
  return { bytes }
}
