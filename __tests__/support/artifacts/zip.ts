// A small zip reader for artifact archives (stored and deflated entries, zip64, CRC checked), so tests
// can read an uploaded artifact back file by file without another package.
import * as zlib from 'node:zlib'

export interface ZipEntry {
  path: string
  directory: boolean
  data: Buffer
}

const EOCD = 0x06054b50
const ZIP64_LOCATOR = 0x07064b50
const ZIP64_EOCD = 0x06064b50
const CENTRAL = 0x02014b50
const LOCAL = 0x04034b50

/** Every entry of a zip archive, in central directory order. Throws on anything malformed. */
export function readZipEntries(zip: Buffer): ZipEntry[] {
  const eocd = findEndOfCentralDirectory(zip)
  let count = zip.readUInt16LE(eocd + 10)
  let offset = zip.readUInt32LE(eocd + 16)
  if (count === 0xffff || offset === 0xffffffff) {
    const locator = eocd - 20
    if (locator < 0 || zip.readUInt32LE(locator) !== ZIP64_LOCATOR)
      throw new Error('zip: zip64 locator missing')
    const record = Number(zip.readBigUInt64LE(locator + 8))
    if (zip.readUInt32LE(record) !== ZIP64_EOCD) throw new Error('zip: zip64 end record missing')
    count = Number(zip.readBigUInt64LE(record + 32))
    offset = Number(zip.readBigUInt64LE(record + 48))
  }
  const entries: ZipEntry[] = []
  for (let i = 0; i < count; i++) {
    if (zip.readUInt32LE(offset) !== CENTRAL) throw new Error(`zip: bad central directory entry ${i}`)
    const flags = zip.readUInt16LE(offset + 8)
    const method = zip.readUInt16LE(offset + 10)
    const crc = zip.readUInt32LE(offset + 16)
    let compressedSize = zip.readUInt32LE(offset + 20)
    let size = zip.readUInt32LE(offset + 24)
    const nameLength = zip.readUInt16LE(offset + 28)
    const extraLength = zip.readUInt16LE(offset + 30)
    const commentLength = zip.readUInt16LE(offset + 32)
    let localOffset = zip.readUInt32LE(offset + 42)
    if (flags & 1) throw new Error('zip: encrypted entries are not supported')
    const path = zip.toString('utf8', offset + 46, offset + 46 + nameLength)
    // zip64 extra field: the 64-bit values, in this order, for each 32-bit field that overflowed.
    let extra = offset + 46 + nameLength
    const extraEnd = extra + extraLength
    while (extra + 4 <= extraEnd) {
      const id = zip.readUInt16LE(extra)
      const length = zip.readUInt16LE(extra + 2)
      if (id === 0x0001) {
        let at = extra + 4
        const next = () => {
          const value = Number(zip.readBigUInt64LE(at))
          at += 8
          return value
        }
        if (size === 0xffffffff) size = next()
        if (compressedSize === 0xffffffff) compressedSize = next()
        if (localOffset === 0xffffffff) localOffset = next()
      }
      extra += 4 + length
    }
    offset = extraEnd + commentLength

    if (zip.readUInt32LE(localOffset) !== LOCAL) throw new Error(`zip: bad local header for ${path}`)
    const dataStart =
      localOffset + 30 + zip.readUInt16LE(localOffset + 26) + zip.readUInt16LE(localOffset + 28)
    const raw = zip.subarray(dataStart, dataStart + compressedSize)
    let data: Buffer
    if (method === 0) data = Buffer.from(raw)
    else if (method === 8) data = zlib.inflateRawSync(raw)
    else throw new Error(`zip: compression method ${method} of ${path} is not supported`)
    if (data.length !== size)
      throw new Error(`zip: ${path} is ${data.length} bytes, the directory says ${size}`)
    const crc32 = (zlib as { crc32?: (data: Buffer) => number }).crc32
    if (crc32 && crc32(data) >>> 0 !== crc) throw new Error(`zip: CRC mismatch for ${path}`)
    entries.push({ path, directory: path.endsWith('/'), data })
  }
  return entries
}

/** The files of a zip archive (directories left out), by their path inside it. */
export function readZip(zip: Buffer): Map<string, Buffer> {
  return new Map(
    readZipEntries(zip)
      .filter(e => !e.directory)
      .map(e => [e.path, e.data])
  )
}

function findEndOfCentralDirectory(zip: Buffer): number {
  // The record is 22 bytes plus a comment of up to 65535 bytes, at the very end.
  for (let at = zip.length - 22; at >= Math.max(0, zip.length - 22 - 0xffff); at--) {
    if (zip.readUInt32LE(at) === EOCD) return at
  }
  throw new Error('zip: end of central directory not found (not a zip archive?)')
}

