// What a gate's command line names: the files it runs (filesRun) and the words that may name a path
// (gateWords). Pure: shell words only, nothing is read.
import path from 'node:path'
import { shlexSplit } from '../../ralph/index.js'

/** The words of a gate that may name a path: its shell words, and the pieces of those split at shell syntax. */
export function gateWords(run: string): string[] {
  const pieces = shellWords(run).flatMap(word => [word, ...word.split(/[\s;&|()<>`"'=,]+/)])
  return [...new Set(pieces.filter(p => p !== '' && p !== '.' && p !== '..' && !p.startsWith('-')))]
}

function shellWords(run: string): string[] {
  try {
    return shlexSplit(run)
  } catch {
    // An unbalanced quote: the gate fails when it runs; its words split at blanks still name what it would run.
    return run.split(/\s+/)
  }
}

/** Programs whose first word that is not an option is the script they run. */
const INTERPRETERS = new Set(
  [
    'bash',
    'sh',
    'dash',
    'zsh',
    'ksh',
    'node',
    'python',
    'python3',
    'ruby',
    'perl',
    'php',
    'deno',
    'bun'
  ].concat(['tsx', 'ts-node', 'pwsh', 'source', '.'])
)
/** Programs that run the command that follows them. */
const WRAPPERS = new Set(['env', 'timeout', 'nice', 'nohup', 'time', 'exec', 'command', 'xargs', 'stdbuf'])
/** Words that end one simple command and start another. */
const SEPARATOR = /^(;|&&|\|\||\||&|\(|\)|\{|\}|!|if|then|else|elif|do|while|until)$/

/**
 * The files a gate runs, not those it reads as data: each simple command's program, an interpreter's script
 * (`bash check.sh`, `node scripts/verify.js`; `bash -c '…'` read again), and a runner's configuration
 * (`--config x`). `grep -q 'a + b' calc.js` runs grep: calc.js is the code the agent is asked to change.
 */
export function filesRun(run: string, depth = 0): string[] {
  const words = shellWords(run)
  const out: string[] = []
  let start = true
  for (let i = 0; i < words.length; i++) {
    const word = words[i].replace(/;+$/, '')
    const ends = words[i] !== word
    if (SEPARATOR.test(word)) {
      start = true
      continue
    }
    const config = /^(-c|--?(config|config-file|rcfile|settings))(=(.*))?$/.exec(word)
    if (config) {
      const value = config[4] ?? words[i + 1]
      if (value) out.push(value)
    } else if (start && !/^[A-Za-z_][A-Za-z0-9_]*=/.test(word) && !/^-|^\d+[smhd]?$/.test(word)) {
      const name = path.posix.basename(word)
      out.push(word)
      start = WRAPPERS.has(name)
      if (INTERPRETERS.has(name))
        for (let j = i + 1; j < words.length; j++) {
          if (words[j] === '-c' && words[j + 1] !== undefined) {
            if (depth < 2) out.push(...filesRun(words[j + 1], depth + 1))
            i = j + 1
            break
          }
          if (words[j] === '-m') break
          if (words[j].startsWith('-')) continue
          out.push(words[j].replace(/;+$/, ''))
          if (words[j].endsWith(';')) start = true
          i = j
          break
        }
    }
    if (ends) start = true
  }
  return out
}
