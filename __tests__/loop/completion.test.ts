import { detectCompletion, statusBlockExit, tagGiven } from '../../src/loop/completion.js'

const TAG = 'COMPLETE'

describe('the completion tag', () => {
  test.each([
    ['alone on the last line', 'Fixed the parser.\n\n<promise>COMPLETE</promise>'],
    ['alone on a line with spaces and a final period', 'Done.\n   <promise>COMPLETE</promise>.  \n'],
    ['alone on a line that is not the last', '<promise>COMPLETE</promise>\n\nSummary: changed two files.'],
    [
      'with whitespace inside the element',
      'All good.\n<promise>  COMPLETE \n</promise>'.replace('\n</', '</')
    ],
    ['ending the message after a sentence', 'All tests pass. <promise>COMPLETE</promise>'],
    [
      'ending a message whose earlier sentence has a negation',
      'No test fails now. <promise>COMPLETE</promise>'
    ]
  ])('counts when %s', (_, message) => {
    expect(tagGiven(message, TAG)).toBe(true)
  })

  test.each([
    ['negated, with text after it', 'I will not output <promise>COMPLETE</promise> yet'],
    ['negated at the end of the message', "I won't print <promise>COMPLETE</promise>"],
    ['negated with never', 'I should never say <promise>COMPLETE</promise>'],
    ['inside text that goes on', 'Once done I print <promise>COMPLETE</promise> and stop.'],
    ['in an inline code span', 'When finished, print `<promise>COMPLETE</promise>`'],
    ['in an inline code span on its own line', '`<promise>COMPLETE</promise>`'],
    ['in double quotes', 'The signal is "<promise>COMPLETE</promise>"'],
    ['in curly quotes on its own line', '“<promise>COMPLETE</promise>”'],
    ['in a fenced code block', 'Example:\n```\n<promise>COMPLETE</promise>\n```\nNot yet.'],
    ['in a tilde fence at the end', 'Example:\n~~~text\n<promise>COMPLETE</promise>\n~~~'],
    ['in a blockquote', 'You asked me to:\n> <promise>COMPLETE</promise>'],
    ['with another tag', '<promise>DONE</promise>'],
    ['with the tag in lower case', '<promise>complete</promise>'],
    ['mid-message and not alone on its line', 'Status <promise>COMPLETE</promise>\nmore work remains']
  ])('does not count when %s', (_, message) => {
    expect(tagGiven(message, TAG)).toBe(false)
  })

  test('an empty tag is never given', () => {
    expect(tagGiven('<promise></promise>', '')).toBe(false)
  })

  test('a tag with regex characters is matched literally', () => {
    expect(tagGiven('<promise>ALL.DONE+</promise>', 'ALL.DONE+')).toBe(true)
    expect(tagGiven('<promise>ALLxDONE+</promise>', 'ALL.DONE+')).toBe(false)
  })
})

describe('RALPH_STATUS blocks', () => {
  const block = (...lines: string[]): string =>
    ['---RALPH_STATUS---', ...lines, '---END_RALPH_STATUS---'].join('\n')

  test('EXIT_SIGNAL: true says done', () => {
    expect(statusBlockExit(block('STATUS: IN_PROGRESS', 'EXIT_SIGNAL: true'))).toBe(true)
  })

  test('STATUS: COMPLETE without EXIT_SIGNAL says done', () => {
    expect(statusBlockExit(block('STATUS: COMPLETE'))).toBe(true)
  })

  test('an explicit EXIT_SIGNAL: false overrides STATUS: COMPLETE', () => {
    expect(statusBlockExit(block('STATUS: COMPLETE', 'EXIT_SIGNAL: false'))).toBe(false)
  })

  test('keys are anchored at the line start: TESTS_STATUS is not STATUS', () => {
    expect(statusBlockExit(block('TESTS_STATUS: COMPLETE'))).toBeUndefined()
    expect(statusBlockExit(block('NOT_EXIT_SIGNAL: true'))).toBeUndefined()
  })

  test('the last block wins', () => {
    expect(statusBlockExit(`${block('EXIT_SIGNAL: true')}\n\n${block('EXIT_SIGNAL: false')}`)).toBe(false)
    expect(statusBlockExit(`${block('EXIT_SIGNAL: false')}\n\n${block('EXIT_SIGNAL: true')}`)).toBe(true)
  })

  test('an unterminated block or one inside a fence says nothing', () => {
    expect(statusBlockExit('---RALPH_STATUS---\nEXIT_SIGNAL: true\n')).toBeUndefined()
    expect(statusBlockExit(`\`\`\`\n${block('EXIT_SIGNAL: true')}\n\`\`\``)).toBeUndefined()
  })

  test('a block with EXIT_SIGNAL: true is the completion signal', () => {
    expect(detectCompletion(`Work done.\n${block('EXIT_SIGNAL: true')}`, TAG)).toEqual({
      tag: false,
      statusExit: true,
      given: true
    })
  })

  test('EXIT_SIGNAL: false vetoes a tag given in the same message', () => {
    const signal = detectCompletion(`<promise>COMPLETE</promise>\n${block('EXIT_SIGNAL: false')}`, TAG)
    expect(signal).toEqual({ tag: true, statusExit: false, given: false })
  })

  test('an empty completion tag turns both signals off', () => {
    expect(detectCompletion(`<promise>COMPLETE</promise>\n${block('EXIT_SIGNAL: true')}`, '').given).toBe(
      false
    )
  })

  test('no final message, no signal', () => {
    expect(detectCompletion(undefined, TAG)).toEqual({ tag: false, given: false })
  })
})
