// What continuing a loop in another workflow run (#30) costs the action itself, on the bundled example
// (examples/fix-failing-test) whose agent sleeps past max-time in iteration 2: job 1 fixes one test, is cut
// short in iteration 2 and stops `timeout` with the gate failing. Pair by pair, on two-jobs.mjs's stand-ins
// (dist/index.js on Node 24, git over HTTP, the GitHub API, the artifact service on azurite):
// (a) job 1 handing on (continue-jobs 2: push, continuation.json, upload, dispatch) against the same job
// ending without continuing (continue-jobs 1, on-failure push: push, upload), from its "Stopped" line on;
// (b) the resumed job (resume: run A, a fresh checkout of main) against job 1, each from spawn to its first
// iteration. Not measured: GitHub's queue and a runner's start before the dispatched run's job.
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { loadSupport } from './github-api.mjs'
import { median, progress, ROOT } from './lib.mjs'
import { WRITE_TOKEN, checkout, marker, project, runJob } from './two-jobs.mjs'

export const title = 'A loop that goes on in another run: the action’s cost of handing on and of resuming'

const PAIRS = Number(process.env.BENCH_CHAIN_PAIRS ?? 5)
/** Job 1's max-time: room for the baseline and iteration 1 on a loaded machine, the sleeping agent killed at 90%. */
const MAX_TIME = process.env.BENCH_CHAIN_MAX_TIME ?? '12s'
const WORKFLOW = '.github/workflows/ralph.yml'
const seconds = value => `${(value / 1000).toFixed(2)} s`
const spread = values => `${seconds(Math.min(...values))}–${seconds(Math.max(...values))}`

/** The example's ralph with the iteration in its prompt, and an agent that sleeps in iteration 2. */
const RALPH = readFileSync(path.join(ROOT, 'examples', 'fix-failing-test', 'fix-tests', 'RALPH.md'), 'utf8')
const FILES = {
  'fix-tests/RALPH.md':
    RALPH.replace('scripted-agent.mjs', 'slow-agent.mjs') + '\nThis is iteration {{ ralph.iteration }}.\n',
  'fix-tests/slow-agent.mjs': [
    "import { spawnSync } from 'node:child_process'",
    "import { readFileSync } from 'node:fs'",
    "const prompt = readFileSync(0, 'utf8')",
    'if (/This is iteration 2\\./.test(prompt)) await new Promise(resolve => setTimeout(resolve, 300_000))',
    "const fix = spawnSync(process.execPath, ['fix-tests/scripted-agent.mjs'], { input: prompt, stdio: ['pipe', 'inherit', 'inherit'] })",
    'process.exit(fix.status ?? 1)',
    ''
  ].join('\n')
}

let runs = 0
const newRunId = () => 9_200_000_000 + process.pid * 100 + ++runs
/** A run of the workflow as GitHub has it, with an artifact backend id of its own (the service is shared). */
function backed(p, run) {
  run.workflowRunBackendId = `c0ffee00-0000-4000-8000-${String(newRunId()).padStart(12, '0')}`
  return run
}

/** A job of `run` on a fresh checkout; `at(pattern)`: when its main step logged that (ms). */
async function job(p, stands, run, inputs, codes) {
  const resume = inputs.resume ?? ''
  const done = await runJob(p, await checkout(p, WRITE_TOKEN), stands.artifacts, {
    name: 'ralph',
    runId: String(run.id),
    backendId: run.workflowRunBackendId,
    event: p.api.events.workflowDispatch({ resume }),
    inputs: { ralph: 'fix-tests', 'max-time': MAX_TIME, ...inputs },
    codes
  })
  run.status = 'completed'
  return { ...done, at: pattern => marker(done.main, pattern, String(pattern), done.log) }
}

/** Phases of a job's main step as [name, from, to]: log-line patterns, null for the spawn or the exit. */
const ENDING = [
  ['stop', /^Stopped: /, /^::group::Pushing /],
  ['push', /^::group::Pushing /, /^Pushed [0-9a-f]+ to /],
  ['upload', /^Pushed [0-9a-f]+ to /, /^Uploaded the run record /],
  ['exit', /^Uploaded the run record /, null]
]
const STARTING = [
  ['admit', null, /^::group::Preparing branch /],
  ['branch', /^::group::Preparing branch /, /^Running ralph /],
  ['loop', /^Running ralph /, /^::group::Iteration \d+ /]
]
/** Each phase's ms, with `post` (the post step) and `all` (the phases' sum with it, or spawn to the first iteration). */
function phases(j, list) {
  const out = {}
  for (const [name, from, to] of list) out[name] = (to ? j.at(to) : j.main.wallMs) - (from ? j.at(from) : 0)
  if (list === ENDING) out.post = j.post.wallMs
  out.all = Object.values(out).reduce((a, b) => a + b, 0)
  return out
}

