// `npm run local [-- path/to.env]`: the built action (dist/index.js, main then post) run the way the runner
// runs it, all the way, on this machine. Its inputs come from the env file (INPUT_<NAME>=value lines;
// action.yml's defaults for the rest). Around it stand the end-to-end tests' own stand-ins (one copy, in
// __tests__/): a bare git remote behind a local git server, checked out as actions/checkout leaves it; the
// OpenAPI-checked GitHub API stand-in; the artifact service in front of azurite. They are TypeScript,
// compiled once with the project's tsc into node_modules/.cache/ralph-local (again when they change).
// At the end it says where everything went: the branch, the pull request, the artifact, and the job
// summary as Markdown and as an HTML page. (@github/local-action runs main and post too, but against nothing:
// no remote, GitHub or artifact service to show what the run did.)
import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { marked } from 'marked'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const envFile = path.resolve(process.argv[2] ?? path.join(root, 'examples', 'local-action.env'))
const example = path.join(root, 'examples', 'fix-failing-test')

/** The stand-ins' sources: the harness of the end-to-end tests and everything it imports. */
const SOURCES = [
  '__tests__/action',
  '__tests__/support',
  '__tests__/support/github-api',
  '__tests__/support/artifacts',
  'src/text'
]

/** Compiles the harness with tsc when its sources changed since the last time; answers its module. */
async function harness() {
  const cache = path.join(root, 'node_modules', '.cache', 'ralph-local')
  const files = SOURCES.flatMap(dir =>
    readdirSync(path.join(root, dir))
      .filter(name => name.endsWith('.ts') && !name.endsWith('.test.ts'))
      .map(name => path.join(root, dir, name))
  )
  const stamp = createHash('sha256')
  for (const file of files) stamp.update(file).update(readFileSync(file))
  const digest = stamp.digest('hex')
  const stampFile = path.join(cache, 'sources.sha256')
  if (!existsSync(stampFile) || readFileSync(stampFile, 'utf8') !== digest) {
    console.log('Compiling the local stand-ins (__tests__/action/harness.ts and what it imports)…')
    const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc')
    execFileSync(
      process.execPath,
      [
        tsc,
        ...['--outDir', cache, '--rootDir', root, '--module', 'NodeNext', '--moduleResolution', 'NodeNext'],
        ...['--target', 'ES2022', '--types', 'node', '--skipLibCheck', '--strict', '--esModuleInterop'],
        path.join(root, '__tests__', 'action', 'harness.ts')
      ],
      // From the root, wherever this was started: tsc finds @types/node from its working folder.
      { stdio: 'inherit', cwd: root }
    )
    writeFileSync(stampFile, digest)
  }
  return import(pathToFileURL(path.join(cache, '__tests__', 'action', 'harness.js')).href)
}

