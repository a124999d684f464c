// The model proxy's cost: the latency it adds to a model request (p50/p99 over many small streamed
// requests, proxied next to direct, to the same local upstream), and its memory while 100 MB stream through.
// The proxy's sources (every file of src/proxy, so that a split of one still loads) are transpiled with TypeScript
// into a temp folder: the bundles do not export the module on its own.
import { spawn } from 'node:child_process'
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import http from 'node:http'
import path from 'node:path'
import { performance } from 'node:perf_hooks'
import ts from 'typescript'
import { ROOT, tempDir } from './lib.mjs'

export const title = 'Model proxy: added latency and memory'

const REQUESTS = 1000
const STREAM_BYTES = 100 * 1024 * 1024
const EVENT = `event: content_block_delta\ndata: ${JSON.stringify({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'x'.repeat(4000) } })}\n\n`

function transpileProxy() {
  const dir = tempDir('proxy-bench')
  const names = readdirSync(path.join(ROOT, 'src', 'proxy')).filter(file => file.endsWith('.ts'))
  for (const name of names.map(file => file.slice(0, -'.ts'.length))) {
    const source = readFileSync(path.join(ROOT, 'src', 'proxy', `${name}.ts`), 'utf8')
    const { outputText } = ts.transpileModule(source, {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 }
    })
    writeFileSync(path.join(dir, `${name}.js`), outputText)
  }
  mkdirSync(dir, { recursive: true })
  writeFileSync(path.join(dir, 'package.json'), '{"type":"module"}\n')
  return path.join(dir, 'server.js')
}

/** A model API stand-in: a short Anthropic-shaped stream, or STREAM_BYTES of deltas for ?big=1. */
function startUpstream() {
  const server = http.createServer((request, response) => {
    request.resume()
    request.on('end', () => {
      response.writeHead(200, { 'content-type': 'text/event-stream' })
      const start = {
        type: 'message_start',
        message: { model: 'claude-sonnet-4-5', usage: { input_tokens: 10, output_tokens: 1 } }
      }
      response.write(`event: message_start\ndata: ${JSON.stringify(start)}\n\n`)
      if (request.url !== '/v1/messages?big=1') {
        response.end(
          `event: message_delta\ndata: {"type":"message_delta","usage":{"output_tokens":5}}\n\nevent: message_stop\ndata: {"type":"message_stop"}\n\n`
        )
        return
      }
      let sent = 0
      const more = () => {
        while (sent < STREAM_BYTES) {
          sent += EVENT.length
          if (!response.write(EVENT)) return void response.once('drain', more)
        }
        response.end(`event: message_stop\ndata: {"type":"message_stop"}\n\n`)
      }
      more()
    })
  })
  return new Promise(resolve => server.listen(0, '127.0.0.1', () => resolve(server)))
}

function ask(base, key, pathname, agent) {
  return new Promise((resolve, reject) => {
    const started = performance.now()
    let bytes = 0
    const request = http.request(
      `${base}${pathname}`,
      { method: 'POST', agent, headers: { 'x-api-key': key, 'content-type': 'application/json' } },
      response => {
        response.on('data', chunk => (bytes += chunk.length))
        response.on('end', () => resolve({ ms: performance.now() - started, bytes }))
        response.on('error', reject)
      }
    )
    request.on('error', reject)
    request.end('{"model":"claude-sonnet-4-5","stream":true}')
  })
}

/** The time the proxy takes to pre-authorise a claude-like 1 MB body (what it reads before a call goes up). */
async function preauthorising(dir) {
  const { preauthorize } = await import(path.join(dir, 'preauth.js'))
  const turns = 400
  const messages = []
  for (let i = 0; i < turns; i++) {
    const command = 'ls -la '.repeat(20)
    messages.push({
      role: 'assistant',
      content: [
        { type: 'text', text: 'x'.repeat(200) },
        { type: 'tool_use', id: `t${i}`, name: 'Bash', input: { command } }
      ]
    })
    const result = [{ type: 'text', text: 'y'.repeat(2000) }]
    messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: `t${i}`, content: result }] })
  }
  const system = [{ type: 'text', text: 'sys', cache_control: { type: 'ephemeral', ttl: '1h' } }]
  const text = JSON.stringify({ model: 'claude-sonnet-4-5', max_tokens: 32000, system, messages })
  const parsing = performance.now()
  const json = JSON.parse(text)
  const parseMs = performance.now() - parsing
  const price = usage => (usage.input * 3 + usage.output * 15) / 1e6
  const runs = 20
  for (let i = 0; i < runs; i++) preauthorize('anthropic-messages', json, text.length, undefined, price)
  const started = performance.now()
  for (let i = 0; i < runs; i++) preauthorize('anthropic-messages', json, text.length, undefined, price)
  return { ms: (performance.now() - started) / runs, parseMs, bytes: text.length, turns, runs }
}

