// The one bundle for both steps: main on the first run, post when main's state says so (actions/checkout's way).
import * as core from '@actions/core'
import { run } from './main.js'
import { post } from './post.js'
import { saveState } from './state.js'

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
