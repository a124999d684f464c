// The bounds on the agent's user (issue #25), decided in-process: the argv that caps its processes
// (RLIMIT_NPROC, set by root before the switch; never on the kills, which must run at the cap), the option
// that sets the cap, and which files the release's sweep removes from the shared temp folders (run as root on
// a folder of the test's: a uid's files, links never followed, nothing of another uid).
import { execFileSync, spawnSync } from 'node:child_process'
import {
  chmodSync,
  existsSync,
  lchownSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync
} from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { describe, expect, test } from '@jest/globals'
import { UsageError } from '../../src/cli/argv.js'
import { loopSettings } from '../../src/cli/options.js'
import { asAgent } from '../../src/security/index.js'
import { SYSTEM_PATH, trustedProgram } from '../../src/proc/index.js'
import { SWEEP_FILES } from '../../src/security/scripts.js'
import { describeIsolated } from '../support/isolation.js'

const user = { name: 'ralph-agent', uid: 1234, gid: 1235, home: '/var/lib/ralph-action/ralph-agent' }
// By absolute path, from the system's folders: a PATH entry the agent can write never picks what root runs.
const abs = (name: string): string =>
  execFileSync('bash', ['-c', `PATH=${SYSTEM_PATH} command -v ${name}`], { encoding: 'utf8' }).trim()
const SETPRIV = [abs('setpriv'), '--reuid=1234', '--regid=1235', '--clear-groups', '--no-new-privs', '--']

describe("the agent's process cap", () => {
  test('root sets it (soft and hard) before setpriv switches to the uid; through sudo, root as well', () => {
    expect(asAgent({ privilege: 'root', user }, ['agent', '-p'], 200)).toEqual([
      abs('prlimit'),
      '--nproc=200:200',
      '--',
      ...SETPRIV,
      'agent',
      '-p'
    ])
    expect(asAgent({ privilege: 'sudo', user }, ['agent'], 4096)).toEqual([
      abs('sudo'),
      '-n',
      '--',
      abs('prlimit'),
      '--nproc=4096:4096',
      '--',
      ...SETPRIV,
      'agent'
    ])
  })

  test('root never finds them through the PATH: a prlimit planted first on it is not what runs', () => {
    const planted = mkdtempSync(path.join(tmpdir(), 'ralph-planted-'))
    writeFileSync(path.join(planted, 'prlimit'), '#!/bin/sh\nexit 0\n', { mode: 0o755 })
    const before = process.env.PATH
    process.env.PATH = `${planted}:.:${before}`
    try {
      expect(asAgent({ privilege: 'root', user }, ['agent'], 64)[0]).toBe(abs('prlimit'))
      expect(trustedProgram('prlimit', true)).not.toContain(planted)
    } finally {
      process.env.PATH = before
      rmSync(planted, { recursive: true, force: true })
    }
  })

  test('the kills go uncapped: a capped exec as a uid at its cap fails (EAGAIN)', () => {
    expect(asAgent({ privilege: 'root', user }, ['bash', '-c', 'kill -s KILL -1'])).toEqual([
      ...SETPRIV,
      'bash',
      '-c',
      'kill -s KILL -1'
    ])
  })

  test('the CLI takes --agent-max-processes, at least 32', () => {
    expect(loopSettings({ agentMaxProcesses: 300 }).agentMaxProcesses).toBe(300)
    expect(loopSettings({}).agentMaxProcesses).toBeUndefined()
    expect(() => loopSettings({ agentMaxProcesses: 8 })).toThrow(
      new UsageError(
        "'--agent-max-processes' must be at least 32 (threads count, and a node program alone has about ten), got 8."
      )
    )
  })
})

/** A uid and a gid no test user has: the sweep needs no user, only files that carry its number. */
const UID = 64_999
const OTHER = 64_998

/** Runs the sweep as this (root) process, leaving `keep` alone; answers its output lines. */
function sweep(seconds: string, ...places: string[]): string[] {
  return sweepBut('', seconds, ...places)
}

function sweepBut(keep: string, seconds: string, ...places: string[]): string[] {
  const script = `set -u\nproblem() { printf 'problem %s\\n' "$*"; }\n${SWEEP_FILES}\nsweep_files "$@"`
  const out = execFileSync('bash', ['-c', script, 'sweep', String(UID), seconds, keep, ...places], {
    encoding: 'utf8'
  })
  return out.split('\n').filter(Boolean)
}

