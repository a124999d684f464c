// Splitting RALPH.md into frontmatter and body, and reading the frontmatter the way the reference does:
// PyYAML's safe_load, i.e. YAML 1.1 (`credit: no` is false, `010` is 8, `1e3` is a string).
//
// The `yaml` package parses (it reports positions), with the failsafe schema so that every scalar reaches
// us as text; the PyYAML resolution rules and constructors below turn the nodes into Python values.
import { CST, isAlias, isMap, isScalar, isSeq, LineCounter, parseDocument, Parser, visit } from 'yaml'
import type { Node as YamlNode, Scalar, YAMLMap, YAMLSeq } from 'yaml'
import { pyRstrip } from './pystr.js'
import { PyOpaque, pyBytesRepr, pyRepr, pyStrRepr, pyTypeName } from './pyvalue.js'
import type { PyDict, PyValue } from './pyvalue.js'
import { constructFloat, constructInt, constructTimestamp } from './py-scalars.js'
import { RalphError } from './types.js'
import type { RalphProblem } from './types.js'

const DELIMITER = '---'
const BOM = '\ufeff'

/** RALPH.md cut in two, as the reference cuts it. Lines are 1-based lines of the (newline-normalised) file. */
export interface FrontmatterSplit {
  /** The text between the `---` lines; null when the file has no (closed) frontmatter block. */
  yaml: string | null
  /** The file line the YAML text starts on (2), or 0 when `yaml` is null. */
  yamlStartLine: number
  /** Everything after the closing `---` line, untrimmed; the whole file when there is no frontmatter. */
  body: string
  /** The file line `body` starts on. */
  bodyStartLine: number
}

/** Python's universal newlines (`read_text`): CRLF and lone CR become LF. */
export function normalizeNewlines(text: string): string {
  return text.replace(/\r\n?/g, '\n')
}

/**
 * Splits the file text into frontmatter and body. Newlines are normalised and one leading BOM is dropped first.
 * The first line opens the block when it is `---` (trailing whitespace allowed); the next such line closes it.
 * An indented `---` does not count. Without a closing line the whole file is body.
 */
export function splitFrontmatter(text: string): FrontmatterSplit {
  let normalized = normalizeNewlines(text)
  if (normalized.startsWith(BOM)) normalized = normalized.slice(BOM.length)
  const lines = normalized.split('\n')
  const noFrontmatter = { yaml: null, yamlStartLine: 0, body: normalized, bodyStartLine: 1 }
  if (pyRstrip(lines[0]) !== DELIMITER) return noFrontmatter
  for (let i = 1; i < lines.length; i++) {
    if (pyRstrip(lines[i]) === DELIMITER) {
      return {
        yaml: lines.slice(1, i).join('\n'),
        yamlStartLine: 2,
        body: lines.slice(i + 1).join('\n'),
        bodyStartLine: i + 2
      }
    }
  }
  return noFrontmatter
}

/** A 1-based position in RALPH.md. */
export interface SourcePos {
  line: number
  column: number
}

/** Where a mapping's key and its value are (undefined for a node the parser gave no range). */
interface EntryPositions {
  key?: SourcePos | undefined
  value?: SourcePos | undefined
}

/** Where the values of a parsed frontmatter came from, for messages that point at a line. */
export class FrontmatterPositions {
  private readonly nodes = new WeakMap<object, SourcePos>()
  private readonly entries = new WeakMap<PyDict, Map<PyValue, EntryPositions>>()
  private readonly items = new WeakMap<PyValue[], (SourcePos | undefined)[]>()

  /** The position of a list or mapping. */
  of(value: PyValue): SourcePos | undefined {
    return typeof value === 'object' && value !== null ? this.nodes.get(value) : undefined
  }

  /** The position of a mapping's key, and of its value. */
  entry(dict: PyDict, key: PyValue): EntryPositions {
    return this.entries.get(dict)?.get(key) ?? {}
  }

  /** The position of a list's item. */
  item(list: PyValue[], index: number): SourcePos | undefined {
    return this.items.get(list)?.[index]
  }

