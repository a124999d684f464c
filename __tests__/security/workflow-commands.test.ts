import { WorkflowCommandFilter, neutralizeWorkflowCommands } from '../../src/security/workflow-commands.js'

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

/** The text as the filter lets it out when fed `chunks` one after the other, then flushed. */
function streamed(chunks: string[]): string {
  const filter = new WorkflowCommandFilter()
  return chunks.map(chunk => filter.push(chunk)).join('') + filter.flush()
}

describe('WorkflowCommandFilter: the same, over a stream of chunks', () => {
  const log =
    'building\n  ::error file=a.ts::split\r::add-mask::x\nsee ##[set-env name=A]b here\n::warning::last'

  test('a command split across two chunks, at any place, is caught', () => {
    expect(runnerCommands(log)).toHaveLength(4)
    for (let at = 0; at <= log.length; at++) {
      const out = streamed([log.slice(0, at), log.slice(at)])
      expect(runnerCommands(out)).toEqual([])
      expect(out.replace(/\u200b/g, '')).toBe(log)
    }
  })

  test('one character at a time', () => {
    const out = streamed([...log])
    expect(runnerCommands(out)).toEqual([])
    expect(out).toBe(neutralizeWorkflowCommands(log))
  })

  test('complete lines go out at once; the start of a line waits for its end or a flush', () => {
    const filter = new WorkflowCommandFilter()
    expect(filter.push('one\ntw')).toBe('one\n')
    expect(filter.push('o\n')).toBe('two\n')
    expect(filter.push('::err')).toBe('')
    expect(runnerCommands(filter.flush() + 'or::x')).toEqual([])
  })

  test('a line that never ends is let out past 64 KiB, and a command after it is still caught', () => {
    const spaces = ' '.repeat(70 * 1024)
    const words = 'w'.repeat(70 * 1024)
    for (const line of [spaces, words]) {
      const filter = new WorkflowCommandFilter()
      const first = filter.push(line)
      expect(first.length).toBeGreaterThan(60 * 1024)
      const out =
        first + filter.push('::error::after a long line\n##') + filter.push('[group]g\n') + filter.flush()
      expect(runnerCommands(out)).toEqual([])
      expect(out.replace(/\u200b/g, '')).toBe(`${line}::error::after a long line\n##[group]g\n`)
    }
  })
})
