// An artifact from another job is unpacked with bounds, while it streams: against the real artifact service
// stand-in (azurite behind Twirp) and the GitHub stand-in's REST download, with zips made as an attacker
// would make them (a bomb whose sizes hide in a data descriptor, a header that owns up to its size, names that
// climb out, an entry twice). What the rules do not name is never written; a refusal leaves nothing behind.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { jest } from '@jest/globals'
import type { DefaultArtifactClient } from '@actions/artifact'
import { downloadInto, UnpackRefused, type UnpackRules } from '../../src/github/artifacts.js'
import { githubClient } from '../../src/github/client.js'
import {
  startArtifactService,
  writeZip,
  type ArtifactService,
  type ZipSpec
} from '../support/artifacts/index.js'
import { startGitHubApi, type GitHubApi } from '../support/github-api/index.js'
import { quietStdout, SavedEnv } from '../support/in-process-client.js'

const MiB = 1024 * 1024
const TOKEN = 'ghs_resumedRunToken'

let service: ArtifactService
let api: GitHubApi
let client: DefaultArtifactClient
let work: string
let uploads = 0
const env = new SavedEnv()

beforeAll(async () => {
  quietStdout()
  service = await startArtifactService()
  api = await startGitHubApi({ owner: 'acme', repo: 'widgets', artifacts: service })
  env.set({
    ...service.env,
    ...api.env,
    RALPH_ACTION_TEST_WAIT_SCALE: '0.01',
    RALPH_ACTION_TEST_TIMEOUT_MS: '5000'
  })
  const { DefaultArtifactClient } = await import('@actions/artifact')
  client = new DefaultArtifactClient()
  work = mkdtempSync(path.join(tmpdir(), 'ralph-unpack-'))
})

afterAll(async () => {
  jest.restoreAllMocks()
  env.restore()
  if (work) rmSync(work, { recursive: true, force: true })
  await api?.close()
  await service?.close()
})

afterEach(() => {
  expect(service.violations).toEqual([])
  expect(api.violations).toEqual([])
})

/** Uploads `zip` as it is (no archive of ours around it), as an artifact of this run; answers its id. */
async function uploadZip(zip: Buffer): Promise<number> {
  const dir = path.join(work, `upload-${++uploads}`)
  mkdirSync(dir)
  const file = path.join(dir, `artifact-${uploads}`)
  writeFileSync(file, zip)
  const { id } = await client.uploadArtifact(path.basename(file), [file], dir, { skipArchive: true })
  return id as number
}

/** A fresh folder to unpack into. */
const into = (): string => mkdtempSync(path.join(work, 'into-'))

/** Every file under `dir`, with its size. */
function written(dir: string): Record<string, number> {
  const out: Record<string, number> = {}
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true }))
    if (entry.isFile()) {
      const full = path.join(entry.parentPath, entry.name)
      out[path.relative(dir, full)] = readFileSync(full).length
    }
  return out
}

/** Bytes this process has passed to write() so far (Linux): what an unpacking can have put on disk. */
function bytesWritten(): number {
  return Number(/^wchar: (\d+)$/m.exec(readFileSync('/proc/self/io', 'utf8'))?.[1])
}

const DELIVERY: UnpackRules = {
  most: name => (name === 'delivery.json' ? MiB : name === 'delivery.bundle' ? 4 * MiB : undefined),
  total: 5 * MiB,
  entries: 2,
  strict: true
}
const RECORD: UnpackRules = {
  most: name =>
    name === 'status.json' ? MiB : /^logs\/[a-z0-9-]+\/[a-z.]+$/.test(name) ? 2 * MiB : undefined,
  total: 3 * MiB,
  entries: 10
}

const text = (value: string): Buffer => Buffer.from(value)

