// Cost-budget enforcement latency with the real Claude Code CLI: from the usage event that crosses the
// dollar budget to the agent's process tree being gone (goal ≤ 1 s).
//
// A scripted Anthropic Messages server on loopback answers claude's first request with a Write tool call
// reporting 100,000 input tokens ($0.30 at claude-sonnet-4-5's list price) and holds its second request for a
// minute (a slow model). The built CLI runs `ralph-action run --max-cost 0.25`: the engine prices claude's
// per-turn usage as it streams, crosses the budget on that event, and kills the tree. The ralph gives claude
// its own larger cap (--max-budget-usd 50) so claude cannot stop itself first: the figure is the loop's kill.
//
// Two clocks: the engine's (enforcement.latencyMs in status.json: from the crossing, timed when the usage line
// was read, to the end of the interrupted iteration), and an outside one: this process polls /proc every
// 10 ms for processes whose working directory is the run's work tree; gone = none left but zombies.
// Needs the pinned CLI: `node scripts/install-agent-clis.mjs`.
import { existsSync, mkdirSync, readdirSync, readFileSync, readlinkSync, realpathSync } from 'node:fs'
import { createServer } from 'node:http'
import path from 'node:path'
import { expectExit, median, ms, progress, readStatus, ROOT, runCli, tempDir, writeRalph } from './lib.mjs'

export const title = 'Cost budget: usage event that crosses --max-cost → claude tree gone (real claude CLI)'

const GOAL_MS = 1000
const POLL_MS = 10
const REPEATS = 3
const MODEL = 'claude-sonnet-4-5'
const CLAUDE = path.join(ROOT, '.tool-cache', 'agents', 'node_modules', '.bin', 'claude')

const sse = (res, type, data) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`)

/** Turn 0: a Write call with 100k input tokens; turn 1 (after a tool result): held for a minute. */
function startServer() {
  const answered = []
  // The work tree of the run in progress, where claude's Write goes.
  const state = { cwd: '/tmp' }
  let seq = 0
  const server = createServer((req, res) => {
    let body = ''
    req.on('data', chunk => (body += chunk))
    req.on('end', () => {
      if (!req.url.startsWith('/v1/messages') || req.method !== 'POST') {
        res.writeHead(404, { 'content-type': 'application/json' })
        res.end(JSON.stringify({ type: 'error', error: { type: 'not_found_error', message: 'no route' } }))
        return
      }
      const request = JSON.parse(body || '{}')
      const turn = (request.messages ?? []).filter(
        m => m.role === 'user' && Array.isArray(m.content) && m.content.some(b => b.type === 'tool_result')
      ).length
      if (turn > 0) {
        // The slow model: nothing for a minute, unless the client hangs up first.
        const timer = setTimeout(() => res.end(), 60000)
        res.on('close', () => clearTimeout(timer))
        return
      }
      const id = `msg_bench_${++seq}`
      const input = { file_path: path.join(state.cwd, 'hello.txt'), content: 'hi\n' }
      res.writeHead(200, { 'content-type': 'text/event-stream', 'request-id': `req_bench_${seq}` })
      const usage = { input_tokens: 100000, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 }
      sse(res, 'message_start', {
        message: {
          id,
          type: 'message',
          role: 'assistant',
          model: request.model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { ...usage, output_tokens: 1 }
        }
      })
      sse(res, 'content_block_start', {
        index: 0,
        content_block: { type: 'tool_use', id: `toolu_${seq}`, name: 'Write', input: {} }
      })
      sse(res, 'content_block_delta', {
        index: 0,
        delta: { type: 'input_json_delta', partial_json: JSON.stringify(input) }
      })
      sse(res, 'content_block_stop', { index: 0 })
      sse(res, 'message_delta', {
        delta: { stop_reason: 'tool_use', stop_sequence: null },
        usage: { output_tokens: 20 }
      })
      sse(res, 'message_stop', {})
      res.end()
      answered.push(Date.now())
    })
  })
  return new Promise(resolve =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        url: `http://127.0.0.1:${server.address().port}`,
        answered,
        state,
        close: () => server.close()
      })
    )
  )
}

function alive(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1')
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3)
    return state !== 'Z' && state !== 'X'
  } catch {
    return false
  }
}

/** Living processes working in `dir` (the agent's tree: claude and anything it started there). */
function treeIn(dir) {
  const found = []
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue
    try {
      if (realpathSync(readlinkSync(`/proc/${entry}/cwd`)) === dir && alive(Number(entry)))
        found.push(Number(entry))
    } catch {
      // gone, or not readable
    }
  }
  return found
}

