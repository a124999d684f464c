import { mkdirSync, openSync, readFileSync, readSync, closeSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

import { combineOutput, decodeCaptured, runProcess } from '../../src/proc/index.js'
import { fixture, tempDir, text } from './helpers.js'

let dir: string
let cleanup: () => void
beforeEach(() => ({ dir, cleanup } = tempDir()))
afterEach(() => cleanup())

const bash = (script: string): string[] => ['bash', '-c', script]

describe('runProcess: exit status and output', () => {
  test('reports the exit code', async () => {
    expect((await runProcess({ argv: ['true'], cwd: dir })).exitCode).toBe(0)
    const r = await runProcess({ argv: bash('exit 7'), cwd: dir })
    expect(r).toMatchObject({ exitCode: 7, signal: null, timedOut: false, aborted: false })
    expect(r.spawnError).toBeUndefined()
  })

  test('a program killed by a signal has no exit code but the signal', async () => {
    const r = await runProcess({ argv: bash('kill -USR1 $$'), cwd: dir })
    expect(r).toMatchObject({ exitCode: null, signal: 'SIGUSR1', timedOut: false })
  })

  test('keeps stdout and stderr apart; combineOutput joins them the reference way', async () => {
    const r = await runProcess({ argv: bash('printf out; printf err >&2; printf more'), cwd: dir })
    expect(text(r.stdout)).toBe('outmore')
    expect(text(r.stderr)).toBe('err')
    expect(combineOutput(decodeCaptured(r.stdout), decodeCaptured(r.stderr))).toBe('outmore\nerr')
  })

  test('runs in cwd with exactly the environment given, and no shell', async () => {
    const r = await runProcess({ argv: ['/usr/bin/env'], cwd: dir, env: { ONLY: 'this' } })
    expect(text(r.stdout)).toBe('ONLY=this\n')
    const pwd = await runProcess({ argv: ['pwd'], cwd: dir })
    expect(text(pwd.stdout).trim()).toBe(dir)
    const literal = await runProcess({ argv: ['echo', '$HOME', '&&', '*'], cwd: dir })
    expect(text(literal.stdout)).toBe('$HOME && *\n')
  })

  test('keeps the head and the tail of an output larger than captureLimit', async () => {
    const r = await runProcess({ argv: ['printf', 'abcdefghijklmnopqrstuvwxyz'], cwd: dir, captureLimit: 10 })
    expect(r.stdout).toMatchObject({ totalBytes: 26, truncated: true })
    expect(r.stdout.head.toString()).toBe('abcde')
    expect(r.stdout.tail.toString()).toBe('vwxyz')
  })

  test('passes every chunk to onStdout and onStderr as it arrives', async () => {
    const out: Buffer[] = []
    const err: Buffer[] = []
    await runProcess({
      argv: bash('seq 1 20000; echo oops >&2'),
      cwd: dir,
      captureLimit: 16,
      onStdout: c => out.push(c),
      onStderr: c => err.push(c)
    })
    const expected = Array.from({ length: 20000 }, (_, i) => `${i + 1}\n`).join('')
    expect(Buffer.concat(out).toString()).toBe(expected)
    expect(Buffer.concat(err).toString()).toBe('oops\n')
  })

  test('a callback that throws kills the program and rejects the run', async () => {
    const run = runProcess({
      argv: bash('echo hello; exec sleep 30'),
      cwd: dir,
      killGraceMs: 100,
      onStdout: () => {
        throw new Error('parser broke')
      }
    })
    await expect(run).rejects.toThrow('parser broke')
  })
})

describe('runProcess: stdin', () => {
  test('writes input to stdin and closes it', async () => {
    const r = await runProcess({ argv: ['cat'], cwd: dir, input: 'the prompt\nline 2' })
    expect(text(r.stdout)).toBe('the prompt\nline 2')
  })

  test('a program that reads stdin gets end-of-file at once when there is no input', async () => {
    const r = await runProcess({ argv: ['cat'], cwd: dir, timeoutMs: 5000 })
    expect(r).toMatchObject({ exitCode: 0, timedOut: false })
    expect(r.stdout.totalBytes).toBe(0)
  })

  test('a program that exits without reading a large input is not an error (EPIPE)', async () => {
    const input = Buffer.alloc(8 * 1024 * 1024, 'x')
    expect(await runProcess({ argv: ['true'], cwd: dir, input })).toMatchObject({ exitCode: 0 })
    const head = await runProcess({ argv: ['head', '-c', '5'], cwd: dir, input })
    expect(head.exitCode).toBe(0)
    expect(text(head.stdout)).toBe('xxxxx')
  })
})

describe('runProcess: text', () => {
  test('non-UTF-8 output is decoded with replacement characters like Python', async () => {
    const r = await runProcess({
      argv: ['printf', '\\377\\342\\202(\\355\\240\\200)\\300\\257\\364\\220\\200\\200!\\342\\202'],
      cwd: dir
    })
    // CPython 3.11: b'\xff\xe2\x82(\xed\xa0\x80)\xc0\xaf\xf4\x90\x80\x80!\xe2\x82'.decode('utf-8', 'replace')
    expect(decodeCaptured(r.stdout)).toBe(
      '\ufffd\ufffd(\ufffd\ufffd\ufffd)\ufffd\ufffd\ufffd\ufffd\ufffd\ufffd!\ufffd'
    )
  })

  test('CRLF and lone CR become LF with translateNewlines, as subprocess.run(text=True) does', async () => {
    // CPython: subprocess.run(['printf', 'a\\r\\nb\\rc'], capture_output=True, text=True).stdout == 'a\nb\nc'
    const r = await runProcess({ argv: ['printf', 'a\\r\\nb\\rc'], cwd: dir })
    expect(decodeCaptured(r.stdout, { translateNewlines: true })).toBe('a\nb\nc')
    expect(decodeCaptured(r.stdout)).toBe('a\r\nb\rc')
  })
})

describe('runProcess: log file', () => {
  test('gets every byte of stdout and stderr, in arrival order, appended', async () => {
    const log = join(dir, 'logs', 'iteration-001', 'agent.log')
    mkdirSync(join(dir, 'logs', 'iteration-001'), { recursive: true })
    writeFileSync(log, 'before\n')
    // Each stream waits until the other's line has arrived: the order is the program's, not the scheduler's.
    const arrived = join(dir, 'arrived')
    const waitArrived = `until [ -e '${arrived}' ]; do sleep 0.01; done; rm '${arrived}'`
    const r = await runProcess({
      argv: bash(`echo out1; ${waitArrived}; echo err1 >&2; ${waitArrived}; seq 1 100000`),
      cwd: dir,
      captureLimit: 100,
      logFile: log,
      onStdout: chunk => chunk.toString() === 'out1\n' && writeFileSync(arrived, ''),
      onStderr: () => writeFileSync(arrived, '')
    })
    const numbers = Array.from({ length: 100000 }, (_, i) => `${i + 1}\n`).join('')
    expect(readFileSync(log, 'utf8')).toBe(`before\nout1\nerr1\n${numbers}`)
    expect(r.stdout.truncated).toBe(true)
    expect(r.logError).toBeUndefined()
  })

  test('creates the folders of the log file', async () => {
    const log = join(dir, 'a', 'b', 'c.log')
    await runProcess({ argv: ['echo', 'hi'], cwd: dir, logFile: log })
    expect(readFileSync(log, 'utf8')).toBe('hi\n')
  })

  test('a log file that cannot be written does not stop the program', async () => {
    const r = await runProcess({ argv: bash('seq 1 50000'), cwd: dir, logFile: dir })
    expect(r.logError?.code).toBe('EISDIR')
    expect(r.exitCode).toBe(0)
    expect(r.stdout.totalBytes).toBe(288894)
  })

  test('a program that prints 200 MB keeps memory bounded and the log complete', async () => {
    const line = '0123456789abcdefghi\n'
    const total = 200_000_000
    const log = join(dir, 'big.log')
    const limit = 64 * 1024
    const rssBefore = process.memoryUsage().rss
    let rssPeak = rssBefore
    let chunks = 0
    const r = await runProcess({
      argv: bash(`yes ${line.trim()} | head -c ${total}`),
      cwd: dir,
      captureLimit: limit,
      logFile: log,
      onStdout: () => {
        if (++chunks % 256 === 0) rssPeak = Math.max(rssPeak, process.memoryUsage().rss)
      }
    })
    expect(r.exitCode).toBe(0)
    expect(r.stdout).toMatchObject({ totalBytes: total, truncated: true })
    expect(r.stdout.head.length + r.stdout.tail.length).toBeLessThanOrEqual(limit)
    const pattern = line.repeat(Math.ceil(limit / line.length) + 1)
    expect(r.stdout.head.toString()).toBe(pattern.slice(0, r.stdout.head.length))
    // total is a multiple of the line length, so the tail ends on a whole line.
    expect(r.stdout.tail.toString()).toBe(pattern.slice(pattern.length - r.stdout.tail.length))

    expect(statSync(log).size).toBe(total)
    const fd = openSync(log, 'r')
    const end = Buffer.alloc(1000)
    readSync(fd, end, 0, end.length, total - end.length)
    closeSync(fd)
    expect(end.toString()).toBe(pattern.slice(pattern.length - 1000))
    // Loose on purpose: keeping the output (or letting the log buffer grow) would add >= 200 MB.
    expect(rssPeak - rssBefore).toBeLessThan(120 * 1024 * 1024)
  })
})

describe('runProcess: programs that cannot start', () => {
  test('a missing program resolves with spawnError ENOENT', async () => {
    const r = await runProcess({
      argv: ['no-such-program-ralph'],
      cwd: dir,
      input: 'x',
      logFile: join(dir, 'l')
    })
    expect(r.spawnError?.code).toBe('ENOENT')
    expect(r).toMatchObject({ exitCode: null, signal: null, timedOut: false })
    expect(r.stdout.totalBytes).toBe(0)
  })

  test('a file without the exec bit resolves with spawnError EACCES', async () => {
    const r = await runProcess({ argv: [fixture('not-executable.sh')], cwd: dir })
    expect(r.spawnError?.code).toBe('EACCES')
    expect(r.exitCode).toBeNull()
  })

  test('a path through a file resolves with spawnError ENOTDIR', async () => {
    const file = join(dir, 'file')
    writeFileSync(file, '')
    const r = await runProcess({ argv: [join(file, 'prog')], cwd: dir })
    expect(r.spawnError?.code).toBe('ENOTDIR')
  })

  test('a missing working directory is named in the error', async () => {
    const missing = join(dir, 'nope')
    const r = await runProcess({ argv: ['true'], cwd: missing })
    expect(r.spawnError?.code).toBe('ENOENT')
    expect(r.spawnError?.path).toBe(missing)
    expect(r.spawnError?.message).toContain('working directory')
  })

  test('an empty command resolves with spawnError', async () => {
    expect((await runProcess({ argv: [], cwd: dir })).spawnError?.code).toBe('EINVAL')
  })

  test('relative programs with a slash are looked up from cwd', async () => {
    writeFileSync(join(dir, 'hello.sh'), '#!/bin/sh\necho hello from $0\n', { mode: 0o755 })
    const r = await runProcess({ argv: ['./hello.sh'], cwd: dir })
    expect(text(r.stdout)).toBe('hello from ./hello.sh\n')
  })
})

describe('runProcess: background grandchildren', () => {
  test('a background grandchild holding stdout delays the result until it exits', async () => {
    const r = await runProcess({ argv: bash('(sleep 0.3; echo late) & echo early'), cwd: dir })
    expect(r).toMatchObject({ exitCode: 0, timedOut: false })
    expect(text(r.stdout)).toBe('early\nlate\n')
  })
})
