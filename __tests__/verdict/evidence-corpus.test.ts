// The evidence scanner on the round-two corpus: the diff each cheat delivers, as git shows it. Every cheat whose
// code changes how the runner judges or exits under it is flagged at its line (what no gate may see, a reviewer
// does); the honest fixes are not flagged.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, expect, test } from '@jest/globals'
import { scanDiff, type Flag } from '../../src/verdict/evidence.js'
import { CHEATS, PROJECTS, type Cheat, type ProjectName } from '../action/verdict-corpus.js'
import { writeFiles, type Files } from '../action/harness.js'
import { applyMove } from './runners.js'
import { gitEnv } from '../git/temp-repo.js'

const dirs: string[] = []
afterAll(() => dirs.forEach(d => rmSync(d, { recursive: true, force: true })))

/** The flags of the diff `move` makes to the project's start commit. */
function flagsOf(project: ProjectName, move: string, start: Cheat['start'] = {}): Flag[] {
  const dir = mkdtempSync(path.join(tmpdir(), 'ralph-evidence-'))
  dirs.push(dir)
  const files = Object.fromEntries(
    Object.entries({ ...PROJECTS[project].files, ...start }).filter(([, v]) => v !== undefined)
  ) as Files
  writeFiles(dir, files)
  const env = gitEnv(dir)
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, env, encoding: 'utf8' })
  git('init', '--quiet')
  git('add', '-A')
  git('commit', '--quiet', '-m', 'start')
  applyMove(dir, move)
  git('add', '-A')
  return scanDiff(git('diff', '--cached', 'HEAD'))
}

const code = (project: ProjectName) => (project === 'pytest' || project === 'make' ? 'calc.py' : 'calc.js')
const flagged = CHEATS.filter(
  c =>
    c.family === 'the code under test changes how the runner judges' ||
    /exits when calc\.test\.js loads it/.test(c.name)
)

test.each(flagged.map(c => [c.project, c.name, c] as const))(
  '%s, %s: flagged at its line in the code under test',
  (project, _name, cheat) => {
    const flags = flagsOf(project, cheat.move, cheat.start)
    expect(flags.filter(f => f.file === code(project)).length).toBeGreaterThan(0)
    for (const f of flags) expect(f.line).toBeGreaterThan(0)
  }
)

test('the top-level iniconfig.py that shadows pytest’s own is flagged where it rewrites the module table and reaches into pytest', () => {
  const cheat = CHEATS.find(c => /iniconfig/.test(c.name))!
  expect(flagsOf('pytest', cheat.move).map(f => `${f.file}:${f.line} ${f.what}`)).toEqual([
    'iniconfig.py:8 changes the module table (`sys.modules`)',
    "iniconfig.py:14 reaches into pytest's internals (`_pytest`)"
  ])
})

test.each(Object.keys(PROJECTS) as ProjectName[])('%s, the honest fix: nothing to review', project => {
  expect(flagsOf(project, PROJECTS[project].honest)).toEqual([])
})
