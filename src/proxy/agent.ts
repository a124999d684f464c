// Putting an agent CLI behind the model proxy: the real key and upstream from the job's environment, the
// CLI pointed at the proxy with a placeholder key (src/agents/endpoints.ts knows each CLI's setting), every
// model key removed from the agent's environment, and a cost meter that counts what crossed the wire (meter.ts,
// priced by pricing.ts).
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { AGENT_WIRE, agentCliOf, codexModel, endpointSetup, type AgentCliName } from '../agents/index.js'
import type { AgentEnvOptions } from '../security/index.js'
import type { CostMeter } from '../agents/cost-meter.js'
import type { RunOptions, RunResult } from '../proc/types.js'
import { MeteredCostMeter } from './meter.js'
import { CLI_VENDOR, FailClosedPricing } from './pricing.js'
import { startModelProxy, type ModelProxy } from './server.js'
import type { ModelWire } from './wire.js'
import type { SpendingCap } from './cap.js'

/** Every variable that holds a model API key: none of them reaches an agent behind the proxy. */
export const MODEL_KEY_VARIABLES = [
  'ANTHROPIC_API_KEY',
  'ANTHROPIC_AUTH_TOKEN',
  'CLAUDE_CODE_OAUTH_TOKEN',
  'OPENAI_API_KEY',
  'CODEX_API_KEY',
  'AZURE_OPENAI_API_KEY',
  'GEMINI_API_KEY',
  'GOOGLE_API_KEY',
  'GOOGLE_GENERATIVE_AI_API_KEY',
  'GOOGLE_APPLICATION_CREDENTIALS',
  'DASHSCOPE_API_KEY',
  'OPENROUTER_API_KEY'
]

/**
 * A process runner whose programs get no model key: behind the proxy the ralph's commands and checks run
 * code the agent wrote (a test file, a package script), so they must not hold the key either. They share the
 * agent's egress rules, so they get its way out too: `proxyEnv`, the proxy variables allowed-hosts sets.
 */
export function withoutModelKeys(
  run: (options: RunOptions) => Promise<RunResult>,
  placeholderKey: string,
  proxyEnv: Record<string, string> = {}
): (options: RunOptions) => Promise<RunResult> {
  return options => {
    const env: NodeJS.ProcessEnv = { ...(options.env ?? process.env), ...proxyEnv }
    // The agent's own placeholder stays: it opens the proxy and nothing else.
    for (const name of MODEL_KEY_VARIABLES) if (env[name] !== placeholderKey) delete env[name]
    return run({ ...options, env })
  }
}

/** Where each CLI's real key is read from in the job's environment, first found wins. */
const KEY_SOURCES: Record<AgentCliName, string[]> = {
  claude: ['ANTHROPIC_API_KEY'],
  codex: ['OPENAI_API_KEY', 'CODEX_API_KEY'],
  gemini: ['GEMINI_API_KEY', 'GOOGLE_API_KEY'],
  opencode: ['OPENAI_API_KEY'],
  qwen: ['OPENAI_API_KEY', 'DASHSCOPE_API_KEY']
}

/** The vendor's own API, when neither the workflow nor the job's environment names another upstream. */
const DEFAULT_UPSTREAM: Record<AgentCliName, string> = {
  claude: 'https://api.anthropic.com',
  codex: 'https://api.openai.com',
  gemini: 'https://generativelanguage.googleapis.com',
  opencode: 'https://api.openai.com',
  qwen: 'https://dashscope.aliyuncs.com/compatible-mode'
}

export interface ModelProxySettings {
  /** The upstream's base URL (a gateway); default: the job's base-URL variable, else the vendor's API. */
  upstream?: string
  /** A PEM file of certificate authorities to trust for the upstream, besides the system's. */
  caFile?: string
  /** Hosts the agent may reach through the proxy's CONNECT. */
  allowedHosts?: string[]
  /** What the agent's user may connect to (default model-only); enforced only where iptables and isolation are. */
  network?: AgentNetwork
  /** The agent's own uid, when it runs isolated (set by the front-end): what the egress rules match. */
  agentUid?: number
  /** Started only when autoModelProxy says so (`model-proxy: auto` with no proxy setting given). */
  auto?: true
  /** How the egress rules are set: as root, or through `sudo -n` (as the isolation starts the agent). */
  agentPrivilege?: 'root' | 'sudo'
}

/** model-only: the proxy alone; allow-list: also allowed-hosts through CONNECT; open: anything. */
export type AgentNetwork = 'model-only' | 'allow-list' | 'open'
export const AGENT_NETWORKS: readonly AgentNetwork[] = ['model-only', 'allow-list', 'open']

