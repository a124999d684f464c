// The one Markdown helper set: a code span or fence that no text can break out of, whatever runs of
// backticks it holds (the copies it replaced broke out on two).
import { cell, code, codeCell, cut, fence, fit } from '../../src/text/markdown.js'

/** What CommonMark shows for a code span: the text between the first delimiter and the next of the same length. */
function spanContent(markdown: string): string | undefined {
  const open = /^`+/.exec(markdown)?.[0]
  if (!open) return undefined
  const rest = markdown.slice(open.length)
  const close = new RegExp(`(?<!\`)${open}(?!\`)`).exec(rest)
  if (!close) return undefined
  const inner = rest.slice(0, close.index)
  return inner.startsWith(' ') && inner.endsWith(' ') && inner.trim() !== '' ? inner.slice(1, -1) : inner
}

test.each(['plain', 'one ` tick', 'two `` ticks', 'three ``` ticks', '`edge', 'edge`', '``', 'a `` b ``` c'])(
  'a code span holds %j whole: it closes only at its own end',
  text => {
    const span = code(text)
    expect(spanContent(span)).toBe(text)
    expect(span.length).toBeGreaterThanOrEqual(text.length + 2)
  }
)

test('a fence is longer than any run of its mark inside', () => {
  expect(fence('a\n````\nb\n', 'diff')).toBe('`````diff\na\n````\nb\n`````')
  expect(fence('x ~~~~ y', '', '~')).toBe('~~~~~\nx ~~~~ y\n~~~~~')
  expect(fence('short')).toBe('```\nshort\n```')
})

test('a table cell is one line without pipes, cut with an ellipsis', () => {
  expect(cell('a | b\n  c')).toBe('a \\| b c')
  expect(cell('x'.repeat(100), 10)).toBe(`${'x'.repeat(9)}…`)
  expect(codeCell('a|b `c`')).toBe('`` a\\|b `c` ``')
  expect(cut('abc', 3)).toBe('abc')
})

test('fit keeps the first line whole and the body under the limit', () => {
  const body = `<!-- marker -->\n${'y'.repeat(5000)}`
  const fitted = fit(body, 1000)
  expect(fitted.length).toBeLessThanOrEqual(1000)
  expect(fitted.startsWith('<!-- marker -->\n')).toBe(true)
  expect(fitted).toContain('cut to fit GitHub’s comment limit')
  expect(fit('short', 1000)).toBe('short')
})
