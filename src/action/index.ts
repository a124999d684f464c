// DESIGN (src/action): main.ts reads the inputs once, decides the job kind once (jobs/kind.ts, the one reader of
// mode, resume and dry-run) and runs that kind's pipeline (jobs/*.ts: straight sequences of steps). steps/ holds
// the steps, each a function taking its inputs as arguments (steps/types.ts: what they hand each other); chain/
// is the chain (a loop that goes on in another run), handover/ the two-job manifest, each side in a file.
// Reaching into a folder is deep: import the file that holds the thing (scripts/import-circles.mjs states the rule
// and fails `npm run lint` on any import circle). Imports point down: jobs → chain, handover → steps → the rest.
// Words: docs/design/glossary.md.
// The one bundle for both steps: main on the first run, post when main's state says so (actions/checkout's way).
// Started by the runner (`node dist/index.js`) it runs at once; imported by a host that calls run() itself
// (@github/local-action), it only exports run().
import { realpathSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import * as core from '@actions/core'
import { keepHeapSmall } from '../proc/index.js'
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
    // No such file to compare (a host that imports this bundle from memory): not started by the runner.
    return false
  }
}

if (started()) {
  // V8's settings are the process's: set only when the runner started this file, never in a host that imports it.
  keepHeapSmall()
  run().then(
    // Exit now: idle HTTP keep-alive sockets must not hold the step open.
    () => process.exit(),
    error => {
      core.setFailed(`ralph-action: internal error (please report it): ${error?.stack ?? error}`)
      process.exit()
    }
  )
}
