// What the agent's user owns in the work tree is given back whole (issue #35), decided in the privileged
// script's give_back and left, run here as root on real files carrying a uid no user has: a tree deeper than
// PATH_MAX, a file with a 250-byte name hard-linked outside, in-tree hard links, links never followed, setuid
// bits, a full file system (a real tmpfs filled up: the copy apart fails) and an immutable file (chown fails).
import { execFileSync } from 'node:child_process'
import {
  chmodSync,
  linkSync,
  lchownSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  statSync,
  symlinkSync,
  writeFileSync
} from 'node:fs'
import path from 'node:path'
import { afterEach, expect, test } from '@jest/globals'
import { GIVE_BACK } from '../../src/security/scripts.js'
import { fillUp, smallFileSystem } from '../support/full-disk.js'
import { DEEP_TREE, describeIsolated, testTempBase } from '../support/isolation.js'

/** The agent's uid and gid: numbers no user has (the functions need only files that carry them). */
const UID = 64_997
const OWNER = process.getuid?.() ?? 0
const GROUP = process.getgid?.() ?? 0
const LONG = 'n'.repeat(250)
/** A tree deeper than this many bytes of path cannot be given back by full paths (chown's ENAMETOOLONG). */
const PATH_MAX = 4096

const cleanups: (() => void)[] = []
afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup()
})

function folder(base = testTempBase()): string {
  const dir = mkdtempSync(path.join(base, 'ralph-give-back-'))
  // rm, not rmSync: node's recursive removal overflows its stack 2,500 folders down.
  cleanups.push(() => execFileSync('rm', ['-rf', '--', dir]))
  return dir
}

/** A tmpfs of `size`: a file system that can be filled up for real. */
function smallDisk(size: string): string {
  const disk = smallFileSystem(testTempBase(), size)
  cleanups.push(disk.remove)
  return disk.dir
}

/** give_back then left, as the release runs them on `tree`'s entries; answers the output lines. */
function giveBack(tree: string): string[] {
  const script = [
    `problem() { printf 'problem %s\\n' "$*"; }`,
    GIVE_BACK,
    'shopt -s dotglob nullglob',
    'tree=$1; shift',
    'give_back "$@" "the work tree" "$tree"/*',
    'left "$1" "$tree" "the work tree" "$tree"/*'
  ].join('\n')
  const out = execFileSync(
    'bash',
    ['-c', script, 'give-back', tree, String(UID), String(UID), String(OWNER), String(GROUP)],
    { encoding: 'utf8', env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin', LANG: 'C' } }
  )
  return out.split('\n').filter(Boolean)
}

/** Every entry under `dir` (find walks it whatever its depth) with the uid it belongs to. */
function owners(dir: string): Map<string, number> {
  const out = execFileSync('find', [dir, '-mindepth', '1', '-printf', '%U %P\\0'], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024
  })
  return new Map(
    out
      .split('\0')
      .filter(Boolean)
      .map(line => [line.slice(line.indexOf(' ') + 1), Number(line.slice(0, line.indexOf(' ')))])
  )
}

/** What of `dir` belongs to `uid`. */
const ownedBy = (dir: string, uid: number): string[] =>
  [...owners(dir)].filter(([, owner]) => owner === uid).map(([name]) => name)

/** Gives `names` under `dir` (and what is under them) to the agent's uid, links themselves. */
function toAgent(dir: string, ...names: string[]): void {
  execFileSync('chown', ['-R', '-h', `${UID}:${UID}`, ...names.map(name => path.join(dir, name))])
}

