// JSON another job wrote (a delivery's manifest, a chain's record) read with its nesting bounded: JSON.parse
// itself goes deep, but what walks the value after it (JSON.stringify, a recursive check) runs out of stack.

/** The deepest nesting of arrays and objects read from another job: ours never pass a dozen. */
export const MOST_JSON_DEPTH = 64

/** JSON.parse, refusing first (a scan outside strings, no recursion) text nested deeper than `most` levels. */
export function parseBoundedJson(text: string, most = MOST_JSON_DEPTH): unknown {
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 0x5c) i++
      else if (c === 0x22) inString = false
    } else if (c === 0x22) inString = true
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > most) throw new Error(`it is nested deeper than ${most} levels`)
    } else if (c === 0x5d || c === 0x7d) depth--
  }
  return JSON.parse(text)
}
