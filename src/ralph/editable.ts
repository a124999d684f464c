// The editable setting (`editable:` in RALPH.md, the action's `editable`): globs relative to the repository's top
// naming the paths the agent may change; every other path is protected (loop/protect-rules/editable.ts).

/** The globs as given, or why they cannot be (none given: undefined, the setting is off). */
export function parseEditableSetting(words: readonly string[]): string[] | undefined | { problem: string } {
  const list = words.map(word => word.trim()).filter(word => word !== '')
  if (list.length === 0) return undefined
  for (const glob of list) {
    if (glob === 'auto' || glob === 'none')
      return {
        problem: `'${glob}' is a protected-paths word; editable takes globs of the paths the agent may change`
      }
    if (glob.startsWith('/') || glob.split('/').includes('..'))
      return {
        problem: `'${glob}' must be a path inside the repository, relative to its top (no leading / or ..)`
      }
    if (/[\n\r\0]/.test(glob)) return { problem: 'a glob holds a line break or a NUL' }
  }
  return list
}
