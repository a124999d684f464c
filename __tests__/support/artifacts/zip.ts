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
