// A ralph's files are read as the action's user from a tree the agent owns: no link followed, anywhere on
// the way, and nothing read that is not a regular file (a FIFO is refused at once, never waited on).
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { pinTreeFile, readRegularFile, readTreeFile, TreeFileError } from '../../src/ralph/index.js'

let dir: string
beforeEach(() => {
  dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'ralph-tree-file-')))
  mkdirSync(path.join(dir, 'ralph'))
  writeFileSync(path.join(dir, 'ralph', 'RALPH.md'), 'the prompt\n')
  writeFileSync(path.join(dir, 'secret'), 'SECRET-OF-THE-ACTION\n', { mode: 0o600 })
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

const refusal = (file: string): TreeFileError => {
  try {
    readTreeFile(file)
  } catch (error) {
    if (error instanceof TreeFileError) return error
    throw error
  }
  throw new Error(`${file} was read`)
}

test('a regular file is read', () => {
  expect(readTreeFile(path.join(dir, 'ralph', 'RALPH.md')).toString()).toBe('the prompt\n')
})

test('a missing file says ENOENT', () => {
  expect(refusal(path.join(dir, 'ralph', 'GUARDRAILS.md')).code).toBe('ENOENT')
})

test.each([
  ['/proc/self/environ', '/proc/self/environ'],
  ['a file only its owner may read', 'secret']
])('RALPH.md swapped for a link to %s is refused, not followed', (_, target) => {
  const file = path.join(dir, 'ralph', 'RALPH.md')
  rmSync(file)
  symlinkSync(path.isAbsolute(target) ? target : path.join(dir, target), file)
  const error = refusal(file)
  expect(error.message).toBe(`${file} is a symbolic link: the action follows no link of the work tree`)
  expect(error.message).not.toContain('SECRET')
})

test('a folder on the way swapped for a link is refused', () => {
  mkdirSync(path.join(dir, 'elsewhere'))
  writeFileSync(path.join(dir, 'elsewhere', 'RALPH.md'), 'SECRET-OF-THE-ACTION\n')
  rmSync(path.join(dir, 'ralph'), { recursive: true })
  symlinkSync(path.join(dir, 'elsewhere'), path.join(dir, 'ralph'))
  expect(refusal(path.join(dir, 'ralph', 'RALPH.md')).message).toMatch(
    /is reached through a symbolic link \(.*\/ralph\): the action follows no link of the work tree$/
  )
})

test('a FIFO is refused at once, not waited on', () => {
  const file = path.join(dir, 'ralph', 'RALPH.md')
  rmSync(file)
  execFileSync('mkfifo', [file])
  const started = Date.now()
  expect(refusal(file).message).toMatch(/is not a regular file/)
  // No writer ever opens it: a blocking open would never return.
  expect(Date.now() - started).toBeLessThan(5000)
})

test('a folder is not a file', () => {
  expect(refusal(path.join(dir, 'ralph')).message).toMatch(/is not a regular file/)
})

test('a file past the size cap is refused', () => {
  writeFileSync(path.join(dir, 'big'), Buffer.alloc(2048))
  expect(() => readTreeFile(path.join(dir, 'big'), 1024)).toThrow(/is larger than 1024 bytes/)
})

test('a path pinned through a link the person made is read through its real path', () => {
  symlinkSync(path.join(dir, 'ralph'), path.join(dir, 'shared'))
  const pinned = pinTreeFile(path.join(dir, 'shared', 'RALPH.md'))
  expect(pinned).toBe(path.join(dir, 'ralph', 'RALPH.md'))
  expect(readTreeFile(pinned).toString()).toBe('the prompt\n')
  // A file that does not exist yet keeps its real folder.
  expect(pinTreeFile(path.join(dir, 'shared', 'new', 'G.md'))).toBe(path.join(dir, 'ralph', 'new', 'G.md'))
})

describe('pinned in the work tree: a link there (one an earlier run’s agent committed) stays in the tree', () => {
  const tree = (): string => {
    const t = path.join(dir, 'tree')
    mkdirSync(path.join(t, '.git'), { recursive: true })
    mkdirSync(path.join(t, 'r'))
    writeFileSync(path.join(t, '.git', 'config'), '[core]\n')
    writeFileSync(path.join(t, 'notes.md'), 'notes\n')
    return t
  }

  test.each([
    ['a file outside the tree', () => path.join(dir, 'secret')],
    ['a file of its .git', () => path.join(dir, 'tree', '.git', 'config')],
    ['/proc/self/environ', () => '/proc/self/environ']
  ])('RALPH.md as a link to %s is refused when pinned', (_what, target) => {
    const t = tree()
    symlinkSync(target(), path.join(t, 'r', 'RALPH.md'))
    expect(() => pinTreeFile(path.join(t, 'r', 'RALPH.md'), t)).toThrow(
      /leads through a link to .*, outside the work tree or inside its \.git: the action follows no link of the work tree$/
    )
  })

  test('a link that stays in the tree, a file not there yet, and a ralph outside the tree (the CLI’s own) are pinned', () => {
    const t = tree()
    symlinkSync(path.join(t, 'notes.md'), path.join(t, 'r', 'RALPH.md'))
    expect(pinTreeFile(path.join(t, 'r', 'RALPH.md'), t)).toBe(path.join(t, 'notes.md'))
    expect(pinTreeFile(path.join(t, 'GUARDRAILS.md'), t)).toBe(path.join(t, 'GUARDRAILS.md'))
    expect(pinTreeFile(path.join(dir, 'ralph', 'RALPH.md'), t)).toBe(path.join(dir, 'ralph', 'RALPH.md'))
  })
})

test('readRegularFile reads a regular file and refuses a link to one beside it, and a FIFO, without blocking', () => {
  writeFileSync(path.join(dir, 'real.md'), 'text\n')
  symlinkSync('real.md', path.join(dir, 'link.md'))
  execFileSync('mkfifo', [path.join(dir, 'fifo.md')])
  expect(readRegularFile(path.join(dir, 'real.md')).toString()).toBe('text\n')
  expect(() => readRegularFile(path.join(dir, 'link.md'))).toThrow(/is a symbolic link/)
  expect(() => readRegularFile(path.join(dir, 'fifo.md'))).toThrow(/is not a regular file/)
})
