// What the action moves off its initial environment block: the tokens, and every model key the proxy holds.
import { scrubbedFromEnviron } from '../../src/action/own-environment.js'
import { MODEL_KEY_VARIABLES } from '../../src/proxy/agent.js'

test.each(MODEL_KEY_VARIABLES)('the model key %s is scrubbed from the action’s environ', name => {
  expect(scrubbedFromEnviron(name)).toBe(true)
})

test('the tokens still are, and ordinary variables are not', () => {
  for (const name of [
    'GITHUB_TOKEN',
    'INPUT_GITHUB-TOKEN',
    'ACTIONS_RUNTIME_TOKEN',
    'ACTIONS_ID_TOKEN_REQUEST_TOKEN'
  ])
    expect(scrubbedFromEnviron(name)).toBe(true)
  for (const name of ['PATH', 'HOME', 'RUNNER_TEMP']) expect(scrubbedFromEnviron(name)).toBe(false)
})
