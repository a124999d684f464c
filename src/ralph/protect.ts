// The protected-paths setting (`protected:` in RALPH.md, the action's `protected-paths`): `auto`, `none`, or globs
// relative to the repository's top, `auto` possibly among them. What they protect is decided in loop/protect/.

/** The setting as given: `auto` (default), `none`, or globs (where `auto` may be one of them). */
export function parseProtectSetting(words: readonly string[]): string[] | { problem: string } {
  const list = words.map(word => word.trim()).filter(word => word !== '')
  if (list.length === 0) return ['auto']
  if (list.includes('none') && list.length > 1)
    return { problem: "'none' turns protection off and cannot be listed with other globs" }
  for (const glob of list) {
    if (glob === 'auto' || glob === 'none') continue
    if (glob.startsWith('/') || glob.split('/').includes('..'))
      return {
        problem: `'${glob}' must be a path inside the repository, relative to its top (no leading / or ..)`
      }
    if (/[\n\r\0]/.test(glob)) return { problem: `a glob holds a line break or a NUL` }
  }
  return list
}
