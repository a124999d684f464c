// How to point each agent CLI at a model server of your choosing (a local fake, a proxy, a gateway) and at
// nothing else: the variables to set and the files to write under its HOME. The one place that knows each
// CLI's base-URL setting; the live tier (__tests__/agents-live) proves every recipe against the real CLIs.
import path from 'node:path'
import type { AgentCliName } from './clis.js'
import { lookupPrice } from './prices.js'

/** The wire protocol each CLI speaks to its model. */
export const AGENT_WIRE: Record<
  AgentCliName,
  'anthropic-messages' | 'openai-responses' | 'gemini' | 'openai-chat'
> = {
  claude: 'anthropic-messages',
  codex: 'openai-responses',
  gemini: 'gemini',
  // opencode speaks many; ralph-action points it at an OpenAI-compatible endpoint.
  opencode: 'openai-chat',
  qwen: 'openai-chat'
}

export interface ModelEndpoint {
  /** The server's base URL, without a trailing slash or /v1 (e.g. http://127.0.0.1:41000). */
  url: string
  apiKey: string
  /** The model id the CLI asks for; undefined = the CLI's own choice (claude, codex, gemini, qwen). */
  model?: string | undefined
  /** Retries of a failed model request, for the CLIs that have the setting (claude, codex). */
  maxRetries?: number
}

export interface EndpointSetup {
  /** Variables for the CLI's environment. */
  env: Record<string, string>
  /** Files to write, by absolute path, with their content. */
  files: Record<string, string>
  /** Flags to add to the CLI's command line (opencode's --pure: no plugins fetched from npm at run time). */
  args: string[]
}

/** Settings gemini and qwen share (qwen-code is a fork of gemini-cli): no telemetry, no update checks. */
function quietSettings(selectedType: string): Record<string, unknown> {
  return {
    security: { auth: { selectedType }, folderTrust: { enabled: false } },
    privacy: { usageStatisticsEnabled: false },
    telemetry: { enabled: false },
    general: { disableAutoUpdate: true, disableUpdateNag: true }
  }
}

const json = (value: unknown): string => `${JSON.stringify(value, null, 2)}\n`

/** Per million tokens for opencode's model entry: its own dollar figure is then the price table's. */
function opencodeCost(model: string): Record<string, number> | undefined {
  const price = lookupPrice(model)
  return price
    ? {
        input: price.input,
        output: price.output,
        cache_read: price.cache_read,
        cache_write: price.cache_write
      }
    : undefined
}

/**
 * What pointing `cli` at `endpoint` takes, for a CLI whose HOME is `home`. Everything else the CLI would
 * reach at start-up (update checks, telemetry, model catalogues, plugins) is turned off.
 */
export function endpointSetup(cli: AgentCliName, endpoint: ModelEndpoint, home: string): EndpointSetup {
  const { url, apiKey, model, maxRetries } = endpoint
  switch (cli) {
    case 'claude':
      return {
        env: {
          ANTHROPIC_BASE_URL: url,
          ANTHROPIC_API_KEY: apiKey,
          ...(model ? { ANTHROPIC_MODEL: model } : {}),
          // Without it claude also calls its vendor's host for non-essential traffic.
          CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
          DISABLE_AUTOUPDATER: '1',
          DISABLE_TELEMETRY: '1',
          DISABLE_ERROR_REPORTING: '1',
          ...(maxRetries !== undefined ? { CLAUDE_CODE_MAX_RETRIES: String(maxRetries) } : {})
        },
        files: {},
        args: []
      }
    case 'codex': {
      // codex ignores OPENAI_BASE_URL: a custom provider in $CODEX_HOME/config.toml names the server.
      const codexHome = path.join(home, '.codex')
      const retries =
        maxRetries === undefined
          ? []
          : [`request_max_retries = ${maxRetries}`, `stream_max_retries = ${maxRetries}`]
      const config = [
        '# Written by ralph-action: codex against one model server, nothing else.',
        ...(model ? [`model = ${JSON.stringify(model)}`] : []),
        'model_provider = "ralph-endpoint"',
        'check_for_update_on_startup = false',
        '',
        '[analytics]',
        'enabled = false',
        '',
        '[feedback]',
        'enabled = false',
        '',
        '[model_providers.ralph-endpoint]',
        'name = "ralph-action model endpoint"',
        `base_url = ${JSON.stringify(`${url}/v1`)}`,
        'env_key = "OPENAI_API_KEY"',
        'wire_api = "responses"',
        ...retries,
        ''
      ].join('\n')
      return {
        env: { CODEX_HOME: codexHome, OPENAI_API_KEY: apiKey },
        files: { [path.join(codexHome, 'config.toml')]: config },
        args: []
      }
    }
    case 'gemini':
      // The variables alone fail with exit 41: the settings must select API-key authentication.
      return {
        env: {
          GEMINI_API_KEY: apiKey,
          GOOGLE_GEMINI_BASE_URL: url,
          ...(model ? { GEMINI_MODEL: model } : {})
        },
        files: { [path.join(home, '.gemini', 'settings.json')]: json(quietSettings('gemini-api-key')) },
        args: []
      }
    case 'qwen':
      return {
        env: {
          OPENAI_API_KEY: apiKey,
          OPENAI_BASE_URL: `${url}/v1`,
          ...(model ? { OPENAI_MODEL: model } : {}),
          QWEN_CODE_SUPPRESS_YOLO_WARNING: '1'
        },
        files: { [path.join(home, '.qwen', 'settings.json')]: json(quietSettings('openai')) },
        args: []
      }
    case 'opencode': {
      // opencode picks a provider's model by name: without one it would not use this endpoint at all.
      if (!model) throw new Error('opencode needs a model to be pointed at a model endpoint')
      const cost = opencodeCost(model)
      const config = {
        $schema: 'https://opencode.ai/config.json',
        model: `ralph/${model}`,
        small_model: `ralph/${model}`,
        autoupdate: false,
        share: 'disabled',
        // `opencode run` rejects what would ask: edits and commands are the agent's job; the web is not.
        permission: { edit: 'allow', bash: 'allow', webfetch: 'deny' },
        provider: {
          ralph: {
            npm: '@ai-sdk/openai-compatible',
            name: 'ralph-action model endpoint',
            options: { baseURL: `${url}/v1`, apiKey, includeUsage: true },
            models: {
              [model]: {
                tool_call: true,
                ...(cost ? { cost } : {}),
                limit: { context: 200000, output: 8192 }
              }
            }
          }
        }
      }
      const file = path.join(home, '.config', 'opencode', 'ralph-endpoint.json')
      return {
        env: {
          OPENCODE_CONFIG: file,
          OPENCODE_DISABLE_MODELS_FETCH: '1',
          OPENCODE_DISABLE_AUTOUPDATE: '1',
          OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
          OPENCODE_DISABLE_SHARE: '1',
          OPENCODE_DISABLE_DEFAULT_PLUGINS: '1'
        },
        files: { [file]: json(config) },
        args: ['--pure']
      }
    }
  }
}
