// Agent runs saved by skip-if-green's default: a nightly hunt (a `schedule` run of the action, dist/index.js on
// Node 24 against the local GitHub API stand-in and a bare git remote) on a tree whose gates already pass, with
// the default (auto: on for a hunt) and with `skip-if-green: false`. Counts the agent's runs and times the step.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { startAction } from './action.mjs'
import { loadGitHubApi } from './github-api.mjs'
import {
  ACTION_NODE,
  expectExit,
  initRepo,
  median,
  ms,
  progress,
  runTimed,
  tempDir,
  writeScript
} from './lib.mjs'

export const title = "A hunt on a green tree: agent runs with skip-if-green's default and without it"

const RUNS = 3

/** One hunt of ralph `r` (agent: a script counting its runs; gate: `true`); answers its outputs and time. */
async function hunt(api, skipIfGreen) {
  const work = tempDir('hunt-work')
  const runs = path.join(tempDir('hunt-count'), 'runs')
  writeFileSync(runs, '')
  writeScript(
    path.join(work, 'agent.sh'),
    `#!/bin/sh\ncat >/dev/null\necho run >> ${runs}\necho "Nothing to fix. <promise>COMPLETE</promise>"\n`
  )
  const ralph = path.join(work, 'r')
  mkdirSync(ralph)
  writeFileSync(
    path.join(ralph, 'RALPH.md'),
    '---\nagent: ./agent.sh\nchecks:\n  - name: tests\n    run: "true"\n---\nMake the tests pass.\n'
  )
  await initRepo(work)
  const remote = path.join(tempDir('hunt-remote'), 'origin.git')
  for (const args of [
    ['clone', '--quiet', '--bare', work, remote],
    ['-C', work, 'remote', 'add', 'origin', remote]
  ]) {
    const r = await runTimed('git', args)
    if (r.code !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`)
  }
  const { result, files } = await startAction(api, {
    work,
    eventName: 'schedule',
    event: api.events.schedule(),
    inputs: {
      ralph: 'r',
      'max-iterations': '3',
      'open-pr': 'false',
      'upload-artifacts': 'false',
      isolation: 'none',
      'model-proxy': 'false',
      // As the runner passes action.yml's default when the workflow says nothing.
      'skip-if-green': skipIfGreen
    }
  })
  expectExit(result, [0], `the hunt (skip-if-green: ${skipIfGreen})`)
  const outputs = readFileSync(files.GITHUB_OUTPUT, 'utf8')
  const stopReason = /stop-reason<<(\S+)\n([^\n]*)\n/.exec(outputs)?.[2] ?? '?'
  const agentRuns = readFileSync(runs, 'utf8').split('\n').filter(Boolean).length
  return { wallMs: result.wallMs, stopReason, agentRuns }
}

export async function run() {
  const startGitHubApi = await loadGitHubApi()
  const api = await startGitHubApi({ owner: 'octo-org', repo: 'octo-repo' })
  const rows = []
  const data = {}
  try {
    const variants = [
      ['auto', "the default (auto: on for a hunt's ralph)"],
      ['false', 'skip-if-green: false (the old default)']
    ]
    const results = Object.fromEntries(variants.map(([value]) => [value, []]))
    // Interleaved, so a change in the machine's load falls on both alike.
    for (let i = 0; i < RUNS; i++)
      for (const [value, figure] of variants) {
        progress(`hunt: ${figure}, run ${i + 1} of ${RUNS}`)
        results[value].push(await hunt(api, value))
      }
    for (const [value, figure] of variants) {
      const runs = results[value]
      const agentRuns = runs.map(r => r.agentRuns)
      rows.push({
        figure: `agent runs on a green tree, ${figure}`,
        display: String(median(agentRuns)),
        goal: value === 'auto' ? '0' : '—',
        met: value === 'auto' ? agentRuns.every(n => n === 0) : null,
        detail: `stop reason ${[...new Set(runs.map(r => r.stopReason))].join(', ')}; the step took ${ms(median(runs.map(r => r.wallMs)))} (median of ${RUNS})`
      })
      data[value] = { agentRuns, wallMs: runs.map(r => r.wallMs), stopReasons: runs.map(r => r.stopReason) }
    }
  } finally {
    await api.close()
  }
  const notes = [
    `Method: a schedule run of dist/index.js on ${ACTION_NODE !== process.execPath ? 'Node 24 (.tool-cache/node24)' : `this Node (${process.version}: Node 24 is not fetched)`},`,
    'a ralph whose one gate already passes and a scripted agent that only counts its runs (isolation none, no',
    'model proxy, no pull request, no upload); the two settings interleaved. With a real agent each run saved',
    'is minutes and dollars: a nightly hunt on a green tree now costs one round of gates.'
  ]
  return { rows, notes, data }
}