test('an honest delivery unpacks whole, its sizes in a data descriptor or in its headers', async () => {
  for (const descriptor of [true, false]) {
    const id = await uploadZip(
      await writeZip([
        { path: 'delivery.json', data: text('{"version":1}'), descriptor },
        { path: 'delivery.bundle', data: { zeros: 3 * MiB }, descriptor, method: 'store' }
      ])
    )
    const dir = into()
    await downloadInto(id, dir, DELIVERY)
    expect(written(dir)).toEqual({ 'delivery.json': 13, 'delivery.bundle': 3 * MiB })
    expect(readFileSync(path.join(dir, 'delivery.json'), 'utf8')).toBe('{"version":1}')
  }
})

const refusals: Array<[string, ZipSpec[], UnpackRules, UnpackRefused['why'], RegExp]> = [
  [
    'a bomb: 64 MiB of zeros in 64 KiB, its sizes hidden in a data descriptor',
    [
      { path: 'delivery.json', data: text('{}') },
      { path: 'delivery.bundle', data: { zeros: 64 * MiB }, descriptor: true }
    ],
    DELIVERY,
    'entry',
    /^"delivery\.bundle" unpacks to more than 4 MB$/
  ],
  [
    'an entry whose header owns up to 64 MiB',
    [{ path: 'delivery.bundle', data: { zeros: 64 * MiB } }],
    DELIVERY,
    'entry',
    /^"delivery\.bundle" unpacks to more than 4 MB$/
  ],
  [
    'entries each under their bound, over the bound of all together',
    [
      { path: 'status.json', data: { zeros: MiB - 10 }, descriptor: true },
      { path: 'logs/iteration-001/agent.log', data: { zeros: 2 * MiB - 10 }, descriptor: true },
      { path: 'logs/iteration-002/agent.log', data: { zeros: 2 * MiB - 10 }, descriptor: true }
    ],
    RECORD,
    'total',
    /^it unpacks to more than 3 MB$/
  ],
  [
    'what the rules do not name counts in the bound of all, though never written',
    [
      { path: 'filler.bin', data: { zeros: 8 * MiB }, descriptor: true },
      { path: 'status.json', data: text('{}') }
    ],
    RECORD,
    'total',
    /^it unpacks to more than 3 MB$/
  ],
  [
    'an entry a delivery never holds',
    [
      { path: 'delivery.json', data: text('{}') },
      { path: 'notes.txt', data: text('hello') }
    ],
    DELIVERY,
    'unexpected',
    /^it holds "notes\.txt", which it never holds$/
  ],
  [
    'a name that climbs out of the folder',
    [{ path: '../delivery.json', data: text('{}') }],
    DELIVERY,
    'unexpected',
    /^it holds "\.\/delivery\.json", which it never holds$/
  ],
  [
    'a name that would be a line of its own in the log (a newline, a workflow command)',
    [{ path: 'x\n::error::forged\u202e', data: text('{}') }],
    DELIVERY,
    'unexpected',
    /^it holds "x\?::error::forged\?", which it never holds$/
  ],
  [
    'an entry twice',
    [
      { path: 'delivery.json', data: text('{}') },
      { path: 'delivery.json', data: text('{"again":1}') }
    ],
    DELIVERY,
    'twice',
    /^it holds "delivery\.json" twice$/
  ],
  [
    'more entries than it may hold',
    [
      { path: 'delivery.json', data: text('{}') },
      { path: 'delivery.bundle', data: text('x') },
      { path: 'delivery.json.2', data: text('x') }
    ],
    { ...DELIVERY, strict: false },
    'entries',
    /^it holds more than 2 entries$/
  ]
]

test.each(refusals)('%s: refused, nothing left written', async (_name, specs, rules, why, says) => {
  const id = await uploadZip(await writeZip(specs))
  const dir = into()
  const before = bytesWritten()
  const error = await downloadInto(id, dir, rules).catch((e: Error) => e)
  const wrote = bytesWritten() - before
  expect(error).toBeInstanceOf(UnpackRefused)
  expect((error as UnpackRefused).why).toBe(why)
  expect((error as Error).message).toMatch(says)
  expect(written(dir)).toEqual({})
  // Never more than the bounds: at most the bound of all, and a little more (a chunk, the stand-ins' own).
  expect(wrote).toBeLessThan(rules.total + MiB)
})

