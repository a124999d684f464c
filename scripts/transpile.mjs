// TypeScript modules of this repository as plain JavaScript, for a process of their own (the benchmark, a
// test's child processes): the files asked for and, once each, every relative module they import, transpiled
// (types dropped, nothing checked) into one folder at the same paths. The folder is under node_modules/.cache
// (never committed), so the modules resolve the same dependencies as the sources.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')

/**
 * Transpiles `files` (paths from the repository's root, `.ts`) into node_modules/.cache/ralph-action/<name>,
 * a fresh copy each time; answers the absolute path of each file's JavaScript, in order.
 */
export function transpileModules(name, files) {
  const out = path.join(ROOT, 'node_modules', '.cache', 'ralph-action', name)
  // A fresh copy: a module the sources no longer import must not linger.
  rmSync(out, { recursive: true, force: true })
  mkdirSync(out, { recursive: true })
  writeFileSync(path.join(out, 'package.json'), '{ "type": "module" }\n')
  const done = new Set()
  const transpile = file => {
    if (done.has(file)) return
    done.add(file)
    const { outputText } = ts.transpileModule(readFileSync(file, 'utf8'), {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
      fileName: path.basename(file)
    })
    const target = path.join(out, path.relative(ROOT, file)).replace(/\.ts$/, '.js')
    mkdirSync(path.dirname(target), { recursive: true })
    writeFileSync(target, outputText)
    for (const [, specifier] of outputText.matchAll(/\bfrom '(\.\.?\/[^']+)\.js'/g)) {
      const imported = path.resolve(path.dirname(file), `${specifier}.ts`)
      if (!imported.startsWith(ROOT + path.sep) || !existsSync(imported))
        throw new Error(
          `${path.relative(ROOT, file)} imports ${specifier}.js, which is not a .ts file of this repository`
        )
      transpile(imported)
    }
  }
  const absolute = files.map(file => path.resolve(ROOT, file))
  for (const file of absolute) transpile(file)
  return absolute.map(file => path.join(out, path.relative(ROOT, file)).replace(/\.ts$/, '.js'))
}
