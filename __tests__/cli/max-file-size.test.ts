// --max-file-size (#25): with --commit, a file the agent leaves over it is left out of the commits, as the
// action's max-file-size input does; the option reads the same sizes and says what it wants when it cannot.
import { expect, test } from '@jest/globals'
import { UsageError } from '../../src/cli/argv.js'
import { engineSettings, loopSettings } from '../../src/cli/options.js'

test('--max-file-size reads a size (binary units, a bare number is megabytes) into the loop settings', () => {
  expect(engineSettings(loopSettings({ maxFileSize: '500KB' }), '/').maxFileBytes).toBe(500 * 1024)
  expect(engineSettings(loopSettings({ maxFileSize: '2' }), '/').maxFileBytes).toBe(2 * 1024 * 1024)
  // Not given: the loop's default (50 MB) applies.
  expect(engineSettings(loopSettings({}), '/').maxFileBytes).toBeUndefined()
})

test('a size it cannot read is a usage error naming the option and the form', () => {
  expect(() => loopSettings({ maxFileSize: 'huge' })).toThrow(UsageError)
  expect(() => loopSettings({ maxFileSize: 'huge' })).toThrow(
    "'--max-file-size' must be a size like 50MB, 500KB or 1GB (a bare number is megabytes), got 'huge'."
  )
})
