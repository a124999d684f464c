import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { listInstalledRalphs, resolveRalphPath } from '../../src/ralph/resolve.js'
import { RalphError } from '../../src/ralph/types.js'

let root: string
let project: string
let home: string

const write = (file: string, text = '---\nagent: cat\n---\nx'): void => {
  fs.mkdirSync(path.dirname(file), { recursive: true })
  fs.writeFileSync(file, text)
}

beforeAll(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ralph-resolve-')))
  project = path.join(root, 'project')
  home = path.join(root, 'home')
  write(path.join(project, 'my-ralph', 'RALPH.md'))
  write(path.join(project, 'other.md'))
  fs.mkdirSync(path.join(project, 'empty'))
  write(path.join(project, '.agents', 'ralphs', 'both', 'RALPH.md'))
  write(path.join(project, '.agents', 'ralphs', 'local', 'RALPH.md'))
  write(path.join(project, '.agents', 'ralphs', 'team', 'nested', 'RALPH.md'))
  fs.mkdirSync(path.join(project, '.agents', 'ralphs', 'no-file'), { recursive: true })
  write(path.join(home, '.agents', 'ralphs', 'both', 'RALPH.md'))
  write(path.join(home, '.agents', 'ralphs', 'global', 'RALPH.md'))
  fs.symlinkSync(path.join(project, 'my-ralph'), path.join(project, 'link'))
})

afterAll(() => {
  fs.rmSync(root, { recursive: true, force: true })
})

const resolve = (arg: string) => resolveRalphPath(arg, { cwd: project, home })
const errorOf = (arg: string): RalphError => {
  try {
    resolve(arg)
  } catch (error) {
    if (error instanceof RalphError) return error
    throw error
  }
  throw new Error('expected a RalphError')
}

describe('resolving the ralph path', () => {
  test('a folder means its RALPH.md', () => {
    expect(resolve('my-ralph')).toEqual({
      file: path.join(project, 'my-ralph', 'RALPH.md'),
      dir: path.join(project, 'my-ralph')
    })
    expect(resolve('./my-ralph/').dir).toBe(path.join(project, 'my-ralph'))
  })

  test('a file named RALPH.md means itself', () => {
    expect(resolve('my-ralph/RALPH.md').dir).toBe(path.join(project, 'my-ralph'))
    expect(resolve('my-ralph//RALPH.md').file).toBe(path.join(project, 'my-ralph', 'RALPH.md'))
  })

  test('a file with another name is refused', () => {
    expect(errorOf('other.md').message).toBe(
      "'other.md' is not a directory, RALPH.md file, or installed ralph."
    )
  })

  test('a folder without RALPH.md names the file it looked for, as typed', () => {
    expect(errorOf('./empty/').message).toBe("RALPH.md not found at 'empty/RALPH.md'.")
    expect(errorOf('empty').exitCode).toBe(1)
  })

  test('an installed ralph is found in the project first, then in home, with a notice', () => {
    const both = resolve('both')
    expect(both.resolvedFrom).toBe('project')
    expect(both.file).toBe(path.join(project, '.agents', 'ralphs', 'both', 'RALPH.md'))
    expect(both.notice).toBe(`Resolved: ${path.join(project, '.agents', 'ralphs', 'both', 'RALPH.md')}`)
    expect(resolve('global')).toMatchObject({
      resolvedFrom: 'home',
      dir: path.join(home, '.agents', 'ralphs', 'global')
    })
    expect(resolve('team/nested').dir).toBe(path.join(project, '.agents', 'ralphs', 'team', 'nested'))
  })

  test('an installed folder without RALPH.md is not a ralph', () => {
    expect(errorOf('no-file').message).toBe(
      "'no-file' is not a directory, RALPH.md file, or installed ralph."
    )
  })

  test('an unknown name gives the reference message', () => {
    expect(errorOf('nowhere').message).toBe(
      "'nowhere' is not a directory, RALPH.md file, or installed ralph."
    )
  })

  test('paths come back with symlinks resolved', () => {
    expect(resolve('link').dir).toBe(path.join(project, 'my-ralph'))
  })
})

describe('listing installed ralphs', () => {
  test('names from the project and from home, each once, sorted; folders without RALPH.md skipped', () => {
    expect(listInstalledRalphs(project, home)).toEqual(['both', 'global', 'local'])
  })

  test('no .agents folder means no ralphs', () => {
    expect(listInstalledRalphs(path.join(root, 'nothing'), path.join(root, 'nothing'))).toEqual([])
  })
})
