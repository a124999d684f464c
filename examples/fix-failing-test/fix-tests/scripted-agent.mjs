#!/usr/bin/env node
// A scripted stand-in for a coding agent, so the example runs without an API key: it reads the prompt on
// stdin, finds the failing tests named in the test output, fixes the first one it knows how to fix, and
// says it is done when that was the last failure. A real agent (`claude -p`) does the same by reasoning.
import { readFileSync, writeFileSync } from 'node:fs'

const prompt = readFileSync(0, 'utf8')
const fixes = {
  'add returns the sum': ['return a - b', 'return a + b'],
  'multiply returns the product': ['return a + b\n}\n', 'return a * b\n}\n']
}
// node's spec reporter marks a failing test with ✖ in front of its name.
const failing = Object.keys(fixes).filter(name => prompt.includes(`✖ ${name}`))
if (failing.length === 0) {
  console.log('No failing test in the prompt; nothing to do.')
  process.exit(0)
}
const name = failing[0]
const [from, to] = fixes[name]
const source = readFileSync('calc.js', 'utf8')
const at = source.lastIndexOf(from)
if (at === -1) {
  console.error(`Cannot find the code behind '${name}'.`)
  process.exit(1)
}
writeFileSync('calc.js', source.slice(0, at) + to + source.slice(at + from.length))
console.log(`Fixed calc.js for the failing test '${name}'.`)
if (failing.length === 1) console.log('Every failing test is fixed.\n\n<promise>COMPLETE</promise>')
