import * as core from '@actions/core'

core.info('ralph-action: the action front-end is not built yet')