test('a record: what its rules name is written, anything else (a name climbing out) read past and never written', async () => {
  const id = await uploadZip(
    await writeZip([
      { path: 'status.json', data: text('{"state":"finished"}') },
      { path: 'logs/iteration-001/agent.log', data: text('ran\n'), descriptor: true },
      { path: 'logs/../../escape.log', data: text('out\n') },
      { path: '/etc/passwd', data: text('root\n') },
      { path: 'ralph.patch', data: text('diff\n') }
    ])
  )
  const dir = into()
  await downloadInto(id, dir, RECORD)
  expect(written(dir)).toEqual({ 'status.json': 20, 'logs/iteration-001/agent.log': 4 })
  expect(readdirSync(work).filter(name => name.includes('escape'))).toEqual([])
})

test('not a zip: refused in one line, asked once', async () => {
  const id = await uploadZip(text('this is not a zip archive at all'))
  const asked = service.requests.filter(r => r.method === 'GetSignedArtifactURL').length
  const error = await downloadInto(id, into(), DELIVERY).catch((e: Error) => e)
  expect((error as Error).message).toMatch(/^it is not a zip that can be read \(.+\)$/)
  expect(service.requests.filter(r => r.method === 'GetSignedArtifactURL').length).toBe(asked + 1)
})

test('the artifact service answers 503, then resets the connection: tried again, and unpacked', async () => {
  const id = await uploadZip(await writeZip([{ path: 'delivery.json', data: text('{}') }]))
  service.faults.clear()
  service.faults.add('ListArtifacts', 1, '503').add('GetSignedArtifactURL', 1, 'reset')
  const dir = into()
  await downloadInto(id, dir, DELIVERY)
  expect(service.faults.unused()).toEqual([])
  expect(written(dir)).toEqual({ 'delivery.json': 2 })
  service.faults.clear()
})

test("another run's record through the REST API (302 to the blob store), with the same bounds", async () => {
  const backend = { run: 'c0ffee00-0000-4000-8000-0000000000ca', job: 'c0ffee00-0000-4000-8000-0000000000cb' }
  const earlier = api.state.addRun({
    workflowPath: '.github/workflows/ralph.yml',
    workflowRunBackendId: backend.run
  })
  env.set({ ACTIONS_RUNTIME_TOKEN: service.tokenForRun(backend.run, backend.job) })
  let honest: number
  let bomb: number
  try {
    honest = await uploadZip(await writeZip([{ path: 'status.json', data: text('{}') }]))
    bomb = await uploadZip(
      await writeZip([{ path: 'logs/iteration-001/agent.log', data: { zeros: 64 * MiB }, descriptor: true }])
    )
  } finally {
    env.set({ ACTIONS_RUNTIME_TOKEN: service.runtimeToken })
  }
  const octokit = await githubClient(TOKEN, { baseUrl: api.url })
  const findBy = {
    token: TOKEN,
    workflowRunId: earlier.id,
    repositoryOwner: 'acme',
    repositoryName: 'widgets'
  }
  const dir = into()
  await downloadInto(honest, dir, RECORD, { octokit, findBy })
  expect(written(dir)).toEqual({ 'status.json': 2 })
  const refused = await downloadInto(bomb, into(), RECORD, { octokit, findBy }).catch((e: Error) => e)
  expect((refused as Error).message).toBe('"logs/iteration-001/agent.log" unpacks to more than 2 MB')
  expect(api.requests.filter(r => r.operationId === 'actions/download-artifact').map(r => r.status)).toEqual([
    302, 302
  ])
})
