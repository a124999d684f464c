// Held-out gates from a ref (#37, `holdout-ref`): the agent's user holds no token (isolation) and reaches only the
// model proxy, so a ref of a private repository is out of its reach; it is fetched by the action's user only at
// the clean verification, after the checkout is given back. Refused at the start where the agent could read it
// anyway: the workspace's own repository holds it, or the repository is public and the agent's network reaches
// GitHub. The same ref is checked to exist then, before any agent spends.
import { fetchTree, GitRepo, type GitAuth } from '../git/index.js'
import { authConfig, repositoryUrl } from '../git/auth.js'
import type { VerifyPorts } from '../loop/index.js'
import { jobKind } from './jobs/kind.js'
import type { RunPlan } from './plan.js'

function source(plan: RunPlan): { auth: GitAuth; repository: string } {
  const { owner, repo } = plan.context.repo
  return {
    auth: { token: plan.inputs.githubToken, serverUrl: plan.context.serverUrl },
    repository: `${owner}/${repo}`
  }
}

/** The verification's port that fetches the held-out ref (none when the held-out gates have no ref here). */
export function holdoutFetcher(plan: RunPlan): Pick<VerifyPorts, 'fetchHoldout'> {
  if (plan.config.holdout?.ref === undefined) return {}
  return { fetchHoldout: (ref, into) => fetchTree({ ...source(plan), ref }, into) }
}

/** A host's last two labels: github.com for api.github.com and codeload.github.com alike. */
const site = (host: string): string => host.toLowerCase().split('.').slice(-2).join('.')

/**
 * Whether the agent's network reaches the repository's server: no proxy (nothing limits it), `open`, or an
 * allowed host of the server's site or GitHub's raw-content site (which serves any ref of a public repository).
 */
function agentReachesGitHub(plan: RunPlan): boolean {
  const proxy = plan.config.modelProxy
  if (!proxy || proxy.network === 'open') return true
  const server = site(new URL(plan.context.serverUrl).hostname)
  return (proxy.allowedHosts ?? []).some(allowed => [server, 'githubusercontent.com'].includes(site(allowed)))
}

/**
 * Why this job may not take its held-out gates from `holdout-ref` (one line), or undefined; `workTree` is the
 * workspace's repository, read by the action's hermetic git (nothing of the tree runs).
 */
export async function holdoutRefRefusal(plan: RunPlan, workTree: string): Promise<string | undefined> {
  // The input, not the setting: the agent job of two never holds the gates, but its agent must not reach the ref.
  const ref = plan.inputs.holdout?.ref
  if (ref === undefined) return undefined
  const runsAgent = jobKind(plan.inputs).runsAgent
  const repository = plan.context.payload.repository as { private?: unknown } | undefined
  if (runsAgent && repository?.private === false && agentReachesGitHub(plan))
    return `holdout-ref ${ref}: this repository is public and the agent's network reaches GitHub (no model proxy, agent-network open, or a GitHub host in allowed-hosts), so the agent could fetch the held-out ref itself. Use agent-network model-only, or holdout-path filled from a private source.`
  const repo = new GitRepo(workTree)
  const held = await repo.exec(['for-each-ref', '--format=%(refname)', ref], { probe: true })
  if (runsAgent && held.stdout.trim() !== '')
    return `holdout-ref ${ref} is in the workspace's repository, where the agent can read it: fetch only the branches the loop needs (actions/checkout does by default) and delete it there (git update-ref -d ${ref}).`
  const { auth, repository: name } = source(plan)
  const listed = await repo.exec(
    ['ls-remote', '--end-of-options', repositoryUrl(auth.serverUrl, name), ref],
    { probe: true, config: authConfig(auth) }
  )
  const line = listed.stdout.split('\n').find(l => l.endsWith(`\t${ref}`))
  if (listed.exitCode !== 0 || line === undefined)
    return `holdout-ref ${ref} is not on ${name}${listed.exitCode !== 0 ? ` (git ls-remote exited ${listed.exitCode})` : ''}: push the held-out tests there first, e.g. git push origin HEAD:${ref} from a private clone.`
  // Its commit fetched into the workspace before (then the ref deleted) is readable there all the same.
  const sha = line.split('\t')[0]
  const present = await repo.exec(['cat-file', '-e', `${sha}^{commit}`], { probe: true })
  if (runsAgent && present.exitCode === 0)
    return `holdout-ref ${ref}: its commit ${sha.slice(0, 12)} is in the workspace's repository, where the agent can read it: check out without it (a fresh actions/checkout does not fetch refs/ralph/*).`
  return undefined
}
