#!/usr/bin/env node
// `npm run lint`'s check of the import graph of src/: no file imports itself through others (a circle), and no
// folder does (src/loop → src/proxy → src/loop). Type-only imports count: a circle of types is a circle a
// reader must walk. Prints each circle it finds, one line of files, and exits 1; silent and 0 when none.
//
// The rule for reaching into a folder: deep. A file imports the file that holds what it needs
// (`../git/bundle.js`, `./chain/decide.js`); a folder's index.ts is its table of contents for readers and
// outside users, never a gate. What is checked is the direction: no circle of files, no circle of top-level
// folders of src/ (the module map in DESIGN.md says which folder sits above which).
import { readdirSync, readFileSync, statSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const src = path.join(root, process.argv[2] ?? 'src')

function filesUnder(dir) {
  return readdirSync(dir).flatMap(name => {
    const full = path.join(dir, name)
    if (statSync(full).isDirectory()) return filesUnder(full)
    return /\.ts$/.test(name) && !name.endsWith('.d.ts') ? [full] : []
  })
}

/** The files of src/ a file imports (relative specifiers only; `.js` names its `.ts`). */
function importsOf(file) {
  const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true)
  return importedFiles
    .map(i => i.fileName)
    .filter(spec => spec.startsWith('.'))
    .map(spec => {
      const base = path.resolve(path.dirname(file), spec).replace(/\.js$/, '')
      for (const candidate of [`${base}.ts`, path.join(base, 'index.ts')])
        try {
          if (statSync(candidate).isFile()) return candidate
        } catch {
          // Not this candidate: the next one, or a specifier that names no file of src/ (a package's).
        }
      return undefined
    })
    .filter(f => f !== undefined)
}

/** Tarjan's strongly connected components with more than one node (or a node importing itself). */
function circles(graph) {
  let index = 0
  const stack = []
  const on = new Set()
  const indices = new Map()
  const low = new Map()
  const found = []
  const visit = node => {
    indices.set(node, index)
    low.set(node, index++)
    stack.push(node)
    on.add(node)
    for (const next of graph.get(node) ?? []) {
      if (!indices.has(next)) {
        visit(next)
        low.set(node, Math.min(low.get(node), low.get(next)))
      } else if (on.has(next)) low.set(node, Math.min(low.get(node), indices.get(next)))
    }
    if (low.get(node) === indices.get(node)) {
      const component = []
      let member
      do {
        member = stack.pop()
        on.delete(member)
        component.push(member)
      } while (member !== node)
      if (component.length > 1 || (graph.get(node) ?? new Set()).has(node)) found.push(component.sort())
    }
  }
  for (const node of graph.keys()) if (!indices.has(node)) visit(node)
  return found
}

const files = filesUnder(src)
const fileGraph = new Map(files.map(f => [f, new Set(importsOf(f))]))
const folderOf = f => path.relative(src, path.dirname(f)).split(path.sep)[0] || '.'
const folderGraph = new Map()
for (const [file, imports] of fileGraph)
  for (const imported of imports) {
    const [from, to] = [folderOf(file), folderOf(imported)]
    if (!folderGraph.has(from)) folderGraph.set(from, new Set())
    if (from !== to) folderGraph.get(from).add(to)
  }

const rel = f => path.relative(root, f)
const problems = [
  ...circles(fileGraph).map(c => `import circle of ${c.length} files: ${c.map(rel).join(', ')}`),
  ...circles(folderGraph).map(
    c => `import circle of ${c.length} folders: ${c.map(f => `src/${f}/`).join(', ')}`
  )
]
for (const line of problems) console.error(line)
if (problems.length > 0) {
  console.error(
    `${problems.length} import circle(s) in ${rel(src)}: move what both sides need into a file they both import.`
  )
  process.exit(1)
}