/** KEY=value lines; # comments and blank lines skipped; one pair of surrounding quotes removed. */
function readEnvFile(file) {
  const out = {}
  for (const line of readFileSync(file, 'utf8').split(/\r?\n/)) {
    const m = /^\s*([^#=\s][^=]*?)\s*=(.*)$/.exec(line)
    if (m) out[m[1]] = m[2].trim().replace(/^(['"])(.*)\1$/, '$2')
  }
  return out
}

/** A mistake in what was asked: one line, exit 2, no stack. */
function refuse(message) {
  process.stderr.write(`npm run local: ${message}\n`)
  process.exit(2)
}

/** INPUT_MAX-ITERATIONS=5 → { 'max-iterations': '5' } (the harness fills in action.yml's defaults). */
function inputsOf(env) {
  const inputs = {}
  for (const [key, value] of Object.entries(env)) {
    if (!key.startsWith('INPUT_')) refuse(`${envFile}: ${key} is not an INPUT_<NAME>=value line`)
    inputs[key.slice('INPUT_'.length).toLowerCase().replace(/_/g, ' ')] = value
  }
  return inputs
}

/** The example project's files, with their modes (the scripted agent is executable). */
function exampleFiles(dir, prefix = '') {
  const files = {}
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name)
    if (entry.isDirectory()) Object.assign(files, exampleFiles(full, `${prefix}${entry.name}/`))
    else
      files[`${prefix}${entry.name}`] = {
        content: readFileSync(full, 'utf8'),
        mode: statSync(full).mode & 0o777
      }
  }
  return files
}

/** The job summary as a page: the Markdown rendered here, its mermaid charts drawn by mermaid in the browser. */
function summaryPage(markdown) {
  const body = marked
    .parse(markdown, { gfm: true, async: false })
    // marked writes ```mermaid as <pre><code class="language-mermaid">: mermaid draws <pre class="mermaid">.
    .replace(
      /<pre><code class="language-mermaid">([\s\S]*?)<\/code><\/pre>/g,
      '<pre class="mermaid">$1</pre>'
    )
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Job summary — ralph-action (local run)</title>
<style>
  body { font: 15px/1.5 -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; max-width: 980px; margin: 2em auto; padding: 0 1em; color: #1f2328; }
  table { border-collapse: collapse; } th, td { border: 1px solid #d1d9e0; padding: 4px 10px; }
  code, pre { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; background: #f6f8fa; }
  pre { padding: 1em; overflow: auto; } blockquote { border-left: 4px solid #d1d9e0; margin: 0; padding: 0 1em; color: #59636e; }
</style>
</head>
<body>
${body}
<p><small>The charts are drawn by mermaid, loaded from jsdelivr; offline, their source is shown instead.</small></p>
<script type="module">
  import mermaid from 'https://cdn.jsdelivr.net/npm/mermaid@11/dist/mermaid.esm.min.mjs'
  mermaid.initialize({ startOnLoad: false })
  await mermaid.run({ querySelector: 'pre.mermaid' })
</script>
</body>
</html>
`
}

if (!existsSync(envFile) || !statSync(envFile).isFile())
  refuse(
    `${envFile} is not a file: give the path of one with INPUT_<NAME>=value lines, like examples/local-action.env`
  )
const inputs = inputsOf(readEnvFile(envFile))
const { createProject, runAction, startStand, undeclaredInput } = await harness()
const undeclared = undeclaredInput(Object.keys(inputs))
if (undeclared) refuse(`${envFile}: ${undeclared}`)
console.log(`Inputs from ${envFile}: ${JSON.stringify(inputs)}`)
console.log('Starting the stand-ins: git server and bare remote, GitHub API, artifact service and azurite…')
const [project, stand] = await Promise.all([createProject(exampleFiles(example)), startStand()])
let status
try {
  const run = await runAction(project, stand, { inputs, echo: true })
  status = run.main.exitCode || run.post?.exitCode || 0
  const out = path.join(project.dir, 'local-run')
  mkdirSync(out, { recursive: true })

  console.log('\n=== outputs ===')
  for (const [name, value] of Object.entries(run.outputs)) console.log(`${name}=${value}`)

  console.log('\n=== where everything went ===')
  const branch = run.outputs.branch
  const pushed = branch && project.remoteGit('branch', '--list', branch).trim() !== ''
  console.log(
    pushed
      ? `Branch ${branch}: pushed to the bare remote ${project.remote}\n${project.remoteGit('log', '--oneline', `main..${branch}`).trimEnd()}`
      : `Branch: nothing was pushed to the bare remote ${project.remote}`
  )
  const pulls = project.api.state.pulls
  for (const pull of pulls)
    console.log(
      `Pull request #${pull.number} on the GitHub stand-in: "${pull.title}" (${pull.head} → ${pull.base}, ${pull.state})`
    )
  if (pulls.length > 0) {
    const file = path.join(out, 'pull-request.md')
    writeFileSync(file, `# ${pulls.at(-1).title}\n\n${pulls.at(-1).body ?? ''}\n`)
    console.log(`  its body: ${file}`)
  } else console.log('Pull request: none was opened')
  const artifacts = stand.artifacts.listArtifacts()
  for (const artifact of artifacts) {
    const files = await stand.artifacts.downloadArtifact(artifact.name)
    const dir = path.join(out, 'artifact', artifact.name)
    for (const [name, bytes] of files) {
      mkdirSync(path.dirname(path.join(dir, name)), { recursive: true })
      writeFileSync(path.join(dir, name), bytes)
    }
    console.log(
      `Artifact ${artifact.name} (id ${artifact.id}, ${artifact.size} bytes) stored in azurite; its files: ${dir}`
    )
  }
  if (artifacts.length === 0) console.log('Artifact: none was uploaded')
  const markdown = path.join(out, 'summary.md')
  const page = path.join(out, 'summary.html')
  writeFileSync(markdown, run.summary)
  writeFileSync(page, summaryPage(run.summary))
  console.log(`Job summary: ${markdown}\n  as a page: ${page}`)
  console.log(`Workspace (the checkout): ${project.workspace}`)
  console.log(`All of it is kept under ${project.dir}`)
  const problems = [...project.api.violations, ...project.api.unimplemented, ...stand.artifacts.violations]
  if (problems.length > 0)
    console.log(`\nRequests the real services would have refused:\n${JSON.stringify(problems, null, 2)}`)
  console.log(`\nmain exited ${run.main.exitCode}, post exited ${run.post?.exitCode}`)
} finally {
  // The servers stop; the folders (remote, workspace, record, summary) stay for you to read.
  await stand.close()
  await project.api.close()
  await project.gitServer.close()
}
process.exit(status)