  /** @internal */
  recordNode(value: object, pos: SourcePos | undefined): void {
    if (pos) this.nodes.set(value, pos)
  }

  /** @internal */
  recordEntry(dict: PyDict, key: PyValue, pos: EntryPositions): void {
    let map = this.entries.get(dict)
    if (!map) this.entries.set(dict, (map = new Map()))
    map.set(key, pos)
  }

  /** @internal */
  recordItems(list: PyValue[], positions: (SourcePos | undefined)[]): void {
    this.items.set(list, positions)
  }
}

/** The frontmatter as the reference reads it, with positions and the split it came from. */
export interface ParsedFrontmatter {
  data: PyDict
  positions: FrontmatterPositions
  split: FrontmatterSplit
}

/**
 * Parses RALPH.md text and returns its frontmatter mapping (an empty Map when there is none).
 * Throws RalphError: `FILE:LINE:COLUMN: Invalid YAML in frontmatter: <reason>` (the reference prints a
 * traceback instead: a deliberate difference), or the reference's `Frontmatter must be a YAML mapping, got list`.
 */
export function parseFrontmatter(file: string, text: string): PyDict {
  return readFrontmatter(file, text).data
}

/** parseFrontmatter with the positions of every value, for validation messages. */
export function readFrontmatter(file: string, text: string): ParsedFrontmatter {
  const split = splitFrontmatter(text)
  const positions = new FrontmatterPositions()
  // The reference only parses a non-empty block: `---\n---` is an empty mapping.
  if (!split.yaml) return { data: new Map(), positions, split }

  const lineCounter = new LineCounter()
  const doc = parseDocument(split.yaml, {
    version: '1.1',
    schema: 'failsafe',
    merge: false,
    uniqueKeys: false,
    resolveKnownTags: false,
    prettyErrors: false,
    lineCounter
  })
  const toPos = (offset: number): SourcePos => {
    const { line, col } = lineCounter.linePos(offset)
    return { line: line + split.yamlStartLine - 1, column: col }
  }
  const fail = (offset: number, reason: string): never => {
    const pos = toPos(offset)
    const message = `Invalid YAML in frontmatter: ${reason}`
    const problem: RalphProblem = { file, line: pos.line, column: pos.column, message, exitCode: 1 }
    throw new RalphError(`${file}:${pos.line}:${pos.column}: ${message}`, 1, [problem])
  }

  const error = doc.errors[0]
  if (error) fail(error.pos[0], yamlReason(error.code, error.message))
  checkAnchors(doc, fail)
  checkKeylessValues(split.yaml, fail)

  const data = new PyConstructor(split.yaml, doc, positions, toPos, fail).construct(doc.contents)
  if (data === null) return { data: new Map(), positions, split }
  if (!(data instanceof Map)) {
    const pos = doc.contents?.range ? toPos(doc.contents.range[0]) : undefined
    const message = `Frontmatter must be a YAML mapping, got ${pyTypeName(data)}`
    throw new RalphError(message, 1, [{ file, ...pos, message, exitCode: 1 }])
  }
  return { data, positions, split }
}

// The yaml package's messages are sentences; keep the first line, without its own position suffix.
function yamlReason(code: string, message: string): string {
  if (code === 'MULTIPLE_DOCS') return 'expected a single document, but found another one (a "..." line?)'
  const first = message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '')
  return first.charAt(0).toLowerCase() + first.slice(1)
}

// PyYAML refuses an anchor defined twice; the yaml package lets the second one win.
function checkAnchors(doc: ReturnType<typeof parseDocument>, fail: Fail): void {
  const seen = new Set<string>()
  visit(doc, {
    Node(_key, node) {
      const anchor = (node as { anchor?: string }).anchor
      if (!anchor) return
      if (seen.has(anchor)) fail(node.range?.[0] ?? 0, `found duplicate anchor ${pyStrRepr(anchor)}`)
      seen.add(anchor)
    }
  })
}