export interface AgentBehindProxy {
  proxy: ModelProxy
  cli: AgentCliName
  wire: ModelWire
  /** The upstream requests go to. */
  upstream: string
  /** The loop's agent environment: the proxy's settings on top, every model key removed. */
  agentEnv: AgentEnvOptions
  /** HTTPS_PROXY and its kin when allowed-hosts names any (else none): the way to the allowed hosts. */
  proxyEnv: Record<string, string>
  /** The loop's cost meter: dollars as metered at the wire. */
  meter: CostMeter
  /** What the run must say about the cap so far (refused requests, unpriced models), each line once. */
  warnings(): string[]
  /** Stops the proxy and removes the files written for the agent. */
  close(): Promise<void>
}

/** The model proxy could not be set up: one line that says why and what to do. */
export class ModelProxyError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'ModelProxyError'
  }
}

/** The base URL of an OpenAI-style variable without its trailing /v1 (the CLI's paths carry it). */
const withoutV1 = (url: string): string => url.replace(/\/+$/, '').replace(/\/v1$/, '')

function upstreamOf(cli: AgentCliName, env: NodeJS.ProcessEnv, settings: ModelProxySettings): string {
  if (settings.upstream) return settings.upstream.replace(/\/+$/, '')
  // codex, opencode and qwen speak OpenAI's API: the job's OPENAI_BASE_URL (a gateway) is their upstream.
  const fromEnv =
    cli === 'claude'
      ? env.ANTHROPIC_BASE_URL
      : cli === 'gemini'
        ? env.GOOGLE_GEMINI_BASE_URL
        : env.OPENAI_BASE_URL && withoutV1(env.OPENAI_BASE_URL)
  return (fromEnv || DEFAULT_UPSTREAM[cli]).replace(/\/+$/, '')
}

/** The model a config-file CLI (codex, opencode) must be told; the others keep their own choice. */
function modelOf(cli: AgentCliName, argv: string[], env: NodeJS.ProcessEnv): string | undefined {
  if (cli === 'codex') return codexModel(argv, env)
  if (cli !== 'opencode') return undefined
  const flag = argv.findIndex(a => a === '-m' || a === '--model')
  const named = flag >= 0 ? argv[flag + 1] : argv.find(a => a.startsWith('--model='))?.slice(8)
  let model = named
  if (!model && env.OPENCODE_CONFIG && existsSync(env.OPENCODE_CONFIG)) {
    try {
      const config = JSON.parse(readFileSync(env.OPENCODE_CONFIG, 'utf8')) as { model?: unknown }
      if (typeof config.model === 'string') model = config.model
    } catch {
      // an unreadable config names no model
    }
  }
  return model?.split('/').pop()
}

/** Where `model-proxy: auto` lands for one agent: on, or off with the one line that says why (none for an agent the proxy does not know). */
export type AutoProxy = { on: true } | { on: false; why?: string }

/** The agent as the proxy sees it: its CLI, the job's key the proxy injects, the model it names; or why not. */
type ProxiedAgent =
  | { cli: AgentCliName; keyName: string; model: string | undefined }
  | { problem: 'unknown_agent' }
  | { problem: 'no_key'; cli: AgentCliName }
  | { problem: 'no_model'; cli: AgentCliName }

function proxiedAgent(argv: string[], env: NodeJS.ProcessEnv): ProxiedAgent {
  const cli = agentCliOf(argv)?.name
  if (!cli) return { problem: 'unknown_agent' }
  const keyName = KEY_SOURCES[cli].find(name => env[name])
  if (keyName === undefined) return { problem: 'no_key', cli }
  const model = modelOf(cli, argv, env)
  if (cli === 'opencode' && !model) return { problem: 'no_model', cli }
  return { cli, keyName, model }
}

/**
 * `model-proxy: auto`: on when the agent is one of the five CLIs and the job's environment holds its key (the
 * proxy has a key to inject); otherwise the agent runs as it would without the proxy, with its own credentials.
 */
export function autoModelProxy(argv: string[], env: NodeJS.ProcessEnv): AutoProxy {
  const agent = proxiedAgent(argv, env)
  if (!('problem' in agent)) return { on: true }
  if (agent.problem === 'unknown_agent') return { on: false }
  const unmetered = `${agent.cli} runs with its own credentials, not behind the model proxy: cost is what the CLI reports`
  return agent.problem === 'no_key'
    ? { on: false, why: `No ${KEY_SOURCES[agent.cli].join(' or ')} in the job's environment: ${unmetered}.` }
    : {
        on: false,
        why: `opencode's command names no model (-m <model>), which the proxy needs: ${unmetered}.`
      }
}