/** One entry of a zip to write. */
export interface ZipSpec {
  path: string
  /** Its bytes, or a count of zero bytes (a bomb's filler, deflated as it streams: 1 GiB makes ~1 MiB). */
  data: Buffer | { zeros: number }
  /** deflate (default) or store. */
  method?: 'deflate' | 'store'
  /** The sizes and CRC in a data descriptor after the bytes (as a streaming writer puts them), none in the header. */
  descriptor?: boolean
}

/** A zip archive of `entries`, hand-made: what an attacker would upload as an artifact (no zip64). */
export async function writeZip(entries: ZipSpec[]): Promise<Buffer> {
  const crc32 = (zlib as unknown as { crc32: (data: Buffer, value?: number) => number }).crc32
  const parts: Buffer[] = []
  const central: Buffer[] = []
  let offset = 0
  const push = (buffer: Buffer) => {
    parts.push(buffer)
    offset += buffer.length
  }
  for (const spec of entries) {
    const name = Buffer.from(spec.path, 'utf8')
    const deflate = (spec.method ?? 'deflate') === 'deflate'
    // The bytes, in 1 MiB chunks: the CRC and the size as they stream.
    const chunks: Buffer[] = 'zeros' in spec.data ? [] : [spec.data]
    let crc = 0
    let size = 0
    const compressed: Buffer[] = []
    const sink = deflate ? zlib.createDeflateRaw({ level: 9 }) : undefined
    const done = sink
      ? new Promise<void>((resolve, reject) => {
          sink.on('data', (chunk: Buffer) => compressed.push(chunk))
          sink.on('end', resolve)
          sink.on('error', reject)
        })
      : Promise.resolve()
    const feed = async (chunk: Buffer) => {
      crc = crc32(chunk, crc)
      size += chunk.length
      if (!sink) return void compressed.push(chunk)
      if (!sink.write(chunk)) await new Promise(resolve => sink.once('drain', resolve))
    }
    if ('zeros' in spec.data) {
      const zero = Buffer.alloc(1024 * 1024)
      for (let left = spec.data.zeros; left > 0; left -= zero.length)
        await feed(left >= zero.length ? zero : zero.subarray(0, left))
    } else for (const chunk of chunks) await feed(chunk)
    sink?.end()
    await done
    const data = Buffer.concat(compressed)
    const flags = 0x0800 | (spec.descriptor ? 0x0008 : 0)
    const method = deflate ? 8 : 0
    const header = Buffer.alloc(30)
    header.writeUInt32LE(LOCAL, 0)
    header.writeUInt16LE(20, 4)
    header.writeUInt16LE(flags, 6)
    header.writeUInt16LE(method, 8)
    header.writeUInt16LE(0, 10)
    header.writeUInt16LE(0x21, 12)
    header.writeUInt32LE(spec.descriptor ? 0 : crc >>> 0, 14)
    header.writeUInt32LE(spec.descriptor ? 0 : data.length, 18)
    header.writeUInt32LE(spec.descriptor ? 0 : size, 22)
    header.writeUInt16LE(name.length, 26)
    header.writeUInt16LE(0, 28)
    const at = offset
    push(header)
    push(name)
    push(data)
    if (spec.descriptor) {
      const descriptor = Buffer.alloc(16)
      descriptor.writeUInt32LE(0x08074b50, 0)
      descriptor.writeUInt32LE(crc >>> 0, 4)
      descriptor.writeUInt32LE(data.length, 8)
      descriptor.writeUInt32LE(size, 12)
      push(descriptor)
    }
    const record = Buffer.alloc(46)
    record.writeUInt32LE(CENTRAL, 0)
    record.writeUInt16LE(0x031e, 4)
    record.writeUInt16LE(20, 6)
    record.writeUInt16LE(flags, 8)
    record.writeUInt16LE(method, 10)
    record.writeUInt16LE(0, 12)
    record.writeUInt16LE(0x21, 14)
    record.writeUInt32LE(crc >>> 0, 16)
    record.writeUInt32LE(data.length, 20)
    record.writeUInt32LE(size, 24)
    record.writeUInt16LE(name.length, 28)
    record.writeUInt32LE((0o100644 << 16) >>> 0, 38)
    record.writeUInt32LE(at, 42)
    central.push(record, name)
  }
  const start = offset
  const directory = Buffer.concat(central)
  const end = Buffer.alloc(22)
  end.writeUInt32LE(EOCD, 0)
  end.writeUInt16LE(entries.length, 8)
  end.writeUInt16LE(entries.length, 10)
  end.writeUInt32LE(directory.length, 12)
  end.writeUInt32LE(start, 16)
  return Buffer.concat([...parts, directory, end])
}
