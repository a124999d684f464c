// Writes the README's inputs and outputs tables from action.yml, between the action-inputs and action-outputs
// markers, as actions/checkout generates its docs: the tables cannot drift from what the action declares.
// `npm run docs` rewrites README.md; `--check` only reports whether it is current. Re-runnable: the text
// between the markers is replaced, nothing else is touched.
import { readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { parse } from 'yaml'

// `--root DIR` reads and writes another copy (the tests use it); by default this repository.
const rootArg = process.argv.indexOf('--root')
const root =
  rootArg > 0
    ? path.resolve(process.argv[rootArg + 1])
    : path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')

/** One line for a table cell: whitespace folded, pipes escaped. */
const cell = text =>
  String(text ?? '')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/\|/g, '\\|')

/** A default as the user would write it: `${{ github.token }}` and strings shown as code. */
const defaultCell = value => (value === undefined || value === '' ? '' : `\`${cell(value)}\``)

export function inputsTable(action) {
  const rows = Object.entries(action.inputs ?? {}).map(
    ([name, input]) =>
      `| \`${name}\` | ${defaultCell(input.default)} | ${input.required ? 'yes' : 'no'} | ${cell(input.description)} |`
  )
  return ['| input | default | required | description |', '|---|---|---|---|', ...rows].join('\n')
}

export function outputsTable(action) {
  const rows = Object.entries(action.outputs ?? {}).map(
    ([name, output]) => `| \`${name}\` | ${cell(output.description)} |`
  )
  return ['| output | description |', '|---|---|', ...rows].join('\n')
}

/** README's text with both tables replaced by what the action.yml text declares. */
export function renderReadme(readme, actionYml) {
  const action = parse(actionYml)
  let out = readme
  for (const [marker, table] of [
    ['action-inputs', inputsTable(action)],
    ['action-outputs', outputsTable(action)]
  ]) {
    const start = `<!-- ${marker}:start -->`
    const end = `<!-- ${marker}:end -->`
    const from = out.indexOf(start)
    const to = out.indexOf(end)
    if (from < 0 || to < from) throw new Error(`README.md lacks the ${start} … ${end} markers.`)
    out = `${out.slice(0, from + start.length)}\n${table}\n${out.slice(to)}`
  }
  return out
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const readmePath = path.join(root, 'README.md')
  const readme = readFileSync(readmePath, 'utf8')
  const next = renderReadme(readme, readFileSync(path.join(root, 'action.yml'), 'utf8'))
  if (process.argv.includes('--check')) {
    if (next !== readme) {
      console.error('README.md’s action tables differ from action.yml: run `npm run docs`.')
      process.exit(1)
    }
    console.log('README.md’s action tables match action.yml.')
  } else if (next !== readme) {
    writeFileSync(readmePath, next)
    console.log('README.md: action tables regenerated from action.yml.')
  } else console.log('README.md: action tables already current.')
}
