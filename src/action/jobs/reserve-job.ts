// `mode: reserve` (#38), the first job of a two-job workflow with a budget: admit → reserve → the `lease`
// output. The agent job holds no write token and cannot write the ledger, so this job (contents: write)
// reserves for it; the lease is the agent job's whole cap, and the deliver job settles it from the agent
// job's metered spend. No agent runs here, nothing is checked out or installed.
import * as core from '@actions/core'
import { ralphNameOf } from '../../trigger/admission.js'
import { budgetLeftOutput, leftWords } from '../budget.js'
import { budgetRun, reserveStepFor } from '../budget-step.js'
import { InputError } from '../inputs.js'
import { admit, clientsFor } from '../steps/admit.js'
import { badInput, endsHere, type StepEnd } from '../steps/ending.js'
import type { ReadRun } from '../steps/types.js'
import { saveState } from '../state.js'
import type { JobKind } from './kind.js'

/** The agent job and the deliver job after it: their lease counts until both may have ended. */
const DELIVER_JOB_SECONDS = 60 * 60

export async function reserveJob(read: ReadRun, kind: JobKind): Promise<StepEnd> {
  const admitted = await admit(read, clientsFor(read.inputs, kind.writes))
  if (endsHere(admitted)) return admitted.end
  const ralph = admitted.trigger.ralphName ?? ralphNameOf(admitted.inputs.ralph)
  const run = budgetRun(admitted, ralph, DELIVER_JOB_SECONDS)
  if (!run) return badInput(new InputError("Input 'budget' is required in mode: reserve."))
  const held = await reserveStepFor(run, admitted)
  if (endsHere(held)) return { ...held.end, outputs: { ...held.end.outputs, lease: '' } }
  const { lease } = held
  if (!lease) throw new Error('mode: reserve took no lease of its own')
  // The lease is the later jobs' to settle: this job's post step leaves it alone.
  saveState('lease', '')
  await held.store?.close()
  const line = `Reserved ${lease.grantedUsd().toFixed(2)} USD for the agent job (lease ${lease.id}); ${leftWords(held.status)}.`
  core.info(line)
  return {
    outputs: { lease: JSON.stringify(lease.state()), ...budgetLeftOutput(held.status) },
    summary: `💸 ${line}\n`,
    finished: true
  }
}
