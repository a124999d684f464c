// The one bundle for both steps: main on the first run, post when main's state says so (actions/checkout's way).
// Started by the runner (`node dist/index.js`) it runs at once; imported by a host that calls run() itself
// (@github/local-action), it only exports run().
import { realpathSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import * as core from '@actions/core'
import { guardJobLog } from '../security/workflow-commands.js'
import { run as main } from './main.js'
import { post } from './post.js'
import { saveState } from './state.js'

let mainRan = false
let guarded = false

/** The first call is the main step, the next the post step: as the runner's two starts of this file are. */
export async function run(): Promise<void> {
  if (!guarded) {
    // Before anything is written: no line of the job log, whatever text it carries, holds a terminal control.
    guardJobLog(process.stdout)
    guardJobLog(process.stderr)
    guarded = true
  }
  const isPost = mainRan || core.getState('isPost') === 'true'
  if (!isPost) {
    saveState('isPost', true)
    mainRan = true
  }
  await (isPost ? post() : main())
}

const started = (): boolean => {
  try {
    return realpathSync(process.argv[1] ?? '') === realpathSync(fileURLToPath(import.meta.url))
  } catch {
    return false
  }
}

if (started())
  run().then(
    // Exit now: idle HTTP keep-alive sockets must not hold the step open.
    () => process.exit(),
    error => {
      core.setFailed(`ralph-action: internal error (please report it): ${error?.stack ?? error}`)
      process.exit()
    }
  )
