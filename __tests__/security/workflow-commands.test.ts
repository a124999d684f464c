import { Writable } from 'node:stream'
import {
  WorkflowCommandFilter,
  guardJobLog,
  neutralizeTerminalControls,
  neutralizeWorkflowCommands
} from '../../src/security/workflow-commands.js'

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

/** Every control character (Unicode's Cc) but tab and the line breaks: what may start or end a sequence. */
const CONTROLS = /(?![\t\n\r])\p{Cc}/u

describe('terminal controls: shown, never acted on', () => {
  const painted = '\u001b[32m✓ gate passed\u001b[0m'
  const links = [
    '\u001b]8;;https://evil.example/\u001b\\the gate log\u001b]8;;\u001b\\',
    '\u001b]8;;https://evil.example/\u0007the gate log\u001b]8;;\u0007',
    '\u009d8;;https://evil.example/\u009cthe gate log\u009d8;;\u009c'
  ]

  test('a green “✓ gate passed”, an OSC 8 link (ESC, BEL and 8-bit forms), a title and a cursor move lose every control', () => {
    for (const text of [painted, ...links, '\u001b]0;title\u0007', '\u009b2J\u001b[1A\u001bc']) {
      expect(text).toMatch(CONTROLS)
      const out = neutralizeWorkflowCommands(text)
      expect(out).not.toMatch(CONTROLS)
      expect(neutralizeTerminalControls(text)).toBe(out)
    }
    expect(neutralizeWorkflowCommands(painted)).toBe('␛[32m✓ gate passed␛[0m')
    expect(neutralizeWorkflowCommands(links[1])).toBe('␛]8;;https://evil.example/␇the gate log␛]8;;␇')
  })

  test('every control character is replaced, one for one; tab, \\n and \\r and the rest of Unicode stay as they are', () => {
    const wrong: number[] = []
    let replaced = 0
    for (let code = 0; code < 0x110000; code++) {
      if (code >= 0xd800 && code < 0xe000) continue
      const c = String.fromCodePoint(code)
      const out = neutralizeTerminalControls(`a${c}b`)
      if (!CONTROLS.test(c)) {
        if (out !== `a${c}b`) wrong.push(code)
      } else if (out.length !== 3 || CONTROLS.test(out)) wrong.push(code)
      else replaced++
    }
    expect(wrong).toEqual([])
    expect(replaced).toBe(65 - 3)
  })

  test('a command hidden behind a control is still no command: U+0085, a vertical tab, a form feed', () => {
    for (const text of [
      '\u0085::add-mask::x',
      '\u000b::error::x',
      '\u000c##[group]x',
      'ok\u001b::warning::x'
    ])
      expect(runnerCommands(neutralizeWorkflowCommands(text))).toEqual([])
  })

  test('over a stream of chunks, an escape sequence split at any place loses its controls', () => {
    const log = `building\n${painted}\n${links[0]} and more\n`
    for (let at = 0; at <= log.length; at++) {
      const out = streamed([log.slice(0, at), log.slice(at)])
      expect(out).not.toMatch(CONTROLS)
      expect(out).toBe(neutralizeWorkflowCommands(log))
    }
  })
})

describe('guardJobLog: every write to the log, whoever makes it', () => {
  function guarded(): { stream: NodeJS.WriteStream; written: () => string } {
    const chunks: Buffer[] = []
    const sink = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        chunks.push(chunk)
        callback()
      }
    })
    const stream = sink as unknown as NodeJS.WriteStream
    guardJobLog(stream)
    return { stream, written: () => Buffer.concat(chunks).toString('utf8') }
  }

  test('strings, buffers and other encodings are written with their controls shown; callbacks still run', async () => {
    const { stream, written } = guarded()
    stream.write('::warning::\u001b[32m✓ gate passed\u001b[0m\n')
    stream.write(Buffer.from('\u001b]8;;https://evil.example/\u0007link\n'))
    stream.write(Buffer.from('\u009b31m red\n').toString('hex'), 'hex')
    await new Promise<void>(resolve => stream.write('done\n', () => resolve()))
    expect(written()).toBe(
      '::warning::␛[32m✓ gate passed␛[0m\n␛]8;;https://evil.example/␇link\n\ufffd31m red\ndone\n'
    )
  })
})
