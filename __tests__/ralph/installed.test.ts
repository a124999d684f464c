// The one containment rule for every ralph the action loads: followed through links, its folder, its
// RALPH.md and the guardrails file it reads stay inside the project. The `ralph` input is held to it as a
// comment's name is (ralph/installed.ts), whether it names a folder, a RALPH.md or an installed ralph.
import { mkdirSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { inputRalph, installedRalph } from '../../src/ralph/installed.js'
import { tempDir, tempRepo, type TempRepo } from '../git/temp-repo.js'

let repo: TempRepo
let outside: string
beforeEach(() => {
  repo = tempRepo({ commit: false })
  outside = realpathSync(tempDir('ralph-outside-'))
  writeFileSync(path.join(outside, 'RALPH.md'), '---\nagent: cat\n---\nSECRET-FROM-OUTSIDE\n')
  repo.write('.agents/ralphs/ok/RALPH.md', '---\nagent: cat\n---\nx\n')
  symlinkSync(outside, path.join(repo.dir, '.agents/ralphs/away'))
  mkdirSync(path.join(repo.dir, '.agents/ralphs/leak'))
  symlinkSync(path.join(outside, 'RALPH.md'), path.join(repo.dir, '.agents/ralphs/leak/RALPH.md'))
  symlinkSync(outside, path.join(repo.dir, 'elsewhere'))
})
afterEach(() => {
  repo.cleanup()
  rmSync(outside, { recursive: true, force: true })
})

const leaves = (link: string, to: string) =>
  `${link} is a link to ${to}, outside the project: a ralph's files must be the project's own`

test('the ralph input: a folder, a RALPH.md or a name whose files leave through a link is refused, naming the link', () => {
  for (const [input, link, to] of [
    ['.agents/ralphs/away', '.agents/ralphs/away', outside],
    ['away', '.agents/ralphs/away', outside],
    ['.agents/ralphs/leak', '.agents/ralphs/leak/RALPH.md', path.join(outside, 'RALPH.md')],
    ['.agents/ralphs/leak/RALPH.md', '.agents/ralphs/leak/RALPH.md', path.join(outside, 'RALPH.md')],
    ['leak', '.agents/ralphs/leak/RALPH.md', path.join(outside, 'RALPH.md')],
    ['elsewhere', 'elsewhere', outside]
  ])
    expect({ input, got: inputRalph(repo.dir, input) }).toEqual({ input, got: { problem: leaves(link, to) } })
  expect(inputRalph(repo.dir, outside)).toEqual({
    problem: `${outside} is outside the project: a ralph's files must be the project's own`
  })
  expect(inputRalph(repo.dir, '.agents/ralphs/ok')).toMatchObject({
    file: path.join(realpathSync(repo.dir), '.agents/ralphs/ok/RALPH.md')
  })
  expect(inputRalph(repo.dir, 'ok')).toMatchObject({ resolvedFrom: 'project' })
})

test('a comment or a label naming such a ralph gets the same line', () => {
  expect(installedRalph(repo.dir, 'away')).toEqual({
    problem: `the ralph \`away\` cannot be started: ${leaves('.agents/ralphs/away', outside)}`
  })
  expect(installedRalph(repo.dir, 'nope')).toEqual({
    problem: 'there is no ralph called `nope` in .agents/ralphs/'
  })
  expect(installedRalph(repo.dir, 'ok')).toEqual({
    dir: path.join(realpathSync(repo.dir), '.agents/ralphs/ok')
  })
})

test('a RALPH.md that is a link staying inside the project is refused too (#25), for a comment as for the input', () => {
  repo.write('notes.md', '---\nagent: cat\n---\nnot a ralph\n')
  mkdirSync(path.join(repo.dir, '.agents/ralphs/inside'))
  symlinkSync('../../../notes.md', path.join(repo.dir, '.agents/ralphs/inside/RALPH.md'))
  const line =
    '.agents/ralphs/inside/RALPH.md is a link to notes.md: the action follows no link of the work tree, not even one inside the project; make it a regular file'
  expect(installedRalph(repo.dir, 'inside')).toEqual({
    problem: `the ralph \`inside\` cannot be started: ${line}`
  })
  expect(inputRalph(repo.dir, '.agents/ralphs/inside/RALPH.md')).toEqual({ problem: line })
  // A folder that is a link inside the project still names that folder's own RALPH.md.
  symlinkSync('ok', path.join(repo.dir, '.agents/ralphs/alias'))
  expect(installedRalph(repo.dir, 'alias')).toEqual({
    dir: path.join(realpathSync(repo.dir), '.agents/ralphs/ok')
  })
})
