// The glob engine of protected paths: a glob as a regular expression over `/` path strings, and which rule
// names a path. Pure.
import path from 'node:path'
import type { ProtectRule } from './types.js'

const regexCache = new Map<string, RegExp>()

/** A glob as a regular expression over `/` paths: `**` any folders, `*` and `?` within a name, `[…]`, `{a,b}`. */
export function globRegExp(glob: string): RegExp {
  const cached = regexCache.get(glob)
  if (cached) return cached
  let source = ''
  const g = glob.replace(/\/+$/, '/**')
  for (let i = 0; i < g.length; i++) {
    const c = g[i]
    if (c === '*' && g[i + 1] === '*') {
      const atStart = i === 0 || g[i - 1] === '/'
      const slashAfter = g[i + 2] === '/'
      if (atStart && slashAfter) {
        source += '(?:.*/)?'
        i += 2
      } else if (atStart && i + 2 === g.length) {
        source += '.*'
        i += 1
      } else {
        source += '[^/]*'
        i += 1
      }
    } else if (c === '*') source += '[^/]*'
    else if (c === '?') source += '[^/]'
    else if (c === '[') {
      const end = g.indexOf(']', i + 2)
      if (end === -1) source += '\\['
      else {
        const body = g
          .slice(i + 1, end)
          .replace(/^!/, '^')
          .replace(/\\/g, '\\\\')
        source += `[${body}]`
        i = end
      }
    } else if (c === '{') {
      const end = g.indexOf('}', i)
      if (end === -1) source += '\\{'
      else {
        const options = g.slice(i + 1, end).split(',')
        source += `(?:${options.map(o => o.replace(/[.+^${}()|\\]/g, '\\$&').replace(/\*/g, '[^/]*')).join('|')})`
        i = end
      }
    } else source += c.replace(/[.+^${}()|\\/]/g, '\\$&')
  }
  const re = new RegExp(`^${source}$`)
  regexCache.set(glob, re)
  return re
}

/** Whether a glob names the path itself or a folder holding it. */
export function globMatches(glob: string, file: string): boolean {
  const re = globRegExp(glob)
  if (re.test(file)) return true
  for (let dir = path.posix.dirname(file); dir !== '.'; dir = path.posix.dirname(dir))
    if (re.test(dir)) return true
  return false
}

/** The first rule protecting a path of the start commit (`base`: it is in it), or undefined. */
export function ruleFor(rules: readonly ProtectRule[], file: string, base: boolean): ProtectRule | undefined {
  return rules.find(
    rule =>
      (base || rule.scope === 'all') &&
      globMatches(rule.glob, file) &&
      !rule.except?.some(glob => globMatches(glob, file))
  )
}
