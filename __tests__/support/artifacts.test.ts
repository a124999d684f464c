// The artifact stand-in with the real @actions/artifact client: upload a folder, list it, read it back
// file by file (through the stand-in and through the client's own download), refuse a duplicate name.
import { randomBytes } from 'node:crypto'
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { jest } from '@jest/globals'
import { DefaultArtifactClient } from '@actions/artifact'
import { startArtifactService, type ArtifactService } from './artifacts/index.js'
import { writeFiles } from './files.js'
import { quietStdout, SavedEnv } from './in-process-client.js'

let service: ArtifactService
let work: string
const env = new SavedEnv()

const files: Record<string, Buffer> = {
  'progress.md': Buffer.from('# Progress\n\n## Iteration 1\nFAIL tests\n'),
  'status.json': Buffer.from(JSON.stringify({ stopReason: 'all_checks_passed', iterations: 2 })),
  'logs/iteration-001/prompt.md': Buffer.from('Fix the tests.\n'),
  'logs/iteration-001/checks/tests.log': Buffer.from('1 failing\n'),
  'logs/iteration-002/agent.log': Buffer.from('é ü — unicode survives\n'),
  'logs/iteration-002/empty.log': Buffer.alloc(0),
  'logs/binary.bin': randomBytes(300_000)
}

beforeAll(async () => {
  quietStdout()
  service = await startArtifactService()
  env.set(service.env)
  work = mkdtempSync(join(tmpdir(), 'artifact-standin-'))
  writeFiles(join(work, 'record'), files)
})

afterAll(async () => {
  jest.restoreAllMocks()
  env.restore()
  if (work) rmSync(work, { recursive: true, force: true })
  await service?.close()
})

/** Every file under dir, as forward-slash paths relative to it. */
function walk(dir: string, base = dir): string[] {
  return readdirSync(dir).flatMap(name => {
    const full = join(dir, name)
    return statSync(full).isDirectory() ? walk(full, base) : [relative(base, full).split('\\').join('/')]
  })
}

test('@actions/artifact uploads a folder and every file reads back byte for byte', async () => {
  const client = new DefaultArtifactClient()
  const root = join(work, 'record')
  const paths = Object.keys(files).map(p => join(root, p))
  const uploaded = await client.uploadArtifact('ralph-run', paths, root, { retentionDays: 3 })
  const id = uploaded.id as number
  expect(id).toBeGreaterThan(0)

  const [stored] = service.listArtifacts()
  expect(stored).toMatchObject({ id: uploaded.id, name: 'ralph-run', finalized: true, size: uploaded.size })
  expect(stored.digest).toBe(`sha256:${uploaded.digest}`)
  expect(stored.expiresAt).toBeDefined()

  const read = await service.downloadArtifact('ralph-run')
  expect([...read.keys()].sort()).toEqual(Object.keys(files).sort())
  for (const [path, content] of Object.entries(files)) expect(read.get(path)?.equals(content)).toBe(true)

  // The client's own way back: ListArtifacts, GetSignedArtifactURL, then a download from the blob store.
  const listed = await client.listArtifacts()
  expect(listed.artifacts.map(a => [a.name, a.id, a.size])).toEqual([
    ['ralph-run', uploaded.id, uploaded.size]
  ])
  const { artifact } = await client.getArtifact('ralph-run')
  expect(artifact.id).toBe(uploaded.id)
  const into = join(work, 'downloaded')
  await client.downloadArtifact(id, { path: into })
  expect(walk(into).sort()).toEqual(Object.keys(files).sort())
  for (const [path, content] of Object.entries(files))
    expect(readFileSync(join(into, path)).equals(content)).toBe(true)

  expect(service.violations).toEqual([])
  expect(service.requests.map(r => [r.method, r.status])).toEqual([
    ['CreateArtifact', 200],
    ['FinalizeArtifact', 200],
    ['ListArtifacts', 200],
    ['ListArtifacts', 200],
    ['ListArtifacts', 200],
    ['GetSignedArtifactURL', 200]
  ])
})

test('a second artifact with the same name in the run is refused, as the service refuses it', async () => {
  const client = new DefaultArtifactClient()
  const root = join(work, 'record')
  await expect(client.uploadArtifact('ralph-run', [join(root, 'progress.md')], root)).rejects.toThrow(
    /409.*an artifact with this name already exists on the workflow run/
  )
  // A refusal by the real service is a violation: an action's e2e test expects none.
  expect(service.violations.splice(0)).toEqual([
    { method: 'CreateArtifact', message: 'an artifact with this name already exists on the workflow run' }
  ])
})

test('a request with backend ids that are not the token’s is refused and recorded', async () => {
  const response = await fetch(
    `${service.resultsUrl}twirp/github.actions.results.api.v1.ArtifactService/ListArtifacts`,
    {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${service.runtimeToken}` },
      body: JSON.stringify({ workflow_run_backend_id: 'other', workflow_job_run_backend_id: 'other' })
    }
  )
  expect(response.status).toBe(403)
  expect(await response.json()).toMatchObject({ code: 'permission_denied' })
  expect(service.violations.splice(0)).toMatchObject([{ method: 'ListArtifacts' }])
})
