// The action's main step started as the runner starts it, for the benchmark: a copy of its bundle, the runner's
// files and GITHUB_* variables, an event from the local GitHub API stand-in, and INPUT_* from `inputs`.
import { copyFileSync, existsSync, readdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { ACTION_NODE, ROOT, runTimed, tempDir } from './lib.mjs'

/**
 * The action's bundle (dist/index.js and its lazy chunks), copied so a concurrent rebuild cannot swap it; again
 * after run.mjs removed the temp folders between two measurements.
 */
let actionBundle
export function snapshotAction() {
  if (actionBundle && existsSync(actionBundle)) return actionBundle
  const dir = tempDir('action-bundle')
  const from = path.join(ROOT, 'dist')
  for (const entry of readdirSync(from, { withFileTypes: true }))
    if (entry.isFile() && /\.(js|json)$/.test(entry.name))
      copyFileSync(path.join(from, entry.name), path.join(dir, entry.name))
  actionBundle = path.join(dir, 'index.js')
  return actionBundle
}

/**
 * Runs main in `work` on the action's Node for `eventName` (its payload from `api.events`), with `inputs` as
 * INPUT_* variables; answers the timed result and the runner's files (GITHUB_OUTPUT and the others).
 */
export async function startAction(api, { work, eventName, event, inputs, env: extraEnv = {} }) {
  const files = tempDir('action-files')
  const env = { PATH: process.env.PATH, HOME: process.env.HOME, RUNNER_TEMP: files, GITHUB_WORKSPACE: work }
  for (const name of ['GITHUB_OUTPUT', 'GITHUB_STATE', 'GITHUB_STEP_SUMMARY', 'GITHUB_ENV']) {
    env[name] = path.join(files, name)
    writeFileSync(env[name], '')
  }
  const eventFile = path.join(files, 'event.json')
  writeFileSync(eventFile, JSON.stringify(event))
  Object.assign(env, api.env, {
    GITHUB_ACTIONS: 'true',
    GITHUB_EVENT_NAME: eventName,
    GITHUB_EVENT_PATH: eventFile,
    GITHUB_REF: 'refs/heads/main',
    GITHUB_RUN_ID: '1',
    GITHUB_RUN_ATTEMPT: '1',
    'INPUT_GITHUB-TOKEN': 'ghs_bench'
  })
  for (const [name, value] of Object.entries(inputs)) env[`INPUT_${name.toUpperCase()}`] = value
  const result = await runTimed(ACTION_NODE, [snapshotAction()], { cwd: work, env: { ...env, ...extraEnv } })
  return { result, files: env }
}
