// What an end-to-end test file shares: the artifact service (one per file), projects cleaned up after the
// file, a scratch folder outside every work tree, the check that nothing GitHub would refuse was asked,
// and the uploaded record of a run. Call e2eSuite() at the top of the file. And a project handed to the job's
// user on the sudo path (handTo).
import { execFileSync } from 'node:child_process'
import { chownSync, rmSync } from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, expect, jest } from '@jest/globals'
import { DONE, FIX, agentScript } from './fixtures.js'
import {
  checkoutAgain,
  createProject,
  startStand,
  type ActionRun,
  type Project,
  type Stand
} from './harness.js'
import { sharedDir } from '../support/isolation.js'

export interface E2eSuite {
  /** The artifact service in front of azurite (started before the file's first test). */
  stand(): Stand
  /** A folder outside every work tree that the agent's own user may write too, for agents' and gates' markers. */
  scratch(): string
  /** A project, removed after the file's last test. */
  project(...args: Parameters<typeof createProject>): Promise<Project>
  /** A later job's checkout of a project (checkoutAgain), removed after the file's last test. */
  checkoutAgain(...args: Parameters<typeof checkoutAgain>): Promise<Project>
  /** Nothing GitHub or the artifact service would refuse (or does not implement) was asked. */
  expectClean(p: Project): void
  /** The run record main uploaded, file by file. */
  recordOf(run: ActionRun): Promise<Map<string, Buffer>>
  /** An agent that fixes the tests at once and leaves a marker file (`ran`, in the scratch folder) saying it ran. */
  fixingAgent(): { script: string; ran: string }
  /**
   * Uploads `files` of `dir` as artifact `name` with @actions/artifact, as a job of the stand's run (or, with
   * `env`'s runtime token, of another); with `raw`, the one file as it is (a zip made by hand), named after it.
   */
  uploadArtifact(
    name: string,
    dir: string,
    files: string[],
    options?: { env?: Record<string, string>; raw?: boolean }
  ): Promise<void>
}

export function e2eSuite(): E2eSuite {
  let stand: Stand | undefined
  let scratch: string | undefined
  const projects: Project[] = []
  let markers = 0
  beforeAll(async () => {
    stand = await startStand()
    scratch = sharedDir('ralph-e2e-scratch-')
  }, 120_000)
  afterAll(async () => {
    for (const p of projects) await p.cleanup()
    await stand?.close()
    if (scratch) rmSync(scratch, { recursive: true, force: true })
  })
  const started = (): Stand => {
    if (!stand) throw new Error('the artifact service is not running: call e2eSuite() at the top of the file')
    return stand
  }
  return {
    stand: started,
    scratch: () => scratch as string,
    async project(...args) {
      const p = await createProject(...args)
      projects.push(p)
      return p
    },
    async checkoutAgain(...args) {
      const p = await checkoutAgain(...args)
      projects.push(p)
      return p
    },
    expectClean(p) {
      expect(p.api.violations).toEqual([])
      expect(p.api.unimplemented).toEqual([])
      expect(p.api.responseProblems).toEqual([])
      expect(started().artifacts.violations).toEqual([])
    },
    fixingAgent() {
      const ran = path.join(scratch as string, `agent-ran-${++markers}`)
      return {
        script: agentScript({ any: `fs.writeFileSync(${JSON.stringify(ran)}, 'ran')`, 1: `${FIX}\n${DONE}` }),
        ran
      }
    },
    async uploadArtifact(name, dir, files, options = {}) {
      const saved = { ...process.env }
      Object.assign(process.env, started().artifacts.env, options.env)
      // @actions/core writes ::debug:: workflow commands to stdout; the runner hides them, jest would not.
      const quiet = jest.spyOn(process.stdout, 'write').mockImplementation(() => true)
      try {
        const { DefaultArtifactClient } = await import('@actions/artifact')
        await new DefaultArtifactClient().uploadArtifact(
          name,
          files.map(f => path.join(dir, f)),
          dir,
          { skipArchive: options.raw === true }
        )
      } finally {
        quiet.mockRestore()
        for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key]
        Object.assign(process.env, saved)
      }
    },
    async recordOf(run) {
      const artifacts = started().artifacts
      const artifact = artifacts.listArtifacts().find(a => String(a.id) === run.outputs['artifact-id'])
      if (!artifact) throw new Error('no artifact was uploaded')
      return artifacts.downloadArtifact(artifact.name)
    }
  }
}

/** The job's user on the sudo path: the project (but the bare remote, the server's) becomes theirs. */
export function handTo(p: Project, user: { uid: number; gid: number }): void {
  chownSync(p.dir, user.uid, user.gid)
  for (const dir of [path.join(p.dir, 'runner'), p.home])
    execFileSync('chown', ['-R', `${user.uid}:${user.gid}`, dir])
}
