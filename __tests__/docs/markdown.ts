// The project's Markdown as GitHub shows it: the pages (README.md and docs/**/*.md), their headings' anchors,
// links and fenced code blocks, read with marked's lexer (so a link inside code is no link).
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { marked, type Token, type Tokens } from 'marked'

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..')

/** README.md and every page under docs/, relative to the repository's top, with `/`. */
export function markdownPages(root = REPO): string[] {
  const docs = (dir: string): string[] =>
    readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap(entry =>
      entry.isDirectory()
        ? docs(`${dir}/${entry.name}`)
        : entry.name.endsWith('.md')
          ? [`${dir}/${entry.name}`]
          : []
    )
  return ['README.md', ...docs('docs')].sort()
}

export interface CodeBlock {
  page: string
  lang: string
  text: string
  /** The text of the last heading above it ('' before the first). */
  heading: string
}

export interface Page {
  page: string
  /** Every anchor its headings make, as GitHub makes them. */
  anchors: Set<string>
  /** Every link and image target, as written. */
  links: string[]
  blocks: CodeBlock[]
}

/** The text a heading shows: its inline tokens without their Markdown (code spans, emphasis, links' text). */
function shownText(tokens: Token[] | undefined, raw: string): string {
  if (!tokens) return raw
  return tokens
    .map(token =>
      'tokens' in token && token.tokens
        ? shownText(token.tokens, '')
        : 'text' in token
          ? String(token.text)
          : ''
    )
    .join('')
}

/**
 * GitHub's anchor for a heading (github-slugger's rules): lower case, every character but letters, marks,
 * digits, `_`, `-` and spaces dropped, each space a hyphen.
 */
export function githubSlug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-')
}

/** A page's anchors, links and code blocks; a second heading with the same anchor gets `-1`, then `-2`. */
export function readPage(page: string, root = REPO): Page {
  const tokens = marked.lexer(readFileSync(path.join(root, page), 'utf8'))
  const anchors = new Set<string>()
  const seen = new Map<string, number>()
  const links: string[] = []
  const blocks: CodeBlock[] = []
  let heading = ''
  // walkTokens returns its callbacks' results; these return nothing.
  void marked.walkTokens(tokens, token => {
    if (token.type === 'heading') {
      const { text, tokens: inline } = token as Tokens.Heading
      heading = shownText(inline, text)
      const slug = githubSlug(heading)
      const count = seen.get(slug) ?? 0
      seen.set(slug, count + 1)
      anchors.add(count === 0 ? slug : `${slug}-${count}`)
    } else if (token.type === 'link' || token.type === 'image') {
      links.push((token as Tokens.Link).href)
    } else if (token.type === 'code') {
      const { lang, text } = token as Tokens.Code
      blocks.push({ page, lang: (lang ?? '').trim(), text, heading })
    }
  })
  return { page, anchors, links, blocks }
}
