// Did the agent say it is done? Read from its final message only, with a rule strict enough that a
// quoted, negated or echoed mention of the tag never ends a loop.
//
// THE TAG RULE. An occurrence of `<promise>TAG</promise>` (whitespace allowed around TAG, TAG compared
// exactly) counts only when all of these hold:
//   1. it is outside fenced code blocks (``` or ~~~) and not on a blockquote line (`> …`);
//   2. it is not inside an inline code span (an odd number of backticks before it on its line) and not
//      wrapped in quotes (a quote character right before or right after it: " ' “ ” ‘ ’ « »);
//   3. and either
//      a. it stands alone on its line (only whitespace around it, optionally a final `.` or `!`), or
//      b. it ends the message (nothing but whitespace, `.` or `!` after it) and the sentence it ends (the
//         text before it on its line, after the last `.`, `!`, `?` or `;` followed by a space) holds no
//         negation word (not, no, never, without, until, unless, cannot, nor, …n't).
// So "No test fails now. <promise>COMPLETE</promise>" counts, while "I will not output
// <promise>COMPLETE</promise> yet" and "I won't print <promise>COMPLETE</promise>" do not.
//
// THE STATUS BLOCK RULE (ported ralphs). A block from a line `---RALPH_STATUS---` to a line
// `---END_RALPH_STATUS---` (outside fences); the last complete block wins. Its keys are anchored at the
// start of a line (so `TESTS_STATUS:` is not `STATUS:`). `EXIT_SIGNAL: true` says done; `EXIT_SIGNAL:
// false` says not done and overrides everything else, `STATUS: COMPLETE` and the tag included; without
// EXIT_SIGNAL, `STATUS: COMPLETE` says done and any other STATUS says nothing.

export interface CompletionSignal {
  /** The tag was given under the tag rule. */
  tag: boolean
  /** The last status block's verdict: true = exit, false = not done; undefined = no block. */
  statusExit?: boolean
  /** The agent said it is done: the tag or a status block, and no explicit `EXIT_SIGNAL: false`. */
  given: boolean
}

const NEGATION = /\b(?:not|no|never|without|until|unless|cannot|nor|dont|wont|cant)\b|n['’]t\b/i
const QUOTES_BEFORE = new Set(['"', "'", '“', '”', '‘', '’', '«', '»', '`'])
const ENDING = /^[\s.!]*$/

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

interface Line {
  text: string
  /** True for lines that are prose: outside fences and not the fence lines themselves. */
  prose: boolean
}

/** Splits a message into lines, marking those inside fenced code blocks (fence lines included). */
function linesOf(message: string): Line[] {
  const lines: Line[] = []
  let fence: { char: string; length: number } | undefined
  for (const text of message.replace(/\r\n?/g, '\n').split('\n')) {
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(text)
    if (fence) {
      if (
        marker &&
        marker[1][0] === fence.char &&
        marker[1].length >= fence.length &&
        /^\s*[`~]+\s*$/.test(text)
      )
        fence = undefined
      lines.push({ text, prose: false })
    } else if (marker) {
      fence = { char: marker[1][0], length: marker[1].length }
      lines.push({ text, prose: false })
    } else {
      lines.push({ text, prose: !/^\s*>/.test(text) })
    }
  }
  return lines
}

/** The sentence the tag ends: the text after the last `.`, `!`, `?` or `;` that is followed by a space. */
function sentenceBefore(textBefore: string): string {
  const parts = textBefore.split(/[.!?;]\s/)
  return parts[parts.length - 1]
}

/** True when `<promise>tag</promise>` is given in `message` under the tag rule above. */
export function tagGiven(message: string, tag: string): boolean {
  if (!tag) return false
  const pattern = new RegExp(`<promise>\\s*${escapeRegExp(tag)}\\s*</promise>`, 'g')
  const lines = linesOf(message)
  let last = lines.length - 1
  while (last >= 0 && lines[last].text.trim() === '') last--
  for (let i = 0; i <= last; i++) {
    const { text, prose } = lines[i]
    if (!prose) continue
    for (const match of text.matchAll(pattern)) {
      const before = text.slice(0, match.index)
      const after = text.slice(match.index + match[0].length)
      if ((before.match(/`/g) ?? []).length % 2 === 1) continue
      if (QUOTES_BEFORE.has(before.at(-1) ?? '') || QUOTES_BEFORE.has(after[0] ?? '')) continue
      if (!ENDING.test(after)) continue
      if (before.trim() === '') return true
      if (i === last && !NEGATION.test(sentenceBefore(before))) return true
    }
  }
  return false
}

/** The verdict of the last complete `---RALPH_STATUS---` block, or undefined when there is none. */
export function statusBlockExit(message: string): boolean | undefined {
  const lines = linesOf(message)
  let block: string[] | undefined
  let lastBlock: string[] | undefined
  for (const { text, prose } of lines) {
    if (!prose) continue
    const trimmed = text.trim()
    if (trimmed === '---RALPH_STATUS---') block = []
    else if (trimmed === '---END_RALPH_STATUS---') {
      if (block) lastBlock = block
      block = undefined
    } else block?.push(text)
  }
  if (!lastBlock) return undefined
  let exitSignal: boolean | undefined
  let status: string | undefined
  for (const line of lastBlock) {
    const exit = /^\s*EXIT_SIGNAL\s*:\s*["']?(\w+)["']?\s*$/i.exec(line)
    if (exit) exitSignal = exit[1].toLowerCase() === 'true'
    const state = /^\s*STATUS\s*:\s*["']?(\w+)["']?\s*$/i.exec(line)
    if (state) status = state[1].toUpperCase()
  }
  if (exitSignal !== undefined) return exitSignal
  return status === 'COMPLETE' ? true : undefined
}

/** Reads the completion signal from the agent's final message; an empty `tag` turns both signals off. */
export function detectCompletion(finalMessage: string | undefined, tag: string): CompletionSignal {
  if (!tag || finalMessage === undefined) return { tag: false, given: false }
  const tagSaid = tagGiven(finalMessage, tag)
  const statusExit = statusBlockExit(finalMessage)
  const given = statusExit === false ? false : tagSaid || statusExit === true
  return statusExit === undefined ? { tag: tagSaid, given } : { tag: tagSaid, statusExit, given }
}
