// Types of transpile.mjs, for the tests that start transpiled modules in processes of their own.
/** Transpiles `files` (paths from the repository's root) and what they import; answers each file's JavaScript. */
export function transpileModules(name: string, files: string[]): string[]
