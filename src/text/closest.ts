// The word a person probably meant: the nearest of the known ones, when it is near enough to be a typo.

/** Edits (insert, delete, replace) that turn `a` into `b`. */
export function editDistance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const next = [i]
    for (let j = 1; j <= b.length; j++)
      next[j] = Math.min(row[j] + 1, next[j - 1] + 1, row[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1))
    row = next
  }
  return row[b.length]
}

/** The known word nearest to `typed`, within `most` edits (the first of equals); undefined when none is. */
export function closest(typed: string, known: Iterable<string>, most = 2): string | undefined {
  let best: { word: string; edits: number } | undefined
  for (const word of known) {
    const edits = editDistance(typed, word)
    if (edits <= most && (!best || edits < best.edits)) best = { word, edits }
  }
  return best?.word
}