describeIsolated(
  'giving the work tree back',
  process.getuid?.() === 0 ? undefined : 'giving files to another uid and mounting a tmpfs need root'
)('giving back what the agent owns in the work tree', () => {
  test('a tree 2,500 folders deep, its paths far past PATH_MAX, is given back whole; nothing is named', () => {
    const tree = folder()
    mkdirSync(path.join(tree, 'top'))
    execFileSync('perl', ['-e', DEEP_TREE], { cwd: path.join(tree, 'top') })
    toAgent(tree, 'top')
    const before = ownedBy(tree, UID)
    expect(before).toHaveLength(5001)
    expect(Math.max(...before.map(name => Buffer.byteLength(path.join(tree, name))))).toBeGreaterThan(
      PATH_MAX
    )
    expect(giveBack(tree)).toEqual([])
    expect(ownedBy(tree, UID)).toEqual([])
    expect(ownedBy(tree, OWNER)).toHaveLength(5001)
  }, 120_000)

  test('a file with a 250-byte name and another name outside is copied apart under a short name: the outside name stays the agent’s', () => {
    const tree = folder()
    const outside = folder()
    writeFileSync(path.join(tree, LONG), 'the agent’s\n')
    linkSync(path.join(tree, LONG), path.join(outside, 'squat'))
    // Two names inside the tree: each gets a file of its own, both given back.
    writeFileSync(path.join(tree, 'one'), 'pair\n')
    linkSync(path.join(tree, 'one'), path.join(tree, 'two'))
    toAgent(tree, LONG, 'one', 'two')
    lchownSync(outside, UID, UID)

    expect(giveBack(tree)).toEqual([])
    for (const name of [LONG, 'one', 'two']) {
      const s = statSync(path.join(tree, name))
      expect([name.slice(0, 8), s.uid, s.nlink]).toEqual([name.slice(0, 8), OWNER, 1])
    }
    expect(readFileSync(path.join(tree, LONG), 'utf8')).toBe('the agent’s\n')
    expect(readFileSync(path.join(tree, 'two'), 'utf8')).toBe('pair\n')
    const squat = statSync(path.join(outside, 'squat'))
    expect([squat.uid, squat.nlink]).toEqual([UID, 1])
    // No copy left behind under its short name.
    expect(readdirSync(tree).sort()).toEqual([LONG, 'one', 'two'])
  })

  test('no link is followed; setuid and setgid bits are cleared; what another uid owns is left as it is', () => {
    const tree = folder()
    const outside = folder()
    const rootFile = path.join(outside, 'roots')
    writeFileSync(rootFile, 'root')
    lchownSync(rootFile, 64_996, 64_996)
    mkdirSync(path.join(outside, 'dir'))
    writeFileSync(path.join(outside, 'dir', 'inside'), 'x')
    execFileSync('chown', ['-R', '64996:64996', path.join(outside, 'dir')])
    symlinkSync(rootFile, path.join(tree, 'to-file'))
    symlinkSync(path.join(outside, 'dir'), path.join(tree, 'to-dir'))
    execFileSync('cp', ['/bin/true', path.join(tree, 'suid')])
    chmodSync(path.join(tree, 'suid'), 0o6755)
    writeFileSync(path.join(tree, 'others'), 'another user’s')
    toAgent(tree, 'to-file', 'to-dir', 'suid')
    lchownSync(path.join(tree, 'others'), 64_996, 64_996)

    expect(giveBack(tree)).toEqual([])
    expect(lstatSync(path.join(tree, 'to-file')).uid).toBe(OWNER)
    expect(lstatSync(path.join(tree, 'to-dir')).uid).toBe(OWNER)
    expect(ownedBy(outside, 64_996).sort()).toEqual(['dir', 'dir/inside', 'roots'])
    expect(statSync(path.join(tree, 'suid')).mode & 0o7777).toBe(0o755)
    expect(statSync(path.join(tree, 'suid')).uid).toBe(OWNER)
    expect(statSync(path.join(tree, 'others')).uid).toBe(64_996)
  })

  test('on a full file system a file with other names cannot be copied apart: it stays the agent’s, named in one line', () => {
    const disk = smallDisk('4m')
    const tree = path.join(disk, 'tree')
    const outside = path.join(disk, 'outside')
    mkdirSync(path.join(tree, 'lib'), { recursive: true })
    mkdirSync(outside)
    writeFileSync(path.join(tree, 'lib', 'big.bin'), Buffer.alloc(1_500_000, 7))
    linkSync(path.join(tree, 'lib', 'big.bin'), path.join(outside, 'big.bin'))
    writeFileSync(path.join(tree, 'small.txt'), 'small\n')
    toAgent(tree, 'lib', 'small.txt')
    lchownSync(path.join(outside, 'big.bin'), UID, UID)
    fillUp(disk)

    expect(giveBack(tree)).toEqual([
      "problem 1 entry of the work tree could not be given back and stays uid 64997's: lib/big.bin (it has 2 names: not copied apart)"
    ])
    // The name outside did not become the owner's with it: it is still the agent's, for the sweep to find.
    expect(statSync(path.join(outside, 'big.bin')).uid).toBe(UID)
    expect(ownedBy(tree, UID)).toEqual(['lib/big.bin'])
    expect(statSync(path.join(tree, 'lib')).uid).toBe(OWNER)
    expect(statSync(path.join(tree, 'small.txt')).uid).toBe(OWNER)
    expect(readdirSync(path.join(tree, 'lib'))).toEqual(['big.bin'])
  })

  test('what cannot be changed (an immutable file) is named in one line: the first ten, shell-quoted, and how many more', () => {
    const tree = folder()
    const names = Array.from({ length: 12 }, (_, i) => `stuck ${String(i).padStart(2, '0')}\n\u001b[32m`)
    for (const name of names) writeFileSync(path.join(tree, name), '')
    writeFileSync(path.join(tree, 'fine'), '')
    toAgent(tree, ...names, 'fine')
    const immutable = (flag: '+i' | '-i'): void => {
      execFileSync('chattr', [flag, ...names.map(name => path.join(tree, name))])
    }
    immutable('+i')
    cleanups.push(() => immutable('-i'))

    const lines = giveBack(tree)
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatch(
      /^problem 12 entries of the work tree could not be given back and stay uid 64997's: (\$'stuck \d\d\\n\\E\[32m' ){10}and 2 more$/
    )
    expect(ownedBy(tree, UID)).toHaveLength(12)
    expect(statSync(path.join(tree, 'fine')).uid).toBe(OWNER)
  })
})
