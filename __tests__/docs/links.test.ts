// Every relative link of README.md and docs/ leads somewhere: the file exists, and an `#anchor` is a heading of
// the page it names, as GitHub makes anchors. A page moved or a heading renamed fails here, not for a reader.
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { githubSlug, markdownPages, readPage, REPO, type Page } from './markdown.js'

/** The links of `pages` that lead nowhere, as `page: target (why)`. */
function brokenLinks(root: string, pages: string[]): string[] {
  const read = new Map<string, Page>()
  const pageOf = (file: string): Page => {
    if (!read.has(file)) read.set(file, readPage(file, root))
    return read.get(file) as Page
  }
  const broken: string[] = []
  for (const page of pages) {
    for (const link of pageOf(page).links) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(link)) continue // https:, mailto:: another site's
      const [target, anchor] = link.split('#') as [string, string | undefined]
      const file =
        target === '' ? page : path.posix.normalize(path.posix.join(path.posix.dirname(page), target))
      if (file.startsWith('..') || !existsSync(path.join(root, file))) {
        broken.push(`${page}: ${link} (no such file)`)
        continue
      }
      if (anchor === undefined) continue
      if (!file.endsWith('.md')) broken.push(`${page}: ${link} (an anchor into a file that is not Markdown)`)
      else if (!pageOf(file).anchors.has(decodeURIComponent(anchor)))
        broken.push(`${page}: ${link} (no heading of ${file} makes #${anchor})`)
    }
  }
  return broken
}

test('every relative link and anchor of README.md and docs/ resolves', () => {
  const pages = markdownPages()
  expect(pages).toEqual(expect.arrayContaining(['README.md', 'docs/README.md', 'docs/reference/inputs.md']))
  expect(brokenLinks(REPO, pages)).toEqual([])
})

test('every page of docs/ is linked from the README or from the index it links, docs/README.md', () => {
  const readme = readPage('README.md').links.map(link => link.split('#')[0])
  expect(readme).toContain('docs/README.md')
  const index = readPage('docs/README.md').links.map(link => path.posix.join('docs', link.split('#')[0]))
  const linked = new Set([...readme, ...index])
  expect(markdownPages().filter(page => page.startsWith('docs/') && !linked.has(page))).toEqual([])
})

test("anchors are GitHub's: punctuation and code marks dropped, spaces made hyphens, case folded", () => {
  expect(githubSlug('Triggers: `/ralph` comments, nightly hunts, fan-out')).toBe(
    'triggers-ralph-comments-nightly-hunts-fan-out'
  )
  expect(githubSlug("Agents, cost and the agent's environment")).toBe(
    'agents-cost-and-the-agents-environment'
  )
  expect(githubSlug('1. Vendor the action')).toBe('1-vendor-the-action')
  expect(githubSlug('Two jobs: no write token where the agent runs')).toBe(
    'two-jobs-no-write-token-where-the-agent-runs'
  )
  expect(githubSlug('The verdict (isolation_mode), again!')).toBe('the-verdict-isolation_mode-again')
})

describe('in a scratch copy', () => {
  let root: string
  beforeEach(() => {
    root = mkdtempSync(path.join(tmpdir(), 'ralph-links-'))
    mkdirSync(path.join(root, 'docs'))
    writeFileSync(path.join(root, 'docs', 'a.md'), '# A page\n\n## Twice\n\n## Twice\n\nText.\n')
  })
  afterEach(() => rmSync(root, { recursive: true, force: true }))

  test('a missing file, a missing anchor and a link out of the repository are each named; good ones pass', () => {
    writeFileSync(
      path.join(root, 'README.md'),
      [
        '[ok](docs/a.md) [ok](docs/a.md#twice) [ok](docs/a.md#twice-1) [ok](#here) [ok](https://example.com/x#y)',
        '[gone](docs/b.md) [no anchor](docs/a.md#thrice) [out](../elsewhere.md) [self](#nowhere)',
        '`[in code](docs/c.md)`',
        '',
        '## Here'
      ].join('\n')
    )
    expect(brokenLinks(root, ['README.md', 'docs/a.md'])).toEqual([
      'README.md: docs/b.md (no such file)',
      'README.md: docs/a.md#thrice (no heading of docs/a.md makes #thrice)',
      'README.md: ../elsewhere.md (no such file)',
      'README.md: #nowhere (no heading of README.md makes #nowhere)'
    ])
  })
})
