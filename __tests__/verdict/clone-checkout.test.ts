// The clean checkout is what a clone gets: for every file of a commit whose .gitattributes ask for ident, eol
// and text conversions (and name filters no clone defines), the bytes cloneBytes computes from the blob and
// `git check-attr` are the bytes a real `git clone` wrote.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, expect, test } from '@jest/globals'
import { cloneBytes, parseCheckAttr } from '../../src/verdict/clone-checkout.js'
import { gitEnv } from '../git/temp-repo.js'

const dir = mkdtempSync(path.join(tmpdir(), 'ralph-clone-checkout-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const env = gitEnv(dir)
const git = (cwd: string, args: string[], input?: Buffer): Buffer =>
  execFileSync('git', args, { cwd, env, ...(input ? { input } : {}) })

const FILES: Record<string, Buffer | string> = {
  '.gitattributes': [
    'ident.js ident',
    'ident-crlf.js ident text eol=crlf',
    '*.crlf text eol=crlf',
    '*.lf text eol=lf',
    '*.auto text=auto eol=crlf',
    '*.bin binary',
    '*.text text',
    'legacy.txt crlf',
    'filtered.js filter=secret',
    'plain.md -text eol=crlf',
    ''
  ].join('\n'),
  'ident.js':
    "const id = '$Id$'; const old = '$Id: 0123 $'; const other = '$Id: by someone else $'\n$Id:\nno close $Id",
  'ident-crlf.js': 'a $Id$\nb\r\nc\n',
  'unix.crlf': 'one\ntwo\n',
  'mixed.crlf': 'one\r\ntwo\nthree\r\n',
  'lone-cr.crlf': 'one\rtwo\n',
  'unix.lf': 'one\r\ntwo\n',
  'text.auto': 'one\ntwo\n',
  'mixed.auto': 'one\r\ntwo\n',
  'binary.auto': Buffer.from([0x61, 0x0a, 0x00, 0x62, 0x0a]),
  'controls.auto': Buffer.concat([Buffer.from('a\n'), Buffer.alloc(40, 0x01), Buffer.from('\n')]),
  'dos-eof.auto': 'a\nb\n\x1a',
  'image.bin': 'a\nb\n',
  'native.text': 'a\nb\n',
  'legacy.txt': 'a\nb\n',
  'filtered.js': 'secret\n',
  'plain.md': 'a\nb\n',
  'untouched.js': "'$Id$'\n"
}

test('every file of the commit: the bytes a real clone wrote', () => {
  const repo = path.join(dir, 'repo')
  mkdirSync(repo)
  git(repo, ['init', '--quiet'])
  for (const [name, content] of Object.entries(FILES)) writeFileSync(path.join(repo, name), content)
  // Committed as the bytes above: no conversion on the way in (the attributes are a clone's business).
  git(repo, ['-c', 'core.autocrlf=false', 'add', '-A'])
  git(repo, ['commit', '--quiet', '-m', 'attributes'])
  const clone = path.join(dir, 'clone')
  git(dir, ['clone', '--quiet', repo, clone])

  // What the verification would ask git: the commit's attributes from a private index, its blobs by id.
  const index = path.join(dir, 'index')
  const indexEnv = { GIT_INDEX_FILE: index }
  execFileSync('git', ['read-tree', 'HEAD'], { cwd: repo, env: { ...env, ...indexEnv } })
  const names = Object.keys(FILES)
  const attrs = parseCheckAttr(
    execFileSync('git', ['check-attr', '--cached', '-a', '-z', '--stdin'], {
      cwd: repo,
      env: { ...env, ...indexEnv },
      input: Buffer.from(names.join('\0') + '\0')
    })
  )
  const differing: string[] = []
  const converted: string[] = []
  for (const name of names) {
    const oid = git(repo, ['rev-parse', `HEAD:${name}`])
      .toString()
      .trim()
    const blob = git(repo, ['cat-file', 'blob', oid])
    const got = cloneBytes(blob, oid, attrs.get(name) ?? {})
    if (!('bytes' in got)) throw new Error(got.why)
    const wrote = readFileSync(path.join(clone, name))
    if (!wrote.equals(blob)) converted.push(name)
    if (!got.bytes.equals(wrote))
      differing.push(
        `${name}: ${JSON.stringify(got.bytes.toString('latin1'))} vs ${JSON.stringify(wrote.toString('latin1'))}`
      )
  }
  expect(differing).toEqual([])
  // And the cases are live: these a clone writes otherwise than their blob.
  expect(converted.sort()).toEqual(
    [
      'dos-eof.auto',
      'ident-crlf.js',
      'ident.js',
      'lone-cr.crlf',
      'mixed.auto',
      'mixed.crlf',
      'text.auto',
      'unix.crlf'
    ].sort()
  )
})

test('a path that a clone re-encodes is not reproduced: the line says why', () => {
  expect(cloneBytes(Buffer.from('a\n'), '0'.repeat(40), { 'working-tree-encoding': 'UTF-16' })).toEqual({
    why: 'a clone re-encodes it (working-tree-encoding=UTF-16)'
  })
})
