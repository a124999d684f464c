// The end-to-end tests start dist/index.js on the runtime action.yml ships on, not on the Node that runs jest.
import { execFileSync } from 'node:child_process'
import { expect, test } from '@jest/globals'
import { ACTION_NODE, actionYaml } from './harness.js'

const shipped = Number(/^node(\d+)$/.exec(actionYaml().runs.using)?.[1])
const tested = Number(/^v(\d+)\./.exec(execFileSync(ACTION_NODE, ['--version'], { encoding: 'utf8' }))?.[1])

test('the action is started on the Node major that action.yml names', () => {
  expect(shipped).toBeGreaterThanOrEqual(20)
  if (tested !== shipped && process.env.CI !== 'true') {
    // On a machine that could not fetch it, the run says so instead of failing; CI must have it.
    console.warn(`The action ran on Node ${tested}, not node${shipped}: npm run test:e2e could not fetch it.`)
    return
  }
  expect(tested).toBe(shipped)
})
