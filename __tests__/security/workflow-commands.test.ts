import { neutralizeWorkflowCommands } from '../../src/security/workflow-commands.js'

/** What the runner would act on, per its ActionCommand.TryParseV2 / TryParse, line by line. */
function runnerCommands(text: string): string[] {
  const found: string[] = []
  for (const line of text.split(/\r\n|\r|\n/)) {
    const v2 = line.replace(/^[\s\u0085]+/, '')
    if (v2.startsWith('::') && v2.indexOf('::', 2) > 2) found.push(v2)
    else if (/##\[[^\]]+\]/.test(line)) found.push(line)
  }
  return found
}

describe('neutralizeWorkflowCommands', () => {
  test.each([
    ['a command at the start of a line', '::add-mask::secret'],
    ['an indented command', '   \t::error file=a.ts::Approved by @security-team'],
    ['a command after non-breaking and ideographic spaces', '\u00a0\u3000::warning::x'],
    ['a command after U+0085', '\u0085::set-output name=a::b'],
    [
      'a command after a carriage return (the runner splits lines there)',
      'progress 50%\r::add-path::/tmp/evil'
    ],
    ['the stop-commands resume token', '::0123456789abcdef::'],
    ['a legacy command mid-line', 'see ##[set-env name=LD_PRELOAD]/tmp/x.so here'],
    ['a command on a later line', 'fine\n  ::save-state name=x::y\nfine']
  ])('defuses %s', (_name, text) => {
    expect(runnerCommands(text)).not.toHaveLength(0) // the sample really is a command
    expect(runnerCommands(neutralizeWorkflowCommands(text))).toEqual([])
  })

  test('leaves ordinary text untouched, colons and hashes included', () => {
    const text = 'a::b\nC++ std::vector\n## [heading]\nurl: http://x::1\n'
    expect(neutralizeWorkflowCommands(text)).toBe(text)
  })

  test('keeps the line breaks and the visible text', () => {
    const out = neutralizeWorkflowCommands('x\r\n  ::error::boom\n##[group]g')
    expect(out.replace(/\u200b/g, '')).toBe('x\r\n  ::error::boom\n##[group]g')
  })
})
