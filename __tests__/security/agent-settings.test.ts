// The agent CLI's own settings under isolation, for real: the isolated agent gets a copy of what its preset
// names (gemini's ~/.gemini, codex's $CODEX_HOME, opencode's $XDG_CONFIG_HOME/opencode…) in its own HOME, owned
// by its user; a symbolic link anywhere in them (the place itself included) is not followed, so a link planted
// among the settings never hands the agent a runner's secret; the runner's originals stay the runner's, and
// what the agent writes to its copy never reaches them.
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, expect, test } from '@jest/globals'
import { agentSettings } from '../../src/agents/index.js'
import { isolateAgent, type AgentIsolation } from '../../src/security/index.js'
import { tempRepo, type TempRepo } from '../git/temp-repo.js'
import { TEST_AGENT_USER, describeIsolated, isolationStartPaths } from '../support/isolation.js'

const text = (c: { head: Buffer; tail: Buffer }): string => Buffer.concat([c.head, c.tail]).toString('utf8')

describeIsolated('the agent-settings isolation tests').each(isolationStartPaths())(
  'the agent CLI settings, copied for its own user started with %s',
  start => {
    let repo: TempRepo
    let runnerHome: string
    let codexHome: string
    let secretFile: string
    let iso: AgentIsolation
    const said: string[] = []
    const secret = 'runner-secret-8151'

    beforeAll(async () => {
      repo = tempRepo()
      runnerHome = mkdtempSync(path.join(tmpdir(), 'ralph-runner-home-'))
      secretFile = path.join(runnerHome, '.git-credentials')
      writeFileSync(secretFile, `https://x:${secret}@github.com\n`, { mode: 0o600 })
      const write = (file: string, content: string): void => {
        mkdirSync(path.dirname(file), { recursive: true })
        writeFileSync(file, content, { mode: 0o600 })
      }
      write(
        path.join(runnerHome, '.gemini', 'settings.json'),
        '{"security":{"auth":{"selectedType":"gemini-api-key"}}}\n'
      )
      write(path.join(runnerHome, '.gemini', 'nested', 'deep.json'), '{}\n')
      // The attacks: a link among the settings to the runner's credentials, and a settings folder that is a link.
      symlinkSync(secretFile, path.join(runnerHome, '.gemini', 'credentials'))
      symlinkSync(runnerHome, path.join(runnerHome, '.gemini', 'home'))
      mkdirSync(path.join(runnerHome, 'elsewhere'))
      write(path.join(runnerHome, 'elsewhere', 'settings.json'), `{"leak":"${secret}"}\n`)
      symlinkSync(path.join(runnerHome, 'elsewhere'), path.join(runnerHome, '.qwen'))
      execFileSync('mkfifo', [path.join(runnerHome, '.gemini', 'pipe')])
      codexHome = path.join(runnerHome, 'codex-home')
      write(path.join(codexHome, 'config.toml'), 'model = "gpt-test"\n')
      write(path.join(runnerHome, 'xdg', 'opencode', 'opencode.json'), '{"autoupdate":false}\n')
      const env = { HOME: runnerHome, CODEX_HOME: codexHome, XDG_CONFIG_HOME: path.join(runnerHome, 'xdg') }
      // Through sudo the launcher carries the environment: the path GitHub-hosted runners take.
      iso = await isolateAgent({
        user: TEST_AGENT_USER,
        privilege: start,
        workTree: repo.dir,
        settings: ['gemini', 'codex', 'qwen', 'opencode'].flatMap(cli => agentSettings([cli, '-y'], env)),
        log: message => said.push(message)
      })
    }, 60_000)

    afterAll(async () => {
      await iso?.release()
      repo?.cleanup()
      rmSync(runnerHome, { recursive: true, force: true })
    })

    const sh = (script: string, env: NodeJS.ProcessEnv = {}) =>
      iso.runProcess({
        argv: ['bash', '-c', script],
        cwd: repo.dir,
        env: { PATH: process.env.PATH, LANG: 'C.UTF-8', ...env }
      })

    test('the preset-named settings are in the agent HOME, its own, and the run says what was copied', async () => {
      const result = await sh(
        'cat ~/.gemini/settings.json ~/.gemini/nested/deep.json ~/.config/opencode/opencode.json; stat -c "%u %n" ~/.gemini/settings.json ~/.gemini'
      )
      const out = text(result.stdout)
      expect(out).toContain('gemini-api-key')
      expect(out).toContain('"autoupdate":false')
      expect(out).toContain(`${iso.user.uid} ${iso.user.home}/.gemini/settings.json`)
      expect(out).toContain(`${iso.user.uid} ${iso.user.home}/.gemini\n`)
      expect(said).toContain(
        `The agent's user gets a copy of ${path.join(runnerHome, '.gemini')} → ~/.gemini (2 files).`
      )
    })

    test('a variable that named the settings (CODEX_HOME) names the copy', async () => {
      const result = await sh('echo "$CODEX_HOME"; cat "$CODEX_HOME/config.toml"', { CODEX_HOME: codexHome })
      expect(text(result.stdout)).toBe(`${iso.user.home}/.codex\nmodel = "gpt-test"\n`)
    })

    test("a variable the run points elsewhere (the model proxy's CODEX_HOME) is left as the run set it", async () => {
      const proxyHome = path.join(tmpdir(), 'ralph-proxy-codex-home')
      const result = await sh('echo "$CODEX_HOME"', { CODEX_HOME: proxyHome })
      expect(text(result.stdout)).toBe(`${proxyHome}\n`)
    })

    test('no link is followed: neither one inside the settings nor a settings folder that is one', async () => {
      const result = await sh(
        'ls -A ~/.gemini; ls -A ~/.qwen 2>&1; cat ~/.gemini/credentials 2>&1; grep -rs . ~ | grep -c runner-secret'
      )
      const out = text(result.stdout)
      expect(out).not.toContain(secret)
      expect(out.split('\n').slice(0, 3)).toEqual([
        'nested',
        'settings.json',
        expect.stringContaining('No such file')
      ])
      expect(said).toEqual(
        expect.arrayContaining([
          `Left out of the copy of the agent's settings: ${path.join(runnerHome, '.gemini', 'credentials')} (a symbolic link).`,
          `Left out of the copy of the agent's settings: ${path.join(runnerHome, '.gemini', 'pipe')} (not a regular file).`,
          `Left out of the copy of the agent's settings: ${path.join(runnerHome, '.qwen')} (a symbolic link).`
        ])
      )
    })

    test("what the agent writes to its copy never reaches the runner's originals, which it cannot write", async () => {
      const original = path.join(runnerHome, '.gemini', 'settings.json')
      const before = readFileSync(original, 'utf8')
      const result = await sh(
        `echo '{"tampered":true}' > ~/.gemini/settings.json && echo copy-written; echo x >> ${original} 2>/dev/null || echo original-denied`
      )
      expect(text(result.stdout)).toBe('copy-written\noriginal-denied\n')
      expect(readFileSync(original, 'utf8')).toBe(before)
      expect(statSync(original).uid).toBe(process.getuid?.())
    })
  }
)
