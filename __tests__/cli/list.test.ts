// `ralph-action list` / `mode: list`: the installed ralphs as JSON that plugs into `strategy.matrix`.
import { mkdirSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { listCommand, MAX_MATRIX_JOBS, ralphMatrix } from '../../src/cli/list.js'
import type { CliIO } from '../../src/cli/io.js'
import { availableRalphs, installedRalph } from '../../src/ralph/installed.js'
import { tempDir, tempRepo, type TempRepo } from '../git/temp-repo.js'

let repo: TempRepo
beforeEach(() => {
  repo = tempRepo({ commit: false })
})
afterEach(() => repo.cleanup())

const install = (...names: string[]) => {
  for (const name of names)
    repo.write(path.join('.agents/ralphs', name, 'RALPH.md'), '---\nagent: cat\n---\nx\n')
}

/**
 * GitHub's rules for a matrix given as `${{ fromJSON(...) }}`: a mapping; every key other than include and
 * exclude a non-empty list; include/exclude lists of mappings; at most 256 jobs.
 */
function matrixProblems(matrix: unknown): string[] {
  if (!matrix || typeof matrix !== 'object' || Array.isArray(matrix)) return ['a matrix is a mapping']
  const problems: string[] = []
  let jobs = 1
  for (const [key, value] of Object.entries(matrix)) {
    if (!Array.isArray(value)) problems.push(`${key} is not a list`)
    else if (key === 'include' || key === 'exclude') {
      if (value.some(v => !v || typeof v !== 'object' || Array.isArray(v)))
        problems.push(`${key} holds a non-mapping`)
    } else if (value.length === 0) problems.push(`Matrix vector '${key}' does not contain any values`)
    else jobs *= value.length
  }
  if (Object.keys(matrix).length === 0) problems.push('Matrix must define at least one vector')
  if (jobs > 256) problems.push('more than 256 jobs')
  return problems
}

async function list(): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = ''
  let stderr = ''
  const io: CliIO = {
    cwd: repo.dir,
    env: {},
    home: '/nonexistent',
    stdout: t => void (stdout += t),
    stderr: t => void (stderr += t),
    interactive: false
  }
  const code = await listCommand([], io)
  return { code, stdout, stderr }
}

test('the output is valid matrix JSON: one vector, `ralph`, sorted', async () => {
  install('docs', 'bug-hunter', 'fix_tests')
  const { code, stdout } = await list()
  expect(code).toBe(0)
  const matrix = JSON.parse(stdout)
  expect(matrix).toEqual({ ralph: ['bug-hunter', 'docs', 'fix_tests'] })
  expect(matrixProblems(matrix)).toEqual([])
  expect(stdout.endsWith('}\n')).toBe(true)
})

test('names a matrix value, a branch or a concurrency group cannot carry safely are left out, with a note', async () => {
  install('ok', 'has space', '$(touch pwned)')
  repo.write('.agents/ralphs/not-a-ralph/notes.md', 'x')
  const { stdout, stderr } = await list()
  expect(JSON.parse(stdout)).toEqual({ ralph: ['ok'] })
  expect(stderr).toContain('Skipped "$(touch pwned)": a ralph\'s name may only hold letters, digits, - and _')
  expect(stderr).toContain('Skipped "has space"')
})

test('folders named like options (-rf, --help) are left out, with a note, and no door runs them', async () => {
  install('ok', '-rf', '--help', '-')
  const { code, stdout, stderr } = await list()
  expect(code).toBe(0)
  expect(JSON.parse(stdout)).toEqual({ ralph: ['ok'] })
  for (const name of ['-rf', '--help', '-'])
    expect(stderr).toContain(
      `Skipped ${name}: a ralph's name may not start with - (a command could read it as an option): rename its folder`
    )
  // The same rule for a comment's or a label's name (`ralph:-rf`): it names no ralph that can run.
  expect(availableRalphs(repo.dir)).toEqual(['ok'])
  expect(installedRalph(repo.dir, '-rf')).toEqual({ problem: expect.stringMatching(/may not start with -/) })
})

test('no ralphs: an empty vector and count 0, which a workflow must guard (GitHub rejects an empty vector)', async () => {
  const result = ralphMatrix(repo.dir)
  expect(result).toEqual({ matrix: { ralph: [] }, count: 0, skipped: [] })
  expect(matrixProblems(result.matrix)).toEqual(["Matrix vector 'ralph' does not contain any values"])
  expect(JSON.parse((await list()).stdout)).toEqual({ ralph: [] })
})

test('more ralphs than a matrix runs are cut at 256, and the rest named', () => {
  install(...Array.from({ length: MAX_MATRIX_JOBS + 2 }, (_, i) => `r${String(i).padStart(3, '0')}`))
  const result = ralphMatrix(repo.dir)
  expect(result.count).toBe(256)
  expect(matrixProblems(result.matrix)).toEqual([])
  expect(result.skipped).toEqual([
    'r256: a matrix runs at most 256 jobs',
    'r257: a matrix runs at most 256 jobs'
  ])
})

test('a ralph whose folder or RALPH.md is a link out of the project is not listed: one line names the link', () => {
  install('ok')
  const outside = tempDir('ralph-outside-')
  try {
    writeFileSync(path.join(outside, 'RALPH.md'), '---\nagent: cat\n---\nSECRET\n')
    symlinkSync(outside, path.join(repo.dir, '.agents/ralphs/away'))
    mkdirSync(path.join(repo.dir, '.agents/ralphs/leak'))
    symlinkSync(path.join(outside, 'RALPH.md'), path.join(repo.dir, '.agents/ralphs/leak/RALPH.md'))
    // A link that stays inside the project is the project's own.
    symlinkSync(path.join(repo.dir, '.agents/ralphs/ok'), path.join(repo.dir, '.agents/ralphs/alias'))
    const result = ralphMatrix(repo.dir)
    expect(result.matrix).toEqual({ ralph: ['alias', 'ok'] })
    expect(result.skipped).toEqual([
      `away: the ralph \`away\` cannot be started: .agents/ralphs/away is a link to ${realpathSync(outside)}, outside the project: a ralph's files must be the project's own`,
      `leak: the ralph \`leak\` cannot be started: .agents/ralphs/leak/RALPH.md is a link to ${realpathSync(outside)}/RALPH.md, outside the project: a ralph's files must be the project's own`
    ])
  } finally {
    rmSync(outside, { recursive: true, force: true })
  }
})