// PyYAML allows a `:` without a key before it only after an explicit `?`; the yaml package takes the key as
// empty, so that `a: [x, y]: z` would silently gain a None key.
function checkKeylessValues(yamlText: string, fail: Fail): void {
  for (const token of new Parser().parse(yamlText)) {
    if (token.type !== 'document') continue
    CST.visit(token, item => {
      if (item.key !== null || !item.sep) return
      const explicit = 'explicitKey' in item || item.start.some(t => t.type === 'explicit-key-ind')
      const colon = item.sep.find(t => t.type === 'map-value-ind')
      if (!explicit && colon) fail(colon.offset, 'mapping values are not allowed here')
    })
  }
}

// PyYAML's implicit resolvers (resolver.py), tried in this order for plain scalars only.
const IMPLICIT: [string, RegExp][] = [
  ['bool', /^(?:yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$/],
  [
    'float',
    /^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$/
  ],
  [
    'int',
    /^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$/
  ],
  ['merge', /^(?:<<)$/],
  ['null', /^(?:~|null|Null|NULL|)$/],
  [
    'timestamp',
    /^(?:[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]|[0-9][0-9][0-9][0-9]-[0-9][0-9]?-[0-9][0-9]?(?:[Tt]|[ \t]+)[0-9][0-9]?:[0-9][0-9]:[0-9][0-9](?:\.[0-9]*)?(?:[ \t]*(?:Z|[-+][0-9][0-9]?(?::[0-9][0-9])?))?)$/
  ],
  ['value', /^(?:=)$/]
]

const YAML_TAG = 'tag:yaml.org,2002:'

type Fail = (offset: number, reason: string) => never

/** PyYAML's SafeConstructor over the yaml package's nodes. */
class PyConstructor {
  private readonly built = new Map<YamlNode, PyValue>()

  constructor(
    private readonly source: string,
    private readonly doc: ReturnType<typeof parseDocument>,
    private readonly positions: FrontmatterPositions,
    private readonly toPos: (offset: number) => SourcePos,
    private readonly fail: Fail
  ) {}

  construct(node: unknown): PyValue {
    if (node === null || node === undefined) return null
    if (isAlias(node)) {
      const target = node.resolve(this.doc)
      if (!target) return this.fail(node.range?.[0] ?? 0, `found undefined alias ${node.source}`)
      return this.construct(target)
    }
    const yamlNode = node as YamlNode
    if (this.built.has(yamlNode)) return this.built.get(yamlNode) as PyValue
    const start = yamlNode.range?.[0] ?? 0
    if (isScalar(node)) {
      const value = this.scalar(node, this.tagOf(node), start)
      this.built.set(yamlNode, value)
      return value
    }
    if (isMap(node)) return this.mapping(node as YAMLMap<unknown, unknown>, start)
    if (isSeq(node)) return this.sequence(node as YAMLSeq<unknown>, start)
    return this.fail(start, 'unsupported YAML node')
  }

  /** The node's tag as PyYAML resolves it: the explicit one, or the implicit one for plain scalars. */
  private tagOf(node: YamlNode): string {
    const explicit = node.tag
    if (explicit && explicit !== '!') return explicit
    if (isScalar(node)) {
      // PyYAML resolves a scalar tagged `!` as if it were plain, quoted or not: `! '12'` is the int 12.
      if (node.type !== 'PLAIN' && explicit !== '!') return YAML_TAG + 'str'
      // Python's `$` also matches before a final newline.
      const source = this.scalarText(node).replace(/\n$/, '')
      for (const [name, re] of IMPLICIT) if (re.test(source)) return YAML_TAG + name
      return YAML_TAG + 'str'
    }
    return YAML_TAG + (isMap(node) ? 'map' : 'seq')
  }

  private scalar(node: Scalar, tag: string, start: number): PyValue {
    const text = this.scalarText(node)
    switch (tag) {
      case YAML_TAG + 'str':
        return text
      case YAML_TAG + 'null':
        return null
      case YAML_TAG + 'bool': {
        const lower = text.toLowerCase()
        if (['yes', 'true', 'on'].includes(lower)) return true
        if (['no', 'false', 'off'].includes(lower)) return false
        return this.fail(start, `invalid boolean value ${pyStrRepr(text)}`)
      }
      case YAML_TAG + 'int':
        return constructInt(text) ?? this.fail(start, `invalid int value ${pyStrRepr(text)}`)
      case YAML_TAG + 'float':
        return constructFloat(text) ?? this.fail(start, `invalid float value ${pyStrRepr(text)}`)
      case YAML_TAG + 'timestamp':
        return constructTimestamp(text) ?? this.fail(start, `invalid timestamp ${pyStrRepr(text)}`)
      case YAML_TAG + 'binary': {
        // Like Python's base64.decodebytes, characters outside the alphabet are skipped.
        const bytes = Buffer.from(text.replace(/[^A-Za-z0-9+/=]/g, ''), 'base64')
        return new PyOpaque('bytes', pyBytesRepr(bytes))
      }
      default:
        if ([YAML_TAG + 'map', YAML_TAG + 'seq', YAML_TAG + 'set', YAML_TAG + 'omap'].includes(tag)) {
          const kind = tag.endsWith('seq') || tag.endsWith('omap') ? 'sequence' : 'mapping'
          return this.fail(start, `expected a ${kind} node, but found scalar`)
        }
        return this.fail(start, `could not determine a constructor for the tag ${pyStrRepr(tag)}`)
    }
  }

  /**
   * The YAML text ends where the closing `---` line starts, so its last line has no line break. PyYAML then
   * gives a block scalar on that line no final newline (`a: |` + `  x` is 'x'); the yaml package adds one.
   */
  private scalarText(node: Scalar): string {
    const text = String(node.source ?? '')
    return this.blockScalarAtEnd(node) ? text.slice(0, -1) : text
  }

  private blockScalarAtEnd(node: Scalar): boolean {
    if (node.type !== 'BLOCK_LITERAL' && node.type !== 'BLOCK_FOLDED') return false
    if (!String(node.source).endsWith('\n') || !node.range) return false
    const src = this.source
    const contentEnd = src.replace(/[ \t\n]+$/, '').length
    return !src.slice(contentEnd).includes('\n') && node.range[0] < contentEnd && node.range[1] >= contentEnd
  }

  private sequence(node: YAMLSeq<unknown>, start: number): PyValue {
    const tag = this.tagOf(node)
    if (tag === YAML_TAG + 'omap' || tag === YAML_TAG + 'pairs') {
      const pairs: PyValue[] = []
      this.built.set(node, pairs)
      this.positions.recordNode(pairs, this.toPos(start))
      for (const item of node.items) {
        const itemStart = (item as YamlNode | null)?.range?.[0] ?? start
        if (!isMap(item)) return this.fail(itemStart, 'expected a mapping of length 1')
        if (item.items.length !== 1) {
          return this.fail(itemStart, `expected a single mapping item, but found ${item.items.length} items`)
        }
        const key = this.construct(item.items[0].key)
        const value = this.construct(item.items[0].value)
        pairs.push(new PyOpaque('tuple', `(${pyRepr(key)}, ${pyRepr(value)})`))
      }
      return pairs
    }
    if (tag !== YAML_TAG + 'seq') return this.wrongKind(tag, 'sequence', start)
    const list: PyValue[] = []
    this.built.set(node, list)
    this.positions.recordNode(list, this.toPos(start))
    const itemPositions: (SourcePos | undefined)[] = []
    for (const item of node.items) {
      const itemNode = item as YamlNode | null
      itemPositions.push(itemNode?.range ? this.toPos(itemNode.range[0]) : undefined)
      list.push(this.construct(item))
    }
    this.positions.recordItems(list, itemPositions)
    return list
  }

  private mapping(node: YAMLMap<unknown, unknown>, start: number): PyValue {
    const tag = this.tagOf(node)
    if (tag !== YAML_TAG + 'map' && tag !== YAML_TAG + 'set') return this.wrongKind(tag, 'mapping', start)
    const dict: PyDict = new Map()
    this.built.set(node, dict)
    this.positions.recordNode(dict, this.toPos(start))
    for (const pair of this.flatten(node)) {
      const keyNode = pair.key as YamlNode | null
      const valueNode = pair.value as YamlNode | null
      // A plain `=` key is PyYAML's value tag, which flatten_mapping turns into a str.
      const isValueKey = keyNode !== null && isScalar(keyNode) && this.tagOf(keyNode) === YAML_TAG + 'value'
      const key = isValueKey ? '=' : this.construct(keyNode)
      if (!isHashable(key)) return this.fail(keyNode?.range?.[0] ?? start, 'found unhashable key')
      const value = this.construct(valueNode)
      const existing = equalKey(dict, key)
      dict.set(existing, value)
      this.positions.recordEntry(dict, existing, {
        key: keyNode?.range ? this.toPos(keyNode.range[0]) : undefined,
        value: valueNode?.range ? this.toPos(valueNode.range[0]) : undefined
      })
    }
    if (tag === YAML_TAG + 'set') {
      const items = [...dict.keys()].map(key => pyRepr(key))
      const set = new PyOpaque('set', items.length ? `{${items.join(', ')}}` : 'set()')
      this.built.set(node, set)
      return set
    }
    return dict
  }

  private wrongKind(tag: string, found: 'sequence' | 'mapping', start: number): never {
    const name = tag.startsWith(YAML_TAG) ? tag.slice(YAML_TAG.length) : ''
    if (['str', 'int', 'float', 'bool', 'null', 'timestamp', 'binary'].includes(name)) {
      return this.fail(start, `expected a scalar node, but found ${found}`)
    }
    if (name === 'map' || name === 'set')
      return this.fail(start, `expected a mapping node, but found ${found}`)
    if (name === 'seq') return this.fail(start, `expected a sequence node, but found ${found}`)
    return this.fail(start, `could not determine a constructor for the tag ${pyStrRepr(tag)}`)
  }

  /** PyYAML's flatten_mapping: `<<` merges come first, so the mapping's own keys win; earlier merges win. */
  private flatten(node: YAMLMap<unknown, unknown>): { key: unknown; value: unknown }[] {
    const own: { key: unknown; value: unknown }[] = []
    const merged: { key: unknown; value: unknown }[] = []
    for (const pair of node.items) {
      const keyNode = pair.key as YamlNode | null
      if (keyNode && isScalar(keyNode) && this.tagOf(keyNode) === YAML_TAG + 'merge') {
        const value = this.deref(pair.value)
        const start = (pair.value as YamlNode | null)?.range?.[0] ?? keyNode.range?.[0] ?? 0
        if (isMap(value)) {
          merged.push(...this.flatten(value as YAMLMap<unknown, unknown>))
        } else if (isSeq(value)) {
          const groups: { key: unknown; value: unknown }[][] = []
          for (const sub of value.items) {
            const target = this.deref(sub)
            if (!isMap(target)) return this.fail(start, 'expected a mapping for merging')
            groups.push(this.flatten(target as YAMLMap<unknown, unknown>))
          }
          for (const group of groups.reverse()) merged.push(...group)
        } else {
          return this.fail(start, 'expected a mapping or list of mappings for merging')
        }
      } else {
        own.push({ key: pair.key, value: pair.value })
      }
    }
    return [...merged, ...own]
  }

  private deref(node: unknown): unknown {
    return isAlias(node) ? node.resolve(this.doc) : node
  }
}

const NUMERIC = ['boolean', 'bigint', 'number']

// Python's dict: True, 1 and 1.0 are the same key, and the first spelling of it is kept.
function equalKey(dict: PyDict, key: PyValue): PyValue {
  if (!NUMERIC.includes(typeof key) || dict.has(key)) return key
  for (const existing of dict.keys()) {
    // Loose equality across boolean, bigint and number is exactly Python's numeric equality.
    if (NUMERIC.includes(typeof existing) && existing == key) return existing
  }
  return key
}

function isHashable(value: PyValue): boolean {
  if (Array.isArray(value) || value instanceof Map) return false
  return !(value instanceof PyOpaque && value.typeName === 'set')
}
