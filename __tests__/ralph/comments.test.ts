import { stripHtmlComments } from '../../src/ralph/comments.js'
import { COMMENTS } from './fixtures/reference.js'

describe('HTML comments are removed like the reference does (table from ralphify)', () => {
  test.each(COMMENTS)('%j', (input, expected) => {
    expect(stripHtmlComments(input)).toBe(expected)
  })
})

describe('HTML comment removal', () => {
  test('a comment is deleted exactly, leaving the spaces around it', () => {
    expect(stripHtmlComments('Line A <!-- x --> continues.')).toBe('Line A  continues.')
  })

  test('a comment on its own line leaves an empty line', () => {
    expect(stripHtmlComments('a\n<!-- x -->\nb')).toBe('a\n\nb')
  })

  test('a comment may span lines, and placeholders inside it go with it', () => {
    expect(stripHtmlComments('a<!--\n{{ commands.x }}\n-->b')).toBe('ab')
  })

  test('a comment inside a ``` fence is kept', () => {
    expect(stripHtmlComments('```\n<!-- kept -->\n```')).toBe('```\n<!-- kept -->\n```')
  })

  test('a comment inside a ~~~ fence is kept', () => {
    expect(stripHtmlComments('~~~\n<!-- kept -->\n~~~')).toBe('~~~\n<!-- kept -->\n~~~')
  })

  test('a ```` fence holds an inner ``` block', () => {
    const text = '````\n```\n<!-- kept -->\n```\n````\n<!-- gone -->'
    expect(stripHtmlComments(text)).toBe('````\n```\n<!-- kept -->\n```\n````\n')
  })

  test('a closing fence may be indented with spaces or tabs and be longer than the opening one', () => {
    expect(stripHtmlComments('```\n<!-- k -->\n \t`````\n<!-- g -->')).toBe('```\n<!-- k -->\n \t`````\n')
  })

  test('a closing fence must start a line: a fence closed mid-line protects nothing', () => {
    expect(stripHtmlComments('```\n<!-- x --> ```')).toBe('```\n ```')
  })

  test('an opening fence counts even in the middle of a line (regex, not CommonMark)', () => {
    expect(stripHtmlComments('text ```\n<!-- x -->\n```')).toBe('text ```\n<!-- x -->\n```')
  })

  test('a comment inside single-backtick inline code is removed', () => {
    expect(stripHtmlComments('`<!-- x -->`')).toBe('``')
  })

  test('an unterminated <!-- is kept', () => {
    expect(stripHtmlComments('a <!-- b')).toBe('a <!-- b')
  })

  test('an unclosed fence protects nothing', () => {
    expect(stripHtmlComments('```\n<!-- x -->')).toBe('```\n')
  })
})
