// The one bundle for both steps: main on the first run, post when main's state says so (actions/checkout's way).
import * as core from '@actions/core'
import { guardJobLog } from '../security/workflow-commands.js'
import { run } from './main.js'
import { post } from './post.js'
import { saveState } from './state.js'

// Before anything is written: no line of the job log, whatever text it carries, holds a terminal control.
guardJobLog(process.stdout)
guardJobLog(process.stderr)

const isPost = core.getState('isPost') === 'true'
if (!isPost) saveState('isPost', true)
;(isPost ? post() : run()).then(
  // Exit now: idle HTTP keep-alive sockets must not hold the step open.
  () => process.exit(),
  error => {
    core.setFailed(`ralph-action: internal error (please report it): ${error?.stack ?? error}`)
    process.exit()
  }
)
