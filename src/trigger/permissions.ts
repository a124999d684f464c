// Who may start a loop: a human (GET /users/{user} says type User) with write, maintain or admin on the
// repository (GET …/collaborators/{user}/permission), or a bot the workflow names in `allowed-bots`.
// A login ending in `[bot]` earns nothing by its name: agent actions that trusted the suffix let any GitHub
// App drive their agent. Every failure to find out is a refusal (fail closed).
import type { Octokit } from '../github/client.js'

export interface ActorQuery {
  owner: string
  repo: string
  login: string
  /** Bot logins (`renovate[bot]`, or `renovate`) the workflow trusts; empty by default. */
  allowedBots?: string[] | undefined
}

export type ActorCheck =
  | {
      allowed: true
      login: string
      /** The repository role (`write`, `maintain`, `admin`, a custom role's name), or `allowed-bot`. */
      role: string
      type: 'User' | 'Bot'
    }
  /** `unknown`: the check itself failed (an API error), so no one knows; the refusal is fail-closed. */
  | { allowed: false; login: string; reason: string; unknown?: true }

// Logins are letters, digits and hyphens (at most 39); an App's bot account adds `[bot]`. Anything else is
// not a GitHub account, and must not reach a URL path unchecked.
/** A person's login (a bot's ends in [bot]). */
export const USER_LOGIN = /^[A-Za-z0-9-]{1,39}$/
const BOT_LOGIN = /^[A-Za-z0-9-]{1,39}\[bot\]$/

// Role names that are not enough, whatever the legacy field says.
const TOO_LOW = new Set(['read', 'triage', 'none'])

/** Whether `login` may start a loop on owner/repo, and why not. Two API calls; never throws. */
export async function checkActor(octokit: Octokit, query: ActorQuery): Promise<ActorCheck> {
  const { owner, repo, login } = query
  const refuse = (reason: string, unknown = false): ActorCheck => ({
    allowed: false,
    login,
    reason,
    ...(unknown ? { unknown: true as const } : {})
  })
  if (!USER_LOGIN.test(login) && !BOT_LOGIN.test(login))
    return refuse(`${describe(login)} is not a GitHub login, so its permissions cannot be checked`)

  let type: string | undefined
  try {
    const { data } = await octokit.rest.users.getByUsername({ username: login })
    type = (data as { type?: string }).type
  } catch (error) {
    return statusOf(error) === 404
      ? refuse(`${describe(login)} is not a GitHub account`)
      : refuse(couldNotCheck(login, error), true)
  }

  if (type === 'Bot') {
    if (isAllowedBot(login, query.allowedBots ?? []))
      return { allowed: true, login, role: 'allowed-bot', type }
    return refuse(
      `${describe(login)} is a bot (a GitHub App), and bots may start a loop only when the workflow names ` +
        `them in the allowed-bots input`
    )
  }
  if (type !== 'User')
    return refuse(
      type
        ? `${describe(login)} is an account of type ${describe(type)}, not a person`
        : `GitHub did not say what kind of account ${describe(login)} is, so it is not known to be a person`
    )
  // GitHub gives no User a bracket in its login: an account that claims one is not what it says.
  if (!USER_LOGIN.test(login)) return refuse(`${describe(login)} claims to be a person but has a bot's login`)

  let permission: string
  let roleName: string | undefined
  try {
    const { data } = await octokit.rest.repos.getCollaboratorPermissionLevel({ owner, repo, username: login })
    permission = data.permission
    roleName = data.role_name || undefined
  } catch (error) {
    return statusOf(error) === 404
      ? refuse(`${describe(login)} is not a collaborator on ${owner}/${repo}`)
      : refuse(couldNotCheck(login, error), true)
  }
  // The legacy field reports maintain as write and triage as read; a custom role reports its base role
  // there, so it decides for custom roles. A built-in role_name below write refuses even if the two disagree.
  const legacy = permission.toLowerCase()
  const enough = (legacy === 'admin' || legacy === 'write') && !TOO_LOW.has((roleName ?? '').toLowerCase())
  const role = roleName ?? permission
  if (!enough)
    return refuse(
      `${describe(login)} has the ${role} role on ${owner}/${repo}; starting a loop needs write, maintain or admin`
    )
  return { allowed: true, login, role, type: 'User' }
}

/** A bot is allowed when `allowed-bots` names it, with or without its `[bot]` suffix (case-insensitive). */
export function isAllowedBot(login: string, allowedBots: string[]): boolean {
  const bare = (name: string) =>
    name
      .trim()
      .toLowerCase()
      .replace(/\[bot\]$/, '')
  const wanted = bare(login)
  return wanted !== '' && allowedBots.some(name => bare(name) === wanted)
}

/**
 * Why an event's sender may not start a loop because it is a bot the workflow does not name in allowed-bots,
 * or undefined. Read from the payload (GitHub writes `sender`), for the events that start a loop with no
 * permission check (push, workflow_dispatch, schedule, …): bots never drive the action unless named.
 */
export function unnamedBotSender(
  what: string,
  sender: { login: string; type: string } | undefined,
  allowedBots: string[] = []
): string | undefined {
  if (!sender) return undefined
  const bot = sender.type.toLowerCase() === 'bot' || /\[bot\]$/i.test(sender.login)
  if (!bot || isAllowedBot(sender.login, allowedBots)) return undefined
  return `${what} was sent by ${describe(sender.login)}, a bot (a GitHub App), and bots may start a loop only when the workflow names them in the allowed-bots input`
}

/** A login for a message: in code, cut, one line (it may come from a payload we do not trust yet). */
function describe(login: string): string {
  const clean = login.replace(/[^\x20-\x7e]/g, '?').slice(0, 60)
  return `\`${clean.replace(/`/g, "'")}\``
}

function statusOf(error: unknown): number | undefined {
  const status = (error as { status?: unknown })?.status
  return typeof status === 'number' ? status : undefined
}

/** The check itself failed: said as such, with GitHub's answer, or that none came (no status is made up). */
function couldNotCheck(login: string, error: unknown): string {
  const answered = (error as { response?: unknown })?.response !== undefined
  return answered
    ? `could not check whether ${describe(login)} may start a loop: the GitHub API answered ${messageOf(error)}`
    : `could not check whether ${describe(login)} may start a loop: the GitHub API did not answer (${firstLine(rootCause(error))})`
}

const firstLine = (error: unknown): string =>
  error instanceof Error ? error.message.split('\n')[0].slice(0, 200) : String(error)

/** What failed underneath a request error (`connect ECONNREFUSED …`, `getaddrinfo ENOTFOUND …`). */
function rootCause(error: unknown): unknown {
  let cause = error
  for (let depth = 0; depth < 5 && (cause as { cause?: unknown })?.cause !== undefined; depth++)
    cause = (cause as { cause: unknown }).cause
  return cause
}

function messageOf(error: unknown): string {
  const status = statusOf(error)
  return status ? `HTTP ${status}: ${firstLine(error)}` : firstLine(error)
}
