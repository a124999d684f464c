// A failed workflow run read through the one Octokit factory, against the GitHub stand-in: its failing jobs
// and steps, and the end of a job's log from the blob store the API redirects to (never with the token, by a
// Range when the log is long).
import { expect, test } from '@jest/globals'
import { failedJobs, jobLogTail } from '../../src/github/ci-jobs.js'
import { useStandIn } from './stand-in.js'

const repo = { owner: 'acme', repo: 'widgets' }

const stand = useStandIn()

const lines = (count: number, from = 1) =>
  Array.from({ length: count }, (_, i) => `2026-01-05T10:00:00.0000000Z line ${from + i}\n`).join('')

function run() {
  return stand.api.state.addRun({
    workflowPath: '.github/workflows/ci.yml',
    headBranch: 'ralph/issue-1',
    status: 'completed',
    conclusion: 'failure'
  })
}

test('the failing jobs of the latest attempt, each with its failed steps; passing and earlier ones are left out', async () => {
  const { id } = run()
  stand.api.state.addJob(id, { name: 'old attempt', runAttempt: 0 })
  const test = stand.api.state.addJob(id, {
    name: 'test (ubuntu, 20)',
    steps: [
      { name: 'Set up job', conclusion: 'success' },
      { name: 'Run npm test', conclusion: 'failure' },
      { name: 'Post checkout', conclusion: 'success' }
    ]
  })
  stand.api.state.addJob(id, { name: 'lint', conclusion: 'success' })
  stand.api.state.addJob(id, {
    name: 'e2e',
    conclusion: 'timed_out',
    steps: [{ name: 'Run e2e', conclusion: 'cancelled' }]
  })
  stand.api.state.addJob(id, { name: 'deploy', conclusion: 'skipped' })
  const found = await failedJobs(stand.octokit, repo, id)
  expect(found.total).toBe(4)
  expect(found.failed).toEqual([
    {
      id: test.id,
      name: 'test (ubuntu, 20)',
      conclusion: 'failure',
      url: expect.stringContaining(`/job/${test.id}`),
      failedSteps: [{ number: 2, name: 'Run npm test', conclusion: 'failure' }]
    },
    expect.objectContaining({ name: 'e2e', conclusion: 'timed_out', failedSteps: [] })
  ])
})

test('a short log comes whole, from the blob store, without the token', async () => {
  const job = stand.api.state.addJob(run().id, { name: 'test', log: lines(3) })
  expect(await jobLogTail(stand.octokit, repo, job.id)).toEqual({
    text: lines(3),
    size: lines(3).length,
    cut: false
  })
  expect(stand.api.state.logDownloads).toEqual([
    expect.objectContaining({ jobId: job.id, authorization: false, status: 200 })
  ])
})

test('a long log is read from where its tail starts (a Range), and starts at a whole line', async () => {
  const log = lines(200_000)
  const job = stand.api.state.addJob(run().id, { name: 'test', log })
  const tail = await jobLogTail(stand.octokit, repo, job.id, { maxBytes: 4096 })
  expect(tail.cut).toBe(true)
  expect(tail.size).toBe(Buffer.byteLength(log))
  expect(tail.text.endsWith('line 200000\n')).toBe(true)
  expect(tail.text).toMatch(/^2026-01-05T10:00:00\.0000000Z line \d+\n/)
  expect(tail.text.length).toBeLessThanOrEqual(4096)
  expect(log.endsWith(tail.text)).toBe(true)
  // The whole log was not sent: its first answer was let go, the second was the tail.
  const ranged = stand.api.state.logDownloads.find(d => d.status === 206)
  expect(ranged).toMatchObject({ range: `bytes=${Buffer.byteLength(log) - 4096}-`, bytes: 4096 })
})

test('a log not long enough for a Range is streamed, and only its end kept, from a whole line', async () => {
  const log = lines(100)
  const job = stand.api.state.addJob(run().id, { name: 'test', log })
  const tail = await jobLogTail(stand.octokit, repo, job.id, { maxBytes: Math.floor(log.length / 2) + 7 })
  expect(tail.cut).toBe(true)
  expect(log.endsWith(tail.text)).toBe(true)
  expect(tail.text).toMatch(/^2026-.* line \d+\n[\s\S]* line 100\n$/)
  expect(stand.api.state.logDownloads.map(d => d.status)).toEqual([200])
})

test('a multi-byte character cut by the tail does not show up as a broken character', async () => {
  const log = `${'é'.repeat(3000)}\nlast line ✓\n`
  const job = stand.api.state.addJob(run().id, { name: 'test', log })
  const tail = await jobLogTail(stand.octokit, repo, job.id, { maxBytes: 101 })
  expect(tail.text).toBe('last line ✓\n')
})

test('a job with no log is an error the caller can say', async () => {
  const job = stand.api.state.addJob(run().id, { name: 'queued', status: 'queued', conclusion: null })
  await expect(jobLogTail(stand.octokit, repo, job.id)).rejects.toMatchObject({ status: 404 })
})
