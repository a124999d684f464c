// Scripted model servers on loopback for driving the real agent CLIs offline. See script.ts for the script model.
export { PDF_PAGE_TOKENS, startAnthropicServer, type AnthropicServerOptions } from './anthropic.js'
export { startResponsesServer, type ResponsesServerOptions } from './openai-responses.js'
export { startGeminiServer, type GeminiServerOptions } from './gemini.js'
export { startChatServer, type ChatServerOptions } from './openai-chat.js'
export type { ModelServerOptions } from './api.js'
export type { RecordedRequest, ScriptedServer, ServerOptions } from './http.js'
export * from './script.js'
