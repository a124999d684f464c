import { finalMessageFromOutput, presetFor } from '../../src/agents/index.js'

const PROMPT =
  'Fix the failing test.\n\nWhen done, end with:\n\n<promise>COMPLETE</promise>\n\nThank you for the help today.'

test('the final message is the last paragraph of stdout', () => {
  expect(
    finalMessageFromOutput('Working...\nran tests\n\nAll fixed.\n<promise>COMPLETE</promise>\n\n\n', PROMPT)
  ).toBe('All fixed.\n<promise>COMPLETE</promise>')
})

test('an agent that echoes the prompt gives no final message', () => {
  expect(finalMessageFromOutput(PROMPT, PROMPT)).toBeUndefined()
  expect(finalMessageFromOutput(`${PROMPT}\n`, PROMPT)).toBeUndefined()
})

test('what follows an echoed prompt is the answer', () => {
  expect(finalMessageFromOutput(`user: ${PROMPT}\n\nassistant: done\n\nbye`, PROMPT)).toBe('bye')
})

test('CRLF output is read as LF', () => {
  expect(finalMessageFromOutput('a\r\n\r\nb\r\nc\r\n', PROMPT)).toBe('b\nc')
})

test('a status block with blank lines inside is taken whole', () => {
  const out = 'log\n\n---RALPH_STATUS---\nSTATUS: COMPLETE\n\nEXIT_SIGNAL: true\n---END_RALPH_STATUS---\n'
  expect(finalMessageFromOutput(out, PROMPT)).toBe(
    '---RALPH_STATUS---\nSTATUS: COMPLETE\n\nEXIT_SIGNAL: true\n---END_RALPH_STATUS---'
  )
})

test('empty output gives no final message', () => {
  expect(finalMessageFromOutput('\n\n  \n', PROMPT)).toBeUndefined()
})

test('claude is recognised by the stem of its program name; everything else is generic', () => {
  expect(presetFor(['claude', '-p'], { presets: true }).name).toBe('claude')
  expect(presetFor(['/usr/local/bin/claude.exe'], { presets: true }).name).toBe('claude')
  expect(presetFor(['claude-code'], { presets: true }).name).toBe('generic')
  expect(presetFor(['./my-claude.sh'], { presets: true }).name).toBe('generic')
  expect(presetFor(['claude'], { presets: false }).name).toBe('generic')
})

test('the claude preset appends the reference runtime flags, even when already given', () => {
  expect(presetFor(['claude'], { presets: true }).argv(['claude', '-p', '--output-format', 'json'])).toEqual([
    'claude',
    '-p',
    '--output-format',
    'json',
    '--output-format',
    'stream-json',
    '--verbose'
  ])
})
