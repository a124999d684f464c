// Text from a payload, shown in a reply or a problem: one line, cut, in a code span it cannot leave.
import { code } from '../text/markdown.js'

/** Text from a comment, shown in a reply: one line, cut, in a code span it cannot break out of. */
export const quote = (text: string, max = 60): string => code(safe(text, max))

/** Text from a comment as one line, cut to `max`. */
export function safe(text: string, max = 60): string {
  const line = text.replace(/\s+/g, ' ')
  return line.length > max ? `${line.slice(0, max - 3)}...` : line
}
