// One GitHub stand-in per test for the clients of src/github, reached through the one Octokit factory with
// waits shrunk: each test starts with a fresh acme/widgets and ends having sent nothing GitHub would refuse.
import { afterEach, beforeEach, expect } from '@jest/globals'
import { githubClient, type Octokit } from '../../src/github/client.js'
import { retryTiming } from '../../src/github/retry.js'
import { startGitHubApi, type GitHubApi } from '../support/github-api/index.js'

export const TOKEN = 'ghs_actions_token'

/** Registers the stand-in's life around each test; read `api` and `octokit` inside a test. */
export function useStandIn(): { readonly api: GitHubApi; readonly octokit: Octokit } {
  const timing = retryTiming({ RALPH_ACTION_TEST_WAIT_SCALE: '0.001', RALPH_ACTION_TEST_TIMEOUT_MS: '2000' })
  const held: { api?: GitHubApi; octokit?: Octokit } = {}
  beforeEach(async () => {
    held.api = await startGitHubApi({ owner: 'acme', repo: 'widgets' })
    held.api.state.addUser('alice', { role: 'write' })
    held.octokit = await githubClient(TOKEN, { baseUrl: held.api.url, timing })
  })
  afterEach(async () => {
    const api = held.api as GitHubApi
    await api.close()
    expect(api.violations).toEqual([])
    expect(api.unimplemented).toEqual([])
    expect(api.responseProblems).toEqual([])
  })
  return {
    get api() {
      return held.api as GitHubApi
    },
    get octokit() {
      return held.octokit as Octokit
    }
  }
}
