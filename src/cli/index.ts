#!/usr/bin/env node
// The `ralph-action` executable.
import { homedir } from 'node:os'
import { outputRoomOf } from '../loop/index.js'
import { keepHeapSmall } from '../proc/index.js'
import { main } from './main.js'

// V8's settings are the process's: set by the executable that owns it, never by a library a host imports.
keepHeapSmall()

const io = {
  cwd: process.cwd(),
  env: process.env,
  home: homedir(),
  stdout: (text: string) => void process.stdout.write(text),
  stderr: (text: string) => void process.stderr.write(text),
  stdoutRoom: outputRoomOf(process.stdout),
  interactive: process.stdin.isTTY === true
}

main(process.argv.slice(2), io).then(
  code => {
    process.exitCode = code
  },
  error => {
    process.stderr.write(`ralph-action: internal error (please report it): ${error?.stack ?? error}\n`)
    process.exitCode = 70
  }
)
