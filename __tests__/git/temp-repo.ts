// A real git repository in a temp folder, with an identity so commits work on a bare CI runner.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, realpathSync, rmSync, writeFileSync, mkdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'

export interface TempRepo {
  dir: string
  git(...args: string[]): string
  write(file: string, content: string): void
  cleanup(): void
}

export function tempDir(prefix = 'ralph-test-', base = tmpdir()): string {
  return realpathSync(mkdtempSync(path.join(base, prefix)))
}

export function tempRepo(options: { commit?: boolean } = {}): TempRepo {
  const dir = tempDir('ralph-repo-')
  const git = (...args: string[]): string => execFileSync('git', args, { cwd: dir, encoding: 'utf8' })
  git('init', '--quiet', '--initial-branch=main')
  git('config', 'user.name', 'Test')
  git('config', 'user.email', 'test@example.com')
  git('config', 'commit.gpgsign', 'false')
  const write = (file: string, content: string): void => {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true })
    writeFileSync(path.join(dir, file), content)
  }
  if (options.commit !== false) {
    write('README.md', 'hello\n')
    git('add', '-A')
    git('commit', '--quiet', '-m', 'start')
  }
  return { dir, git, write, cleanup: () => rmSync(dir, { recursive: true, force: true }) }
}

/** git's environment for a test that runs it in `home`: no system config, that HOME, a fixed identity. */
export function gitEnv(home: string): NodeJS.ProcessEnv {
  return {
    ...process.env,
    GIT_CONFIG_NOSYSTEM: '1',
    HOME: home,
    GIT_AUTHOR_NAME: 'a',
    GIT_AUTHOR_EMAIL: 'a@b',
    GIT_COMMITTER_NAME: 'a',
    GIT_COMMITTER_EMAIL: 'a@b'
  }
}
