import { RalphError } from '../../src/ralph/types.js'

test('a RalphError carries its exit code', () => {
  expect(new RalphError('bad', 2).exitCode).toBe(2)
})
