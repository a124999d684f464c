// The artifact zip reader on archives built by hand: stored and deflated entries, directories, bad input.
import * as zlib from 'node:zlib'
import { readZip, readZipEntries } from './artifacts/zip.js'

test('the zip reader reads stored and deflated entries and checks sizes', () => {
  const zip = buildZip([
    { name: 'dir/', data: Buffer.alloc(0), deflate: false },
    { name: 'dir/a.txt', data: Buffer.from('stored'), deflate: false },
    { name: 'b.txt', data: Buffer.from('deflated '.repeat(50)), deflate: true }
  ])
  expect(readZipEntries(zip).map(e => [e.path, e.directory])).toEqual([
    ['dir/', true],
    ['dir/a.txt', false],
    ['b.txt', false]
  ])
  const read = readZip(zip)
  expect(read.get('dir/a.txt')?.toString()).toBe('stored')
  expect(read.get('b.txt')?.toString()).toBe('deflated '.repeat(50))
  expect(() => readZip(Buffer.from('not a zip at all, not even close'))).toThrow(/not a zip/)
})

/** A minimal zip writer, just for the reader's test. */
function buildZip(entries: { name: string; data: Buffer; deflate: boolean }[]): Buffer {
  const crc32 = (zlib as { crc32?: (data: Buffer) => number }).crc32
  const locals: Buffer[] = []
  const centrals: Buffer[] = []
  let offset = 0
  for (const entry of entries) {
    const body = entry.deflate ? zlib.deflateRawSync(entry.data) : entry.data
    const name = Buffer.from(entry.name)
    const crc = crc32 ? crc32(entry.data) : 0
    const local = Buffer.alloc(30)
    local.writeUInt32LE(0x04034b50, 0)
    local.writeUInt16LE(20, 4)
    local.writeUInt16LE(entry.deflate ? 8 : 0, 8)
    local.writeUInt32LE(crc, 14)
    local.writeUInt32LE(body.length, 18)
    local.writeUInt32LE(entry.data.length, 22)
    local.writeUInt16LE(name.length, 26)
    const central = Buffer.alloc(46)
    central.writeUInt32LE(0x02014b50, 0)
    central.writeUInt16LE(20, 4)
    central.writeUInt16LE(20, 6)
    central.writeUInt16LE(entry.deflate ? 8 : 0, 10)
    central.writeUInt32LE(crc, 16)
    central.writeUInt32LE(body.length, 20)
    central.writeUInt32LE(entry.data.length, 24)
    central.writeUInt16LE(name.length, 28)
    central.writeUInt32LE(offset, 42)
    locals.push(local, name, body)
    centrals.push(central, name)
    offset += 30 + name.length + body.length
  }
  const directory = Buffer.concat(centrals)
  const end = Buffer.alloc(22)
  end.writeUInt32LE(0x06054b50, 0)
  end.writeUInt16LE(entries.length, 8)
  end.writeUInt16LE(entries.length, 10)
  end.writeUInt32LE(directory.length, 12)
  end.writeUInt32LE(offset, 16)
  return Buffer.concat([...locals, directory, end])
}
