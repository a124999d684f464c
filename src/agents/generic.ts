// Any program that reads the prompt on stdin. Its output is plain text; the final message is its end.
import type { AgentOutcome, AgentPreset } from './types.js'

/** Characters of the prompt's end looked for in the output to recognise an echo of the prompt. */
const ECHO_PROBE_CHARS = 200

/**
 * The final message of a plain-text agent, precisely:
 * 1. stdout only (stderr is logs and tool noise), with CRLF/CR read as LF;
 * 2. when the output contains the end of the prompt (the last 200 characters of the trimmed prompt),
 *    only what follows its last occurrence counts: an agent that echoes the prompt (`cat`, a CLI that
 *    prints the user turn) never answers with the prompt's own words;
 * 3. of that, the last paragraph: the lines after the last blank line, trailing blank lines ignored;
 *    when that paragraph closes a `---RALPH_STATUS---` block that began earlier, the whole block.
 * Undefined when nothing is left.
 */
export function finalMessageFromOutput(stdout: string, prompt: string): string | undefined {
  let text = stdout.replace(/\r\n?/g, '\n')
  const probe = prompt.replace(/\r\n?/g, '\n').trimEnd().slice(-ECHO_PROBE_CHARS)
  if (probe.trim() !== '') {
    const echoed = text.lastIndexOf(probe)
    if (echoed !== -1) text = text.slice(echoed + probe.length)
  }
  text = text.trimEnd()
  if (text.trim() === '') return undefined
  const lines = text.split('\n')
  let start = lines.length - 1
  while (start > 0 && lines[start - 1].trim() !== '') start--
  const paragraph = lines.slice(start)
  const closesBlock = paragraph.some(line => line.trim() === '---END_RALPH_STATUS---')
  const opensBlock = paragraph.some(line => line.trim() === '---RALPH_STATUS---')
  if (closesBlock && !opensBlock) {
    for (let i = start - 1; i >= 0; i--) {
      if (lines[i].trim() === '---RALPH_STATUS---') {
        start = i
        break
      }
    }
  }
  return lines.slice(start).join('\n')
}

export const genericPreset: AgentPreset = {
  name: 'generic',
  jsonStream: false,
  argv: userArgv => [...userArgv],
  read(prompt) {
    return {
      stdout: () => undefined,
      stderr: () => undefined,
      finish: (stdoutText): AgentOutcome => ({
        finalMessage: finalMessageFromOutput(stdoutText, prompt),
        notes: []
      })
    }
  }
}
