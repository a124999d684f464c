// The setup every end-to-end action test file shares: one stand (GitHub API stand-in, git server, artifact
// service) for the file, the projects it made cleaned up after it, and a scratch folder the agent's own user
// can write its markers to.
import { rmSync } from 'node:fs'
import { afterAll, beforeAll, expect } from '@jest/globals'
import { sharedDir } from '../support/isolation.js'
import { createProject, startStand, type Project, type Stand } from './harness.js'

export interface StandScope {
  readonly stand: Stand
  /** A folder the agent's user can write to; only with `scratch` given. */
  readonly scratch: string
  project(...args: Parameters<typeof createProject>): Promise<Project>
  /** Every request the run made was one GitHub and the artifact service know, answered as they answer. */
  expectClean(p: Project): void
}

/** Registers the file's beforeAll and afterAll; `scratch` names the prefix of its scratch folder. */
export function useStand(options: { scratch?: string } = {}): StandScope {
  let stand: Stand | undefined
  let scratch: string | undefined
  const projects: Project[] = []
  beforeAll(async () => {
    stand = await startStand()
    if (options.scratch) scratch = sharedDir(options.scratch)
  }, 120_000)
  afterAll(async () => {
    for (const p of projects) await p.cleanup()
    await stand?.close()
    if (scratch) rmSync(scratch, { recursive: true, force: true })
  })
  const scope: StandScope = {
    get stand(): Stand {
      if (!stand) throw new Error('the stand is started in beforeAll: use it inside a test')
      return stand
    },
    get scratch(): string {
      if (!scratch) throw new Error('useStand({ scratch }) names the scratch folder')
      return scratch
    },
    async project(...args) {
      const p = await createProject(...args)
      projects.push(p)
      return p
    },
    expectClean(p) {
      expect(p.api.violations).toEqual([])
      expect(p.api.unimplemented).toEqual([])
      expect(p.api.responseProblems).toEqual([])
      expect(scope.stand.artifacts.violations).toEqual([])
    }
  }
  return scope
}
