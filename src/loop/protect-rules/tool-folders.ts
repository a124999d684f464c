// Dependency and tool folders committed into the tree (#37): npm puts ./node_modules/.bin first on PATH, and
// `python -m pytest` puts the tree on sys.path, so a committed `node_modules/.bin/node`, a virtualenv, a
// `*.dist-info` registering a plugin or a `*.pth` file would be a runner from the tree. None is ever the work.
// The .gitignore files that keep them out, and every .gitattributes (it decides a clone's bytes), go with them.
import type { ProtectRule } from '../protect/index.js'

/** Where installers put what they install: a new path under one is removed before the gates run. */
export const TOOL_FOLDER_GLOBS = [
  '**/node_modules/**',
  '**/*.dist-info/**',
  '**/*.egg-info/**',
  '**/*.egg-link',
  '**/*.pth',
  '**/site-packages/**',
  '**/__pypackages__/**',
  '**/pyvenv.cfg',
  '**/.venv/**',
  '**/venv/**',
  '**/.tox/**',
  '**/.nox/**',
  '**/.yarn/**',
  '**/.pnp.*',
  '**/vendor/bin/**'
]

/** A .gitignore line that keeps a tool folder out (`node_modules/`, `/.venv`, `*.egg-info`…). */
const IGNORES_TOOLS =
  /^\/?(\*\*\/)?(node_modules|\.venv|venv|__pypackages__|\.tox|\.nox|[^/\s]*\.(dist|egg)-info|site-packages)\/?\s*$/

/** The rules for tool folders, given the start commit's files and the .gitignore texts among them. */
export function toolFolderRules(texts: ReadonlyMap<string, string>): ProtectRule[] {
  const rules: ProtectRule[] = TOOL_FOLDER_GLOBS.map(glob => ({
    glob,
    scope: 'all' as const,
    why: 'auto: a dependency or tool folder (never the work; a runner would load it)'
  }))
  rules.push({
    glob: '**/.gitattributes',
    scope: 'all',
    why: 'auto: .gitattributes (it decides the bytes a clone gets)'
  })
  for (const [file, text] of texts)
    if (
      (file === '.gitignore' || file.endsWith('/.gitignore')) &&
      text.split('\n').some(l => IGNORES_TOOLS.test(l.trim()))
    )
      rules.push({ glob: file, scope: 'base', why: 'auto: a .gitignore that keeps dependency folders out' })
  return rules
}
