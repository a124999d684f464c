// The end-to-end tests start dist/index.js on the runtime action.yml ships on, not on the Node that runs jest.
import { execFileSync, spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { expect, test } from '@jest/globals'
import { ACTION_NODE, actionYaml, BUNDLE } from './harness.js'

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

test('imported by a host that calls run() (@github/local-action), the bundle only exports run: main, then post', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'ralph-import-'))
  try {
    const host = path.join(dir, 'host.mjs')
    // A host as @github/local-action is: it imports the entrypoint, then awaits run() for main and for post.
    writeFileSync(
      host,
      [
        `const bundle = await import(${JSON.stringify(BUNDLE)})`,
        `console.log('imported:', typeof bundle.run)`,
        `await bundle.run()`,
        `console.log('main returned')`,
        `await bundle.run()`,
        `console.log('post returned')`
      ].join('\n')
    )
    // No inputs: main fails in its one line, post has nothing to finish.
    const env = Object.fromEntries(
      Object.entries(process.env).filter(([k]) => !/^(INPUT_|STATE_|GITHUB_)/.test(k))
    )
    const ran = spawnSync(ACTION_NODE, [host], { encoding: 'utf8', env: { ...env, GITHUB_WORKSPACE: dir } })
    // The failed main step sets the exit code, as on the runner.
    expect(ran.status).toBe(1)
    const lines = ran.stdout.split('\n')
    expect(lines[0]).toBe('imported: function')
    const main = lines.findIndex(l => l.startsWith("::error::Input 'ralph' is required"))
    const post = lines.indexOf('The main step did not start a loop; nothing to upload.')
    expect(main).toBeGreaterThan(0)
    expect(lines.indexOf('main returned')).toBeGreaterThan(main)
    expect(post).toBeGreaterThan(lines.indexOf('main returned'))
    expect(lines.indexOf('post returned')).toBeGreaterThan(post)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})
