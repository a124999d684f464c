// Another run's artifact through the REST API, as a resumed run reads its predecessor's record: the real
// @actions/artifact client with `findBy` lists the run's artifacts on the GitHub stand-in and follows its 302
// to the zip in the artifact service's blob store, where the earlier run uploaded it under its own token.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { jest } from '@jest/globals'
import type { DefaultArtifactClient } from '@actions/artifact'
import { startArtifactService, type ArtifactService } from './artifacts/index.js'
import { startGitHubApi, type GitHubApi } from './github-api/index.js'
import { writeFiles } from './files.js'
import { quietStdout, SavedEnv } from './in-process-client.js'

const TOKEN = 'ghs_resumedRunToken'
const EARLIER = { run: 'c0ffee00-0000-4000-8000-0000000000aa', job: 'c0ffee00-0000-4000-8000-0000000000ab' }
const files: Record<string, string> = {
  'progress.md': '# Progress\n\n## Job 1\nIteration 3: FAIL tests\n',
  'status.json': JSON.stringify({ stopReason: 'max_time', iterations: 3 }),
  'logs/iteration-003/agent.log': 'ran out of time\n'
}

let service: ArtifactService
let api: GitHubApi
let client: DefaultArtifactClient
let work: string
const env = new SavedEnv()

beforeAll(async () => {
  quietStdout()
  service = await startArtifactService()
  api = await startGitHubApi({ owner: 'acme', repo: 'widgets', artifacts: service })
  env.set({ ...service.env, ...api.env })
  // @actions/github reads GITHUB_API_URL when it is first loaded: load the client only now.
  const { DefaultArtifactClient } = await import('@actions/artifact')
  client = new DefaultArtifactClient()
  work = mkdtempSync(join(tmpdir(), 'artifact-of-run-'))
  writeFiles(join(work, 'record'), files)
})

afterAll(async () => {
  jest.restoreAllMocks()
  env.restore()
  if (work) rmSync(work, { recursive: true, force: true })
  await api?.close()
  await service?.close()
})

afterEach(() => {
  expect(api.violations).toEqual([])
  expect(api.unimplemented).toEqual([])
  expect(api.responseProblems).toEqual([])
  expect(service.violations).toEqual([])
})

/** Uploads the record as a job of the earlier run does (its own runtime token), then back to this run's. */
async function uploadAsEarlierRun(name: string, backend = EARLIER): Promise<number> {
  env.set({ ACTIONS_RUNTIME_TOKEN: service.tokenForRun(backend.run, backend.job) })
  try {
    const root = join(work, 'record')
    const paths = Object.keys(files).map(p => join(root, p))
    const { id } = await client.uploadArtifact(name, paths, root, { retentionDays: 1 })
    return id as number
  } finally {
    env.set({ ACTIONS_RUNTIME_TOKEN: service.runtimeToken })
  }
}

test("@actions/artifact with findBy reads another run's artifact: listed, found by name, downloaded", async () => {
  const earlier = api.state.addRun({
    id: 9_200_000_001,
    workflowPath: '.github/workflows/ralph.yml',
    workflowRunBackendId: EARLIER.run,
    status: 'completed',
    conclusion: 'success'
  })
  const id = await uploadAsEarlierRun('ralph-run')
  const before = api.requests.length
  const findBy = {
    token: TOKEN,
    workflowRunId: earlier.id,
    repositoryOwner: 'acme',
    repositoryName: 'widgets'
  }

  // This run's own artifacts (the runtime token's) do not hold it; the earlier run's, through the API, do.
  expect((await client.listArtifacts()).artifacts).toEqual([])
  const listed = await client.listArtifacts({ findBy })
  expect(listed.artifacts.map(a => [a.id, a.name])).toEqual([[id, 'ralph-run']])
  const stored = service.listArtifacts().find(a => a.id === id)
  if (!stored?.digest) throw new Error('the upload was not finalized with a digest')
  const { artifact } = await client.getArtifact('ralph-run', { findBy })
  expect(artifact).toMatchObject({ id, name: 'ralph-run', size: stored.size })
  // The REST API writes the digest with its algorithm (`sha256:…`), as the artifact service stores it.
  expect(artifact.digest).toBe(stored.digest)

  const path = join(work, 'downloaded')
  const { digestMismatch } = await client.downloadArtifact(id, {
    path,
    findBy,
    expectedHash: stored.digest
  })
  expect(digestMismatch).toBe(false)
  for (const [file, content] of Object.entries(files))
    expect(readFileSync(join(path, file), 'utf8')).toBe(content)

  const calls = api.requests.slice(before).map(r => [r.operationId, r.status, r.token])
  expect(calls).toEqual([
    ['actions/list-workflow-run-artifacts', 200, TOKEN],
    ['actions/list-workflow-run-artifacts', 200, TOKEN],
    ['actions/download-artifact', 302, TOKEN]
  ])
  expect(api.requests[before + 1].query).toMatchObject({ name: 'ralph-run' })
})

test("a run's artifacts are its own; an unknown run is 404; a missing name finds nothing; an expired one is 410", async () => {
  const backend = { run: 'c0ffee00-0000-4000-8000-0000000000ba', job: 'c0ffee00-0000-4000-8000-0000000000bb' }
  const earlier = api.state.addRun({
    workflowPath: '.github/workflows/ralph.yml',
    workflowRunBackendId: backend.run
  })
  const other = api.state.addRun({ workflowPath: '.github/workflows/ralph.yml' })
  const id = await uploadAsEarlierRun('ralph-run', backend)
  const octokit = (await import('@actions/github')).getOctokit(TOKEN, { baseUrl: api.url })
  const repo = { owner: 'acme', repo: 'widgets' }
  const { data: none } = await octokit.rest.actions.listWorkflowRunArtifacts({ ...repo, run_id: other.id })
  expect(none).toEqual({ total_count: 0, artifacts: [] })

  const findBy = { token: TOKEN, workflowRunId: 404, repositoryOwner: 'acme', repositoryName: 'widgets' }
  await expect(client.listArtifacts({ findBy })).rejects.toThrow(/Not Found/)
  const ofEarlier = { ...findBy, workflowRunId: earlier.id }
  await expect(client.getArtifact('no-such-record', { findBy: ofEarlier })).rejects.toThrow(
    /Artifact not found/
  )

  const { data } = await octokit.rest.actions.listWorkflowRunArtifacts({ ...repo, run_id: earlier.id })
  expect(data.total_count).toBe(1)
  expect(data.artifacts[0]).toMatchObject({
    id,
    name: 'ralph-run',
    expired: false,
    archive_download_url: `${api.url}/repos/acme/widgets/actions/artifacts/${id}/zip`,
    workflow_run: { id: earlier.id, head_branch: 'main' }
  })
  // Two days on, the one-day artifact has expired.
  const clock = api.state.clock
  api.state.clock = () => new Date(Date.now() + 2 * 24 * 3600_000)
  try {
    const gone = await octokit.rest.actions
      .downloadArtifact({ ...repo, artifact_id: id, archive_format: 'zip' })
      .catch((error: { status: number }) => error)
    expect(gone).toMatchObject({ status: 410 })
  } finally {
    api.state.clock = clock
  }
  const unknown = await octokit.rest.actions
    .downloadArtifact({ ...repo, artifact_id: 1, archive_format: 'zip' })
    .catch((error: { status: number }) => error)
  expect(unknown).toMatchObject({ status: 404 })
})