/** Why the agent `argv` runs cannot go behind the proxy (one line with the fix), or undefined when it can. */
export function modelProxyProblem(argv: string[], env: NodeJS.ProcessEnv): string | undefined {
  const agent = proxiedAgent(argv, env)
  return 'problem' in agent ? problemLine(agent, argv) : undefined
}

function problemLine(agent: Extract<ProxiedAgent, { problem: string }>, argv: string[]): string {
  switch (agent.problem) {
    case 'unknown_agent':
      return `The model proxy knows claude, codex, gemini, opencode and qwen; the agent \`${argv[0] ?? ''}\` is none of them: turn model-proxy off for it.`
    case 'no_key':
      return `The model proxy holds the key for ${agent.cli}, but the job's environment has no ${KEY_SOURCES[agent.cli].join(' or ')}: set it from a secret.`
    case 'no_model':
      return 'opencode behind the model proxy needs its model named: add `-m <model>` to the agent command.'
  }
}

/** The repository's budget grants `totalUsd` in all (this job's spend with what its calls may still cost), or says why not. */
async function grantFrom(cap: SpendingCap, totalUsd: number): Promise<true | { refused: string }> {
  if (await cap.cover(totalUsd)) return true
  return { refused: cap.refusal()?.line ?? "the repository's budget could not grant it" }
}

/**
 * Starts the proxy for the agent `argv` runs (one of the five CLIs) and answers how the loop runs it behind
 * it. Throws ModelProxyError when the agent is not one the proxy knows, or the job holds no key for it.
 */