async function once(label, server) {
  const work = realpathSync(tempDir('cost-latency'))
  server.state.cwd = work
  const home = tempDir('cost-latency-home')
  const agent = `${CLAUDE} -p --model ${MODEL} --permission-mode acceptEdits --allowedTools Bash --max-budget-usd 50`
  writeRalph(path.join(work, 'r'), { agent, body: 'Create hello.txt.' })
  const recordDir = path.join(tempDir('cost-latency-record'), 'record')
  mkdirSync(path.join(home, '.config'), { recursive: true })
  const env = {
    PATH: process.env.PATH,
    LANG: 'C.UTF-8',
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, '.config'),
    ANTHROPIC_BASE_URL: server.url,
    ANTHROPIC_API_KEY: 'sk-ant-bench-offline',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_ERROR_REPORTING: '1'
  }
  let lastAlive = 0
  let sawTree = false
  const poll = setInterval(() => {
    if (treeIn(work).length > 0) {
      lastAlive = Date.now()
      sawTree = true
    }
  }, POLL_MS)
  progress(`cost-latency: ${label}`)
  const result = await runCli(['run', 'r', '-n', '3', '--max-cost', '0.25', '--record-dir', recordDir], {
    cwd: work,
    env
  })
  clearInterval(poll)
  expectExit(result, [3], `the CLI (${label})`)
  const left = treeIn(work)
  if (left.length > 0) throw new Error(`the claude tree outlived the CLI: ${left.join(' ')}`)
  if (!sawTree) throw new Error('claude was never seen running')
  const status = readStatus(recordDir)
  if (status.stopReason !== 'budget_exhausted')
    throw new Error(`the run stopped with ${status.stopReason} (${status.stopDetail}), not budget_exhausted`)
  const agentRun = status.iterations[0]?.agent
  if (agentRun?.killedBy !== 'budget_exhausted') throw new Error('claude was not killed by the budget')
  const crossed = Date.parse(status.enforcement.crossedAt)
  return {
    label,
    engineLatencyMs: status.enforcement.latencyMs,
    externalLatencyMs: lastAlive + POLL_MS - crossed,
    // From the server's last byte of the crossing turn to the crossing: claude printing + the engine reading.
    streamToCrossingMs: crossed - server.answered.at(-1),
    estimateUsd: agentRun.usage.cost_usd,
    costSource: agentRun.usage.cost_source
  }
}

export async function run() {
  if (!existsSync(CLAUDE))
    throw new Error('the pinned claude CLI is not installed: run `node scripts/install-agent-clis.mjs`')
  const server = await startServer()
  const runs = []
  try {
    for (let i = 1; i <= REPEATS; i++) runs.push(await once(`run ${i} of ${REPEATS}`, server))
  } finally {
    server.close()
  }
  const external = median(runs.map(r => r.externalLatencyMs))
  const worst = Math.max(...runs.map(r => r.externalLatencyMs))
  const engine = median(runs.map(r => r.engineLatencyMs))
  const rows = [
    {
      figure: 'real claude, killed on the usage event that crosses $0.25',
      display: ms(external),
      goal: `≤ ${GOAL_MS / 1000} s`,
      met: worst <= GOAL_MS,
      detail:
        `outside: median ${ms(external)}, worst ${ms(worst)} of ${REPEATS}; the engine's enforcement.latencyMs: ` +
        `median ${ms(engine)} (${runs.map(r => r.engineLatencyMs).join(', ')} ms); server's last byte → crossing: ` +
        `${runs.map(r => ms(r.streamToCrossingMs)).join(', ')}; estimate at the kill $${runs[0].estimateUsd.toFixed(4)} (${runs[0].costSource})`
    }
  ]
  const notes = [
    'Method: a loopback Anthropic server answers turn 0 with a Write call reporting 100k input tokens and holds',
    "turn 1; `run --max-cost 0.25` prices claude's per-turn usage from the price table and kills the tree",
    '(SIGTERM, then SIGKILL after 3 s). Claude gets --max-budget-usd 50 from the ralph so it cannot stop itself.',
    `Outside latency = the last /proc look (every ${POLL_MS} ms) at which a process worked in the run's work tree`,
    `+ ${POLL_MS} ms − enforcement.crossedAt. The goal is met when the worst run is within it.`
  ]
  return { rows, notes, data: { goalMs: GOAL_MS, runs } }
}