describeIsolated(
  'the sweep of the agent’s files',
  process.getuid?.() === 0 ? undefined : 'giving files to another uid needs root'
)('the sweep of what the agent left in the shared temp folders', () => {
  test('it removes every file, link and emptied folder of the uid, follows no link, and keeps what is another uid’s', () => {
    const top = mkdtempSync(path.join(tmpdir(), 'ralph-sweep-'))
    try {
      const at = (name: string): string => path.join(top, name)
      const rootFile = at('roots')
      writeFileSync(rootFile, 'root')
      mkdirSync(at('agent-dir/nested'), { recursive: true })
      writeFileSync(at('agent-dir/nested/deep'), '')
      writeFileSync(at('agent-file'), '')
      execFileSync('cp', ['/bin/bash', at('suid-sh')])
      chmodSync(at('suid-sh'), 0o4755)
      symlinkSync(rootFile, at('link-to-root'))
      symlinkSync(top, at('link-to-top'))
      // The agent's open folder (1777) where another user then wrote: that file, and so its folder, stay.
      mkdirSync(at('agent-open'))
      chmodSync(at('agent-open'), 0o1777)
      writeFileSync(at('agent-open/others'), 'other')
      writeFileSync(at('others'), 'other')
      const agents = [
        'agent-dir/nested/deep',
        'agent-dir/nested',
        'agent-dir',
        'agent-file',
        'suid-sh',
        'link-to-root',
        'link-to-top',
        'agent-open'
      ]
      for (const name of agents) lchownSync(at(name), UID, UID)
      for (const name of ['agent-open/others', 'others']) lchownSync(at(name), OTHER, OTHER)
      // A place that is a link is not walked (only the folders named); one that is not there is skipped.
      symlinkSync(at('agent-dir'), path.join(tmpdir(), `ralph-sweep-link-${process.pid}`))
      const lines = sweep('60', top, path.join(tmpdir(), `ralph-sweep-link-${process.pid}`), '/no/such/place')
      rmSync(path.join(tmpdir(), `ralph-sweep-link-${process.pid}`), { force: true })
      expect(lines).toEqual(['swept 7'])
      const left = (name: string): boolean => {
        try {
          lstatSync(at(name))
          return true
        } catch {
          return false
        }
      }
      expect(agents.filter(left)).toEqual(['agent-open'])
      expect(readFileSync(rootFile, 'utf8')).toBe('root')
      expect(readFileSync(at('agent-open/others'), 'utf8')).toBe('other')
      expect(readFileSync(at('others'), 'utf8')).toBe('other')
      expect(existsSync(top)).toBe(true)
    } finally {
      rmSync(top, { recursive: true, force: true })
    }
  })

  test('what lies in the work tree it is told to keep is left, named by any path, glob characters and all', () => {
    const top = mkdtempSync(path.join(tmpdir(), 'ralph-sweep-'))
    try {
      const tree = path.join(top, 'work [*?] tree')
      mkdirSync(path.join(tree, 'deep'), { recursive: true })
      writeFileSync(path.join(tree, 'deep', 'kept'), '')
      // A folder beside it whose name the tree's path, read as a glob, would match.
      mkdirSync(path.join(top, 'work x tree'))
      writeFileSync(path.join(top, 'work x tree', 'gone'), '')
      writeFileSync(path.join(top, 'gone'), '')
      for (const name of [
        'work [*?] tree/deep/kept',
        'work [*?] tree/deep',
        'work x tree/gone',
        'work x tree',
        'gone'
      ])
        lchownSync(path.join(top, name), UID, UID)
      // Named through a link, as a work tree may be: still the same folder.
      const link = path.join(tmpdir(), `ralph-sweep-tree-${process.pid}`)
      symlinkSync(tree, link)
      try {
        expect(sweepBut(link, '60', top)).toEqual(['swept 3'])
      } finally {
        rmSync(link, { force: true })
      }
      expect(readFileSync(path.join(tree, 'deep', 'kept'), 'utf8')).toBe('')
      expect(existsSync(path.join(top, 'work x tree'))).toBe(false)
      expect(existsSync(path.join(top, 'gone'))).toBe(false)
    } finally {
      rmSync(top, { recursive: true, force: true })
    }
  })

  test('it stops at its time limit and says so in one line', () => {
    // A walk of /usr cannot end in a millisecond: cut, said, and nothing of the uid's exists there to remove.
    const lines = sweep('0.001', '/usr')
    expect(lines[0]).toMatch(/^problem the removal of uid 64999's files from \/usr ran out of its 0\.001 s/)
    expect(lines[1]).toMatch(/^swept \d+$/)
  })

  test('nothing to walk: none removed', () => {
    expect(sweep('10', '/no/such/place')).toEqual(['swept 0'])
    expect(spawnSync('bash', ['-n', '-c', SWEEP_FILES]).status).toBe(0)
  })
})
