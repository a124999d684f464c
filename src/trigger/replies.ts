// What the action says on an issue when it will not run: a refusal with its reason, the usage, and the
// reply when a loop could not start. Text from the payload is shown only in code spans it cannot leave.
import { INSTALLED_RALPHS_DIR } from '../ralph/index.js'
import { COMMAND_USAGE } from './grammar.js'
import { USER_LOGIN } from './permissions.js'
import { quote } from './quote.js'

/** A marker in every refusal reply, so the action's own replies can be told apart. */
export const REFUSAL_MARKER = '<!-- ralph-action:refusal -->'

/** `@login` for a person's login; undefined for anything else (a bot's, or text from a payload). */
const mention = (login: string): string | undefined => (USER_LOGIN.test(login) ? `@${login}` : undefined)

export function refusalReply(to: string, reason: string, extra: string): string {
  const who = mention(to) ?? quote(to)
  return [REFUSAL_MARKER, `${who}, no ralph loop was started: ${reason}.`, extra].filter(Boolean).join('\n\n')
}

/**
 * The reply when a request passed every check but the loop could not start: the workflow's or the ralph's
 * problem (one line, as the step's failure says it), not the requester's.
 */
export function startFailureReply(to: string | undefined, problem: string, runUrl: string): string {
  const at = to !== undefined ? mention(to) : undefined
  const who = at ? `${at}, ` : ''
  return [
    REFUSAL_MARKER,
    `${who}the ralph loop could not start: ${quote(problem, 300)}`,
    `This is a problem in the workflow or the ralph, not in your request: [the run](${runUrl}) says more.`
  ].join('\n\n')
}

export function usage(available: string[]): string {
  const list = available.length
    ? `Available ralphs: ${available.map(name => quote(name)).join(', ')}.`
    : `No ralphs are installed in \`${INSTALLED_RALPHS_DIR}/\`.`
  return `Usage, on the first line of a new comment: \`${COMMAND_USAGE}\`\n\n${list}`
}