const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]
}

function rssOf(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const kb = name => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0)
  return { rss: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 }
}

export async function run() {
  const module = transpileProxy()
  const upstream = await startUpstream()
  const upstreamUrl = `http://127.0.0.1:${upstream.address().port}`
  const child = spawn(process.execPath, [path.join(ROOT, 'bench', 'proxy-child.mjs'), module, upstreamUrl], {
    stdio: ['pipe', 'pipe', 'inherit']
  })
  try {
    const { url, key } = await new Promise((resolve, reject) => {
      let out = ''
      child.stdout.on('data', chunk => {
        out += chunk
        if (out.includes('\n')) resolve(JSON.parse(out.split('\n')[0]))
      })
      child.on('exit', code => reject(new Error(`the proxy exited (${code}) before it listened`)))
    })
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
    // Warm both paths, then alternate them so load changes hit both alike.
    for (let i = 0; i < 50; i++) {
      await ask(upstreamUrl, key, '/v1/messages', agent)
      await ask(url, key, '/v1/messages', agent)
    }
    const direct = []
    const proxied = []
    for (let i = 0; i < REQUESTS; i++) {
      direct.push((await ask(upstreamUrl, key, '/v1/messages', agent)).ms)
      proxied.push((await ask(url, key, '/v1/messages', agent)).ms)
    }
    const idle = rssOf(child.pid)
    // The proxy forwards only the model call: the big stream is asked for in its query.
    const big = await ask(url, key, '/v1/messages?big=1', agent)
    const after = rssOf(child.pid)
    agent.destroy()
    const p = q => ({ direct: percentile(direct, q), proxied: percentile(proxied, q) })
    const p50 = p(50)
    const p99 = p(99)
    const fmt = n => `${n.toFixed(2)} ms`
    const preauth = await preauthorising(path.dirname(module))
    const rows = [
      {
        figure: 'added latency, p50',
        display: fmt(p50.proxied - p50.direct),
        goal: '',
        met: null,
        detail: `direct ${fmt(p50.direct)}, proxied ${fmt(p50.proxied)} over ${REQUESTS} streamed requests`
      },
      {
        figure: 'added latency, p99',
        display: fmt(p99.proxied - p99.direct),
        goal: '',
        met: null,
        detail: `direct ${fmt(p99.direct)}, proxied ${fmt(p99.proxied)}`
      },
      {
        figure: 'proxy memory streaming 100 MB (peak RSS)',
        display: `${after.peak.toFixed(0)} MB`,
        goal: '',
        met: null,
        detail: `RSS ${idle.rss.toFixed(0)} MB before, ${after.rss.toFixed(0)} MB after; ${(big.bytes / 1048576).toFixed(0)} MB in ${(big.ms / 1000).toFixed(1)} s (${(big.bytes / 1048576 / (big.ms / 1000)).toFixed(0)} MB/s), read for usage on the way`
      },
      {
        figure: 'pre-authorising a 1 MB request body',
        display: fmt(preauth.ms),
        goal: '',
        met: null,
        detail: `its worst case read from a parsed ${(preauth.bytes / 1048576).toFixed(1)} MB Messages body of ${preauth.turns} tool turns (JSON.parse, before it, ${fmt(preauth.parseMs)}), mean of ${preauth.runs} warm runs`
      }
    ]
    return {
      rows,
      notes: ['The proxy runs in a process of its own; its sources are transpiled, not bundled.'],
      data: { p50, p99, idle, after, streamed: big, preauth }
    }
  } finally {
    child.stdin.end()
    upstream.close()
    upstream.closeAllConnections()
  }
}
