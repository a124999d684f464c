// A real Azure blob store on loopback: azurite's blob server, in memory, on a free port.
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'

/** Azurite's well-known development account (public, documented; only valid against the emulator). */
export const DEV_ACCOUNT = 'devstoreaccount1'
export const DEV_ACCOUNT_KEY =
  'Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=='

export interface Azurite {
  /** e.g. http://127.0.0.1:41617/devstoreaccount1 */
  blobEndpoint: string
  close(): Promise<void>
}

const require = createRequire(import.meta.url)

function azuriteBlobMain(): string {
  const packageJson = require.resolve('azurite/package.json')
  const bin = (JSON.parse(readFileSync(packageJson, 'utf8')) as { bin: Record<string, string> }).bin[
    'azurite-blob'
  ]
  return join(dirname(packageJson), bin)
}

export async function startAzurite(options: { timeoutMs?: number } = {}): Promise<Azurite> {
  // Its default location is the working folder: even in memory, keep whatever it writes out of the repo.
  const location = mkdtempSync(join(tmpdir(), 'azurite-'))
  const child = spawn(
    process.execPath,
    [
      azuriteBlobMain(),
      '--blobHost',
      '127.0.0.1',
      '--blobPort',
      '0',
      '--inMemoryPersistence',
      '--disableTelemetry',
      '--skipApiVersionCheck',
      '--loose'
    ],
    { cwd: location, stdio: ['ignore', 'pipe', 'pipe'] }
  )
  const killOnExit = () => child.kill('SIGKILL')
  process.once('exit', killOnExit)

  let output = ''
  const listening = new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`azurite did not start within ${options.timeoutMs ?? 120_000} ms:\n${output}`))
    }, options.timeoutMs ?? 120_000)
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      const m = /successfully listens on http:\/\/127\.0\.0\.1:(\d+)/.exec(output)
      if (m) {
        clearTimeout(timer)
        resolve(Number(m[1]))
      }
    }
    child.stdout?.on('data', onData)
    child.stderr?.on('data', onData)
    child.once('exit', code => {
      clearTimeout(timer)
      reject(new Error(`azurite exited with ${code} before listening:\n${output}`))
    })
  })
  let port: number
  try {
    port = await listening
  } catch (error) {
    process.removeListener('exit', killOnExit)
    rmSync(location, { recursive: true, force: true })
    throw error
  }
  // Keep draining its output so a chatty azurite never blocks on a full pipe.
  child.stdout?.on('data', () => {})
  child.stderr?.on('data', () => {})

  return {
    blobEndpoint: `http://127.0.0.1:${port}/${DEV_ACCOUNT}`,
    close: () => stop(child, location, killOnExit)
  }
}

function stop(child: ChildProcess, location: string, killOnExit: () => void): Promise<void> {
  process.removeListener('exit', killOnExit)
  return new Promise(resolve => {
    const done = () => {
      rmSync(location, { recursive: true, force: true })
      resolve()
    }
    if (child.exitCode !== null || child.signalCode !== null) return done()
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000)
    child.once('exit', () => {
      clearTimeout(timer)
      done()
    })
    child.kill('SIGTERM')
  })
}
