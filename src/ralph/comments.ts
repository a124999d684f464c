// HTML comments in the body are notes for humans: the reference removes them before substitution, but keeps
// the ones inside ``` or ~~~ fences. Its fence detection is a regex, not CommonMark, and we copy the regex:
// an opening fence may start anywhere (even mid-line); the closing one must start a line (after spaces or
// tabs) and be at least as long as the opening one.

const FENCE_OR_COMMENT = /((`{3,}).*?\n[ \t]*\2`*|(~{3,}).*?\n[ \t]*\3~*)|<!--.*?-->/gs

/** Removes `<!-- … -->` outside fenced blocks, exactly (no whitespace around it is touched). */
export function stripHtmlComments(body: string): string {
  return body.replace(FENCE_OR_COMMENT, (_match: string, fence: string | undefined) => fence ?? '')
}