export async function startAgentProxy(
  argv: string[],
  env: NodeJS.ProcessEnv,
  settings: ModelProxySettings,
  /** The cap compares the chain's total spend (what earlier jobs spent, and this meter) to max-cost. */
  budget: { maxCostUsd?: number | undefined; chainSpentUsd?: number; cap?: SpendingCap | undefined } = {}
): Promise<AgentBehindProxy> {
  const agent = proxiedAgent(argv, env)
  if ('problem' in agent) throw new ModelProxyError(problemLine(agent, argv))
  const { cli, keyName, model } = agent
  let ca: string | undefined
  if (settings.caFile) {
    try {
      ca = readFileSync(settings.caFile, 'utf8')
    } catch (error) {
      throw new ModelProxyError(
        `The model proxy's CA file ${settings.caFile} cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)}): check the path.`
      )
    }
  }
  const upstream = upstreamOf(cli, env, settings)
  const wire = AGENT_WIRE[cli]
  const meter = new MeteredCostMeter()
  const pricing = new FailClosedPricing(CLI_VENDOR[cli])
  const { maxCostUsd, chainSpentUsd = 0, cap } = budget
  const spent = (): number => chainSpentUsd + meter.spentUsd() + meter.runningUsd()
  const proxy = await startModelProxy({
    wire,
    upstream,
    apiKey: env[keyName] ?? '',
    ...(ca ? { ca } : {}),
    price: usage => pricing.price(usage),
    onRequest: request => meter.update(request),
    overBudget: () => maxCostUsd !== undefined && spent() >= maxCostUsd,
    budgetLeft: () => (maxCostUsd === undefined ? undefined : maxCostUsd - spent()),
    // The lease is this job's: it covers this job's spend (a chain reserves again in each job).
    ...(cap
      ? { grant: (needUsd: number) => grantFrom(cap, meter.spentUsd() + meter.runningUsd() + needUsd) }
      : {}),
    allowedHosts: settings.allowedHosts ?? []
  })
  // The agent's files hold only the placeholder key: readable by the agent's own user.
  const dir = mkdtempSync(path.join(os.tmpdir(), 'ralph-model-proxy-'))
  chmodSync(dir, 0o755)
  const setup = endpointSetup(cli, { url: proxy.url, apiKey: proxy.placeholderKey, model }, dir)
  for (const [file, content] of Object.entries(setup.files)) {
    mkdirSync(path.dirname(file), { recursive: true, mode: 0o755 })
    writeFileSync(file, content, { mode: 0o644 })
    // An agent of its own uid writes beside its settings (codex's sessions/, gemini's tmp/), as in /tmp:
    // sticky, so it adds its own entries and never replaces ours.
    if (settings.agentUid !== undefined) chmodSync(path.dirname(file), 0o1777)
  }
  // gemini reads its settings from $GEMINI_CLI_HOME/.gemini (else HOME's, which an isolated agent gets fresh).
  // Tools that honour the proxy variables (npm, pip, curl, git) reach the allowed hosts through CONNECT.
  const proxyEnv: Record<string, string> = {}
  if ((settings.allowedHosts ?? []).length > 0) {
    for (const name of ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy']) proxyEnv[name] = proxy.url
    proxyEnv.NO_PROXY = proxyEnv.no_proxy = '127.0.0.1,localhost'
  }
  const set: Record<string, string> = {
    ...setup.env,
    ...(cli === 'gemini' ? { GEMINI_CLI_HOME: dir } : {}),
    ...proxyEnv
  }
  return {
    proxy,
    cli,
    wire,
    upstream,
    agentEnv: { set, remove: MODEL_KEY_VARIABLES.filter(name => !(name in set)) },
    proxyEnv,
    meter,
    warnings: () => [
      ...proxy.refusedRequests
        .slice(0, REQUESTS_WARNED)
        .map((name, i) => `the model proxy refused the agent ${name}: ${proxy.refusedWhy[i] ?? ''}`),
      ...(proxy.refusedRequests.length > REQUESTS_WARNED
        ? [
            `the model proxy refused the agent more requests its meter cannot price, named in status.json (modelProxy.refusedRequests)`
          ]
        : []),
      ...pricing.warnings(),
      ...(proxy.requests.some(r => r.worstCase && r.impossibleUsage === undefined)
        ? [
            'the model proxy could not read what an answer the upstream may have billed cost (compressed, not JSON, usage missing or without its input or output count, or an answer that did not end: cut, dropped or left by the agent): it was charged its pre-authorised worst case, so the budget still holds'
          ]
        : []),
      ...(proxy.requests.some(r => r.impossibleUsage !== undefined)
        ? [
            `the model upstream reported usage that cannot be true (${proxy.requests.find(r => r.impossibleUsage)?.impossibleUsage ?? ''}): a fault of the upstream's, so the request was charged its pre-authorised worst case and the run's cost is unknown`
          ]
        : [])
    ],
    close: async () => {
      await proxy.close()
      try {
        rmSync(dir, { recursive: true, force: true })
      } catch {
        // What an agent of its own uid wrote there is not ours to remove (the job's user behind sudo).
      }
    }
  }
}

/** Refused requests named one warning each; the rest are in status.json. */
const REQUESTS_WARNED = 10

/** The proxy's settings as a user gave them (action inputs or CLI flags, same names). */
export interface GivenProxySettings {
  /** auto: on for a preset whose key the job holds (autoModelProxy), decided once the agent is known. */
  on: boolean | 'auto'
  /** Each undefined when the user did not give it. */
  upstream?: string | undefined
  caFile?: string | undefined
  allowedHosts: string[]
  network?: string | undefined
}

/** Checks what the user gave; undefined when the proxy is off. Throws ModelProxyError naming the setting. */
export function modelProxySettings(given: GivenProxySettings): ModelProxySettings | undefined {
  const { upstream, caFile, allowedHosts, network } = given
  const named = [
    upstream !== undefined && 'model-upstream',
    caFile !== undefined && 'model-ca',
    allowedHosts.length > 0 && 'allowed-hosts',
    network !== undefined && 'agent-network'
  ].find(Boolean)
  // A wrong value is named first: turning the proxy on would not mend it.
  if (upstream !== undefined && !/^https?:\/\/[^/\s]+/.test(upstream))
    throw new ModelProxyError(
      `The setting 'model-upstream' must be an http(s) URL, got ${JSON.stringify(upstream)}.`
    )
  if (network !== undefined && !(AGENT_NETWORKS as readonly string[]).includes(network))
    throw new ModelProxyError(
      `The setting 'agent-network' must be one of ${AGENT_NETWORKS.join(', ')}, got ${JSON.stringify(network)}.`
    )
  if (!given.on) {
    if (named)
      throw new ModelProxyError(`The setting '${named}' needs the model proxy: turn model-proxy on as well.`)
    return undefined
  }
  const chosen = (network ?? (allowedHosts.length > 0 ? 'allow-list' : 'model-only')) as AgentNetwork
  if (chosen !== 'allow-list' && allowedHosts.length > 0)
    throw new ModelProxyError(`The setting 'allowed-hosts' needs agent-network allow-list (it is ${chosen}).`)
  return {
    network: chosen,
    // A proxy setting given asks for the proxy: auto then means on, and fails where it cannot be.
    ...(given.on === 'auto' && !named ? { auto: true as const } : {}),
    ...(upstream !== undefined ? { upstream } : {}),
    ...(caFile !== undefined ? { caFile } : {}),
    ...(allowedHosts.length > 0 ? { allowedHosts } : {})
  }
}