/** Job 1 on a fresh remote handing on (continue-jobs 2), then job 2 resumed; or ending so (on-failure push). */
async function chain(stands, handOn, out) {
  const p = await project(stands, FILES)
  try {
    p.api.state.artifacts = stands.artifacts
    p.api.state.addWorkflow({ path: WORKFLOW, dispatchInputs: { resume: {} } })
    const a = backed(p, p.api.state.addRun({ id: newRunId(), workflowPath: WORKFLOW }))
    const given = handOn ? { 'continue-jobs': '2' } : { 'on-failure': 'push' }
    const first = await job(p, stands, a, given, [handOn ? 0 : 1])
    if (first.outputs['stop-reason'] !== 'timeout' || (first.outputs.continued === 'true') !== handOn)
      throw new Error(`job 1 did not stop on its time as set up:\n${first.log().slice(-3000)}`)
    if (!handOn) return void (out.ends = phases(first, ENDING))
    out.handsOn = phases(first, ENDING)
    out.fresh = phases(first, STARTING)
    const b = backed(p, p.api.state.run(p.api.state.dispatches[0].runId))
    const second = await job(p, stands, b, { 'continue-jobs': '2', 'max-time': '3m', resume: String(a.id) })
    if (second.outputs['pr-operation'] !== 'created')
      throw new Error(`job 2 opened no pull request:\n${second.log().slice(-3000)}`)
    out.resumed = phases(second, STARTING)
    out.resumed.record = second.at(/^Resuming run /) - second.at(/^Fetching artifact list /)
  } finally {
    await p.close()
  }
}

/** A pair; which goes first alternates, so a drift of the machine's speed falls on both. */
async function pair(stands, i) {
  const out = {}
  for (const handOn of i % 2 ? [false, true] : [true, false]) await chain(stands, handOn, out)
  return out
}

export async function run() {
  const [{ startArtifactService }, { startGitServer }, { startGitHubApi }] = await loadSupport(
    'support/artifacts/index.ts',
    'support/git-server.ts',
    'support/github-api/index.ts'
  )
  progress('chain: starting the artifact service (azurite)')
  const artifacts = await startArtifactService()
  const stands = { artifacts, startGitServer, startGitHubApi }
  const pairs = []
  try {
    progress('chain: a warm-up pair (not counted)')
    await pair(stands, 0)
    for (let i = 1; i <= PAIRS; i++) {
      progress(`chain: pair ${i} of ${PAIRS}`)
      pairs.push(await pair(stands, i))
    }
  } finally {
    await artifacts.close()
  }
  /** A row: `x`'s phase, beside `y`'s and their pair-by-pair difference. */
  const row = (figure, [x, y], phase, detail) => {
    const xs = pairs.map(r => r[x][phase])
    const ys = y && pairs.map(r => r[y][phase])
    const diffs = ys && xs.map((v, i) => v - ys[i])
    const against = ys
      ? ` against ${seconds(median(ys))} (${spread(ys)}); pair by pair ${seconds(median(diffs))} (${spread(diffs)})`
      : ''
    return {
      figure,
      display: seconds(median(xs)),
      goal: '—',
      met: null,
      detail: `${detail}: ${spread(xs)}${against}`
    }
  }
  const a = ['handsOn', 'ends']
  const b = ['resumed', 'fresh']
  return {
    rows: [
      ['(a) handing on, "Stopped" to the end', a, 'all', 'job 1 (main + post) against a job ending so'],
      ['    to the push', a, 'stop', 'the agent’s user given back, the push prepared'],
      ['    push', a, 'push', 'the branch pushed, no pull request'],
      ['    record, upload', a, 'upload', 'the record (+ continuation.json) written and uploaded'],
      ['    after the upload', a, 'exit', 'the dispatch, or the failure line; summary, outputs'],
      ['    post step', a, 'post', 'the post step'],
      [
        '(b) resumed job, to its first iteration',
        b,
        'all',
        'spawn to iteration 3, against job 1’s to iteration 1'
      ],
      ['    to the branch', b, 'admit', 'admission; resumed: + the run checks, the record, the claim'],
      [
        '      record downloaded, checked',
        ['resumed'],
        'record',
        '"Fetching artifact list" to "Resuming run"'
      ],
      [
        '    branch, isolation',
        b,
        'branch',
        'the branch made (or checked against the continuation), the agent’s user, the record (+ earlier logs copied in)'
      ],
      [
        '    to the first iteration',
        b,
        'loop',
        'fresh: the baseline gates; resumed: none (its baseline carried over)'
      ]
    ].map(args => row(...args)),
    notes: [
      'Per-phase times by the arrival of the step’s log lines. Loopback stand-ins: no network latency; GitHub’s',
      'queue and the next runner’s start (tens of seconds) come on top. Each job its own runner folders and checkout.',
      `Job 1: max-time ${MAX_TIME}, killed in iteration 2; job 2 ends with the gate passing and a pull request.`
    ],
    data: { pairs: PAIRS, maxTime: MAX_TIME, runs: pairs }
  }
}
