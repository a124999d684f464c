// The token reaches git for one command at a time, as actions/checkout sends it (a basic auth header for
// `x-access-token`), scoped to the GitHub server's origin and passed through the environment: never written
// to a config file, never in argv (world-readable in /proc), never inside a URL that could be logged.
import type { ConfigEntries } from './repo.js'

export interface GitAuth {
  token: string
  /** GITHUB_SERVER_URL, e.g. https://github.com or a GHES origin. */
  serverUrl: string
}

/** `http.<origin>/.extraheader`, the key actions/checkout uses (and persists). */
export function extraHeaderKey(serverUrl: string): string {
  return `http.${new URL(serverUrl).origin}/.extraheader`
}

export function basicAuthHeader(token: string): string {
  return `AUTHORIZATION: basic ${Buffer.from(`x-access-token:${token}`, 'utf8').toString('base64')}`
}

/**
 * Config for one authenticated command: the empty value first clears any header inherited from other config
 * (a persisted checkout credential would otherwise be sent too), and no credential helper is asked.
 */
export function authConfig(auth: GitAuth): ConfigEntries {
  const key = extraHeaderKey(auth.serverUrl)
  return [
    [key, ''],
    [key, basicAuthHeader(auth.token)],
    ['credential.helper', '']
  ]
}

/** The clone URL of `owner/repo` on the server, as actions/checkout builds it (no credentials in it). */
export function repositoryUrl(serverUrl: string, repository: string): string {
  if (!/^[\w.-]+\/[\w.-]+$/.test(repository))
    throw new Error(`'${repository}' is not a repository name of the form owner/repo`)
  return `${new URL(serverUrl).origin}/${repository}`
}
