// What the look at the work tree before git reads it (#35: a FIFO where git reads a file, a nested repository,
// a folder too deep; src/git/tree-scan.ts) costs each time the loop hashes the tree: on a repository of 10,000
// files with an ignored node_modules of 40,000 more. The look as treeHash makes it (scanTree, asking git which
// folders it ignores, so node_modules is not walked), the look of every folder (treeHazard, as before a
// checkout back), and GitWorkspace.treeHash (the look, then git's listing and `add -A`), timed pass after pass,
// each after one source file changed. Figures only.
import { execFileSync } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { ROOT, initRepo, median, ms, progress, tempDir, timed } from './lib.mjs'

export const title =
  'The look at the work tree before git reads it, on 10,000 files and a 40,000-entry node_modules'

const FILES = 10_000
const MODULES = 40_000
const PASSES = Number(process.env.BENCH_TREE_SCAN_PASSES ?? 10)
const EDITED = 'src/m0/d0/file0.js'

/** A source file bundled by ncc into a temp folder, imported: the sources as they are now. */
async function bundled(entry) {
  const out = tempDir('tree-scan-module')
  execFileSync(path.join(ROOT, 'node_modules', '.bin', 'ncc'), ['build', entry, '-o', out, '-q'], {
    cwd: ROOT
  })
  writeFileSync(path.join(out, 'package.json'), '{ "type": "module" }\n')
  return import(pathToFileURL(path.join(out, 'index.js')).href)
}

async function repository() {
  const dir = tempDir('tree-scan')
  const put = (rel, text) => {
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true })
    writeFileSync(path.join(dir, rel), text)
  }
  put('.gitignore', 'node_modules/\n')
  for (let i = 0; i < FILES; i++)
    put(`src/m${i % 20}/d${Math.floor(i / 20) % 25}/file${i}.js`, `export const v = ${i}\n`)
  for (let i = 0; i < MODULES; i++) put(`node_modules/p${i % 400}/lib/f${i}.js`, '')
  return initRepo(dir)
}

export async function run() {
  progress('tree-scan: bundling src/git/index.ts and src/git/tree-scan.ts')
  const git = await bundled('src/git/index.ts')
  const scan = await bundled('src/git/tree-scan.ts')
  progress(`tree-scan: a repository of ${FILES} files and ${MODULES} ignored ones`)
  const dir = await repository()
  const ws = await git.GitWorkspace.open(dir)
  await ws.treeHash()
  const passes = { asking: [], all: [], treeHash: [] }
  let stall = 0
  for (let i = 0; i < PASSES; i++) {
    writeFileSync(path.join(dir, EDITED), `export const edited = ${i}\n`)
    const oracle = scan.ignoreOracle(dir, {})
    const asking = await timed(() => scan.scanTree(dir, { ignored: oracle.ask }))
    oracle.close()
    const all = await timed(() => git.treeHazard(dir))
    if (all.value) throw new Error(`the look found a hazard in an honest tree: ${all.value}`)
    const hash = await timed(() => ws.treeHash())
    passes.asking.push(asking.took)
    passes.all.push(all.took)
    passes.treeHash.push(hash.took)
    stall = Math.max(stall, asking.stall, all.stall)
  }
  await ws.dispose()
  const at = name => median(passes[name].slice(1))
  const row = (figure, name, detail) => ({ figure, display: ms(at(name)), goal: '—', met: null, detail })
  return {
    rows: [
      row(
        'the look as treeHash makes it (ignored folders left)',
        'asking',
        `median of passes 2–${PASSES}: ${Math.round((100 * at('asking')) / at('treeHash'))}% of treeHash; the event loop's longest stall in either look ${ms(stall)}.`
      ),
      row(
        '  the look of every folder (treeHazard)',
        'all',
        `median of passes 2–${PASSES} over ${FILES + MODULES} files.`
      ),
      row('treeHash after one change (the look included)', 'treeHash', `median of passes 2–${PASSES}.`)
    ],
    notes: [
      `The repository: ${FILES} source files in 500 folders, and a node_modules of ${MODULES} files in 400 packages`,
      'that .gitignore names: git never enters it; the look as treeHash makes it asks git, and does not either.'
    ],
    data: { passes, stallMs: stall }
  }
}
