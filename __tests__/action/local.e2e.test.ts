// `npm run local`: the built action run all the way on this machine against the end-to-end stand-ins, the
// way a newcomer tries it: the default env file (a whole run) and the dry-run one.
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, expect, test } from '@jest/globals'
import { REPO_ROOT } from './harness.js'

const kept: string[] = []
afterAll(() => {
  for (const dir of kept) rmSync(dir, { recursive: true, force: true })
})

function local(...args: string[]): Promise<{ code: number | null; stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(REPO_ROOT, 'scripts', 'local.mjs'), ...args], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'inherit']
    })
    let stdout = ''
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')))
    child.on('error', reject)
    child.on('close', code => {
      const under = /^All of it is kept under (.+)$/m.exec(stdout)?.[1]
      if (under) kept.push(under)
      resolve({ code, stdout })
    })
  })
}

const line = (stdout: string, re: RegExp): string => {
  const m = re.exec(stdout)
  if (!m) throw new Error(`no line matching ${re} in:\n${stdout.slice(-3000)}`)
  return m[1]
}

test('the default run goes all the way: branch pushed, pull request opened, artifact stored, summary written', async () => {
  const { code, stdout } = await local()
  expect(code).toBe(0)
  expect(stdout).toContain('stop-reason=all_checks_passed\n')
  expect(stdout).toContain('iterations=2\n')
  expect(stdout).toMatch(
    /^Branch ralph\/fix-tests: pushed to the bare remote \S+remote\.git\n\w+ ralph fix-tests: iteration 2\n/m
  )
  expect(stdout).toMatch(/^Pull request #1 on the GitHub stand-in: .+ \(ralph\/fix-tests → main, open\)$/m)
  const artifact = line(
    stdout,
    /^Artifact ralph-fix-tests-\S+ \(id \d+, \d+ bytes\) stored in azurite; its files: (.+)$/m
  )
  expect(readFileSync(path.join(artifact, 'progress.md'), 'utf8')).toContain('## Stopped: all_checks_passed')
  const markdown = readFileSync(line(stdout, /^Job summary: (.+)$/m), 'utf8')
  expect(markdown).toContain('passed every gate in iteration 2 and opened pull request [#1]')
  expect(markdown).toContain('```mermaid\nxychart-beta')
  const page = readFileSync(line(stdout, /^ {2}as a page: (.+)$/m), 'utf8')
  expect(page).toContain('<table>')
  expect(page).toContain('<pre class="mermaid">xychart-beta')
  expect(page).toContain('passed every gate in iteration 2')
  expect(stdout).not.toContain('Requests the real services would have refused')
}, 400_000)

test('the dry run says what it checked: its outputs and a summary with the first prompt', async () => {
  const { code, stdout } = await local(path.join(REPO_ROOT, 'examples', 'local-dry-run.env'))
  expect(code).toBe(0)
  expect(stdout).toContain('iterations=0\n')
  expect(stdout).toContain('Branch: nothing was pushed')
  expect(stdout).toContain('Artifact: none was uploaded')
  const markdown = readFileSync(line(stdout, /^Job summary: (.+)$/m), 'utf8')
  expect(markdown).toContain('🔎 Dry run of **fix-tests**')
  expect(markdown).toContain('You are fixing the failing tests of this project')
  expect(existsSync(line(stdout, /^ {2}as a page: (.+)$/m))).toBe(true)
}, 400_000)

test('a mistake in what was asked is one line naming it, with the input meant, exit 2 and no stack', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'ralph-local-env-'))
  kept.push(dir)
  const run = (file: string) =>
    spawnSync(process.execPath, [path.join(REPO_ROOT, 'scripts', 'local.mjs'), file], {
      cwd: REPO_ROOT,
      encoding: 'utf8'
    })
  const missing = run(path.join(dir, 'nope.env'))
  expect(missing.status).toBe(2)
  expect(missing.stderr).toBe(
    `npm run local: ${path.join(dir, 'nope.env')} is not a file: give the path of one with INPUT_<NAME>=value lines, like examples/local-action.env\n`
  )
  const typo = path.join(dir, 'typo.env')
  writeFileSync(typo, 'INPUT_RALPH=fix-tests\nINPUT_MAX-ITERATOINS=3\n')
  const undeclared = run(typo)
  expect(undeclared.status).toBe(2)
  expect(undeclared.stderr).toBe(
    `npm run local: ${typo}: input 'max-iteratoins' is not one action.yml declares (did you mean max-iterations?)\n`
  )
  // Underscores for the hyphens (INPUT_MAX_ITERATIONS names 'max iterations'), started from elsewhere.
  const underscores = path.join(dir, 'underscores.env')
  writeFileSync(underscores, 'INPUT_RALPH=fix-tests\nINPUT_MAX_ITERATIONS=3\n')
  const elsewhere = spawnSync(process.execPath, [path.join(REPO_ROOT, 'scripts', 'local.mjs'), underscores], {
    cwd: dir,
    encoding: 'utf8'
  })
  expect(elsewhere.status).toBe(2)
  expect(elsewhere.stderr).toBe(
    `npm run local: ${underscores}: input 'max iterations' is not one action.yml declares (did you mean max-iterations; as a variable, INPUT_MAX-ITERATIONS?)\n`
  )
})
