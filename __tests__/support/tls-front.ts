// HTTPS in front of a loopback server, with a certificate from a throwaway CA made by openssl: an upstream the
// model proxy can reach over TLS only when it trusts that CA.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import net, { type AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import tls from 'node:tls'

export interface TestCa {
  /** The CA's certificate (PEM) and its file. */
  pem: string
  file: string
  /** A key and certificate for 127.0.0.1 that the CA signed. */
  key: Buffer
  cert: Buffer
  remove(): void
}

export function makeTestCa(): TestCa {
  const dir = mkdtempSync(path.join(tmpdir(), 'ralph-test-ca-'))
  const openssl = (...args: string[]): void => {
    execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' })
  }
  openssl(
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    'ca.key',
    '-out',
    'ca.pem',
    '-days',
    '2',
    '-subj',
    '/CN=ralph test CA'
  )
  openssl(
    'req',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    'tls.key',
    '-out',
    'tls.csr',
    '-subj',
    '/CN=127.0.0.1'
  )
  writeFileSync(path.join(dir, 'ext.cnf'), 'subjectAltName=IP:127.0.0.1\n')
  openssl(
    'x509',
    '-req',
    '-in',
    'tls.csr',
    '-CA',
    'ca.pem',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-out',
    'tls.pem',
    '-days',
    '2',
    '-extfile',
    'ext.cnf'
  )
  return {
    pem: readFileSync(path.join(dir, 'ca.pem'), 'utf8'),
    file: path.join(dir, 'ca.pem'),
    key: readFileSync(path.join(dir, 'tls.key')),
    cert: readFileSync(path.join(dir, 'tls.pem')),
    remove: () => rmSync(dir, { recursive: true, force: true })
  }
}

export interface TlsFront {
  /** https://127.0.0.1:<port> */
  url: string
  close(): Promise<void>
}

/** TLS terminated with `ca`'s certificate, each connection piped to the plain server at `plainUrl`. */
export async function startTlsFront(plainUrl: string, ca: TestCa): Promise<TlsFront> {
  const port = Number(new URL(plainUrl).port)
  const front = tls.createServer({ key: ca.key, cert: ca.cert }, socket => {
    const plain = net.connect(port, '127.0.0.1')
    socket.pipe(plain).pipe(socket)
    socket.on('error', () => plain.destroy())
    plain.on('error', () => socket.destroy())
  })
  await new Promise<void>(resolve => front.listen(0, '127.0.0.1', resolve))
  return {
    url: `https://127.0.0.1:${(front.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>(resolve => {
        front.close(() => resolve())
      })
  }
}
