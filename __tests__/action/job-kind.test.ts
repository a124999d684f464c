// The job kind, decided once from mode, resume and dry-run: each kind and the values it passes down.
import { jobKind, type JobKind } from '../../src/action/jobs/kind.js'
import type { ActionInputs } from '../../src/action/inputs.js'

type Given = Pick<ActionInputs, 'mode'> & Partial<Pick<ActionInputs, 'resume' | 'dryRun'>>

test.each<[string, Given, Partial<JobKind>]>([
  [
    'a run is the one job: it writes, installs, meters, delivers',
    { mode: 'run' },
    { kind: 'one', writes: true, installsAgent: true, meters: true, delivers: true, artifactSuffix: '' }
  ],
  [
    'the agent job of two writes nothing to GitHub and delivers nothing (its deliver job does)',
    { mode: 'agent' },
    { kind: 'agent', writes: false, installsAgent: true, meters: true, delivers: false }
  ],
  [
    'the deliver job runs no agent: no install, no model proxy; its record is an artifact of its own; it verifies again',
    { mode: 'deliver' },
    {
      kind: 'deliver',
      writes: true,
      installsAgent: false,
      meters: false,
      artifactSuffix: '-deliver',
      verification: 'again'
    }
  ],
  [
    "resume makes a run the chain's next job",
    { mode: 'run', resume: '42' },
    { kind: 'resumed', delivers: true }
  ],
  ['mode: list runs nothing', { mode: 'list' }, { kind: 'list', delivers: false }],
  [
    'a dry run is a dry run whatever the mode',
    { mode: 'agent', dryRun: true },
    { kind: 'dry-run', writes: false }
  ],
  [
    "a dry run of a chain's next run checks the run it names first",
    { mode: 'run', dryRun: true, resume: '42' },
    { kind: 'dry-run', resumes: '42' }
  ]
])('%s', (_, given, expected) => {
  expect(jobKind(given)).toMatchObject(expected)
})
