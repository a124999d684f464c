// GitHub's published REST description (@octokit/openapi), reduced to what request and response checks need,
// and ajv validators compiled lazily per operation. The reduced form is cached on disk so that each jest
// worker does not pay for parsing the 13 MB original.
import { createHash } from 'node:crypto'
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv'
import formatsPlugin from 'ajv-formats'

/** Component schema `x` is registered with ajv as `${SCHEMA_BASE}x`; every `$ref` is rewritten to that. */
export const SCHEMA_BASE = 'https://openapi.stand-in/schemas/'
const COMPONENT_REF = '#/components/schemas/'
/** Bump when the reduced form changes, so stale caches are ignored. */
const CACHE_FORMAT = 5

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete' | 'head'

export interface OperationParameter {
  name: string
  in: 'path' | 'query' | 'header' | 'cookie'
  required: boolean
  multiSegment: boolean
  schema: JsonSchema
}

export interface Operation {
  method: HttpMethod
  /** The path template as GitHub writes it, e.g. `/repos/{owner}/{repo}/pulls`. */
  path: string
  operationId: string
  /** The operation's page on docs.github.com: GitHub puts it in every error body. */
  docs: string
  parameters: OperationParameter[]
  requestBody?: { required: boolean; content: Record<string, JsonSchema | null> } | undefined
  /** Status code (or `default`) → JSON schema of the body, or null when the response has no JSON body. */
  responses: Record<string, JsonSchema | null>
}

export type JsonSchema = Record<string, unknown> | boolean

interface ReducedDescription {
  version: string
  operations: Operation[]
  schemas: Record<string, JsonSchema>
}

const require = createRequire(import.meta.url)

function descriptionFile(): string {
  return require.resolve('@octokit/openapi/generated/api.github.com.json')
}

function packageVersion(): string {
  return (require('@octokit/openapi/package.json') as { version: string }).version
}

// --- OpenAPI 3.0 schema → JSON Schema (what ajv understands) ---

const DROPPED_KEYWORDS = new Set([
  'description',
  'example',
  'examples',
  'title',
  'externalDocs',
  'discriminator', // a hint in OpenAPI; the oneOf beside it does the checking
  'nullable', // turned into anyOf [null, …] below
  'readOnly',
  'writeOnly',
  'deprecated',
  'xml'
])

function convertSchema(schema: unknown): JsonSchema {
  if (typeof schema === 'boolean') return schema
  if (!schema || typeof schema !== 'object' || Array.isArray(schema)) return {}
  const source = schema as Record<string, unknown>
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(source)) {
    if (DROPPED_KEYWORDS.has(key) || key.startsWith('x-')) continue
    switch (key) {
      case 'properties':
      case 'patternProperties':
        out[key] = Object.fromEntries(
          Object.entries(value as Record<string, unknown>).map(([name, sub]) => [name, convertSchema(sub)])
        )
        break
      case 'items':
        out[key] = Array.isArray(value) ? value.map(convertSchema) : convertSchema(value)
        break
      case 'additionalProperties':
      case 'not':
        out[key] = typeof value === 'boolean' ? value : convertSchema(value)
        break
      case 'allOf':
      case 'anyOf':
      case 'oneOf':
        out[key] = (value as unknown[]).map(convertSchema)
        break
      case '$ref':
        out[key] = String(value).startsWith(COMPONENT_REF)
          ? SCHEMA_BASE + String(value).slice(COMPONENT_REF.length)
          : value
        break
      default:
        out[key] = value
    }
  }
  // OpenAPI 3.0 `nullable: true` means "or null", whatever else the schema says (type, enum, allOf…).
  if (source.nullable === true) return { anyOf: [{ type: 'null' }, out] }
  return out
}

interface RawDescription {
  paths: Record<string, Record<string, unknown>>
  components: {
    schemas: Record<string, unknown>
    parameters: Record<string, Record<string, unknown>>
    responses: Record<string, Record<string, unknown>>
    requestBodies?: Record<string, Record<string, unknown>>
  }
}

function reduce(raw: RawDescription, version: string): ReducedDescription {
  const deref = <T>(value: unknown, table: Record<string, unknown> | undefined): T => {
    let current = value as Record<string, unknown>
    while (current && typeof current.$ref === 'string') {
      current = table?.[current.$ref.split('/').pop() as string] as Record<string, unknown>
    }
    return current as T
  }
  const jsonSchemaOf = (content: unknown): JsonSchema | null => {
    if (!content || typeof content !== 'object') return null
    const entries = Object.entries(content as Record<string, { schema?: unknown }>)
    const json = entries.find(([type]) => type === 'application/json' || type.endsWith('+json'))
    return json?.[1].schema ? convertSchema(json[1].schema) : null
  }
  const operations: Operation[] = []
  const methods: HttpMethod[] = ['get', 'post', 'put', 'patch', 'delete', 'head']
  for (const [path, item] of Object.entries(raw.paths)) {
    const shared = (item.parameters as unknown[]) ?? []
    for (const method of methods) {
      const op = item[method] as Record<string, unknown> | undefined
      if (!op) continue
      const parameters: OperationParameter[] = [...shared, ...((op.parameters as unknown[]) ?? [])].map(p => {
        const param = deref<Record<string, unknown>>(p, raw.components.parameters)
        return {
          name: String(param.name),
          in: param.in as OperationParameter['in'],
          required: param.required === true || param.in === 'path',
          multiSegment: param['x-multi-segment'] === true,
          schema: convertSchema(param.schema ?? {})
        }
      })
      let requestBody: Operation['requestBody']
      const body = deref<Record<string, unknown> | undefined>(op.requestBody, raw.components.requestBodies)
      if (body) {
        const content: Record<string, JsonSchema | null> = {}
        for (const [type, media] of Object.entries(
          (body.content as Record<string, { schema?: unknown }>) ?? {}
        )) {
          content[type] = media.schema ? convertSchema(media.schema) : null
        }
        requestBody = { required: body.required === true, content }
      }
      const responses: Record<string, JsonSchema | null> = {}
      for (const [status, response] of Object.entries((op.responses as Record<string, unknown>) ?? {})) {
        const resolved = deref<Record<string, unknown>>(response, raw.components.responses)
        responses[status] = jsonSchemaOf(resolved?.content)
      }
      const docs = String(
        (op.externalDocs as { url?: string } | undefined)?.url ?? 'https://docs.github.com/rest'
      )
      operations.push({
        method,
        path,
        operationId: String(op.operationId),
        docs,
        parameters,
        requestBody,
        responses
      })
    }
  }
  const schemas = Object.fromEntries(
    Object.entries(raw.components.schemas).map(([name, schema]) => [name, convertSchema(schema)])
  )
  return { version, operations, schemas }
}

let loaded: ReducedDescription | undefined

/** The reduced description: from the disk cache when it matches the installed package, else built and cached. */
export function loadDescription(): ReducedDescription {
  if (loaded) return loaded
  const file = descriptionFile()
  const version = packageVersion()
  const stat = statSync(file)
  const key = createHash('sha256')
    .update(`${CACHE_FORMAT}:${version}:${stat.size}:${stat.mtimeMs}:${file}`)
    .digest('hex')
    .slice(0, 16)
  const cacheDir = join(tmpdir(), 'ralph-action-openapi-cache')
  const cacheFile = join(cacheDir, `api.github.com-${version}-${key}.json`)
  try {
    loaded = JSON.parse(readFileSync(cacheFile, 'utf8')) as ReducedDescription
    return loaded
  } catch {
    // No cache yet (or a broken one): build it.
  }
  const reduced = reduce(JSON.parse(readFileSync(file, 'utf8')) as RawDescription, version)
  try {
    mkdirSync(cacheDir, { recursive: true })
    // Write then rename: parallel jest workers never read a half-written cache.
    const partial = `${cacheFile}.${process.pid}.tmp`
    writeFileSync(partial, JSON.stringify(reduced))
    renameSync(partial, cacheFile)
  } catch {
    // A read-only temp folder only costs speed.
  }
  loaded = reduced
  return loaded
}

// --- Routing: method + concrete path → operation and path parameters ---

export interface RouteMatch {
  operation: Operation
  pathParams: Record<string, string>
}

interface CompiledRoute {
  operation: Operation
  regex: RegExp
  names: string[]
  /** One letter per segment, L for literal and P for parameter: literal segments win over parameters. */
  shape: string
}

export class Router {
  private readonly byMethod = new Map<string, CompiledRoute[]>()
  private readonly pathsSeen = new Set<string>()

  constructor(operations: Operation[]) {
    for (const operation of operations) {
      const names: string[] = []
      const shapes: string[] = []
      const pattern = operation.path
        .split('/')
        .map(segment => {
          shapes.push(segment.includes('{') ? 'P' : 'L')
          return segment.replace(
            /\{([^}]+)\}|([^{]+)/g,
            (_m, name: string | undefined, literal: string | undefined) => {
              if (literal !== undefined) return literal.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
              names.push(name as string)
              const multi = operation.parameters.some(
                p => p.in === 'path' && p.name === name && p.multiSegment
              )
              return multi ? '(.+?)' : '([^/]+?)'
            }
          )
        })
        .join('/')
      const list = this.byMethod.get(operation.method) ?? []
      list.push({ operation, regex: new RegExp(`^${pattern}$`), names, shape: shapes.join('') })
      this.byMethod.set(operation.method, list)
      this.pathsSeen.add(operation.path)
    }
  }

  /** The operation for a request, or undefined when GitHub has no such route (it answers 404 then). */
  match(method: string, pathname: string): RouteMatch | undefined {
    const candidates: { route: CompiledRoute; values: string[] }[] = []
    for (const route of this.byMethod.get(method.toLowerCase()) ?? []) {
      const m = route.regex.exec(pathname)
      if (m) candidates.push({ route, values: m.slice(1) })
    }
    if (candidates.length === 0) return undefined
    candidates.sort((a, b) => compareShapes(a.route.shape, b.route.shape))
    const { route, values } = candidates[0]
    const pathParams: Record<string, string> = {}
    route.names.forEach((name, i) => {
      pathParams[name] = safeDecode(values[i])
    })
    return { operation: route.operation, pathParams }
  }

  /** Whether some method exists for this path (to tell "no such route" from "wrong method"). */
  matchesAnyMethod(pathname: string): boolean {
    for (const routes of this.byMethod.values()) if (routes.some(r => r.regex.test(pathname))) return true
    return false
  }
}

function compareShapes(a: string, b: string): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    if (a[i] !== b[i]) return a[i] === 'L' ? -1 : 1
  }
  return b.length - a.length
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value)
  } catch {
    return value
  }
}

// --- Validation ---

export interface SchemaProblem {
  /** Where in the checked value, as a JSON pointer (`/draft`, `/labels/0`). Empty for the root. */
  pointer: string
  message: string
}

function makeAjv(coerce: boolean): Ajv {
  const ajv = new Ajv({
    strict: false,
    allErrors: true,
    validateSchema: false,
    coerceTypes: coerce ? 'array' : false,
    // GitHub's description has a few regexes written for Ruby/JS without the `u` flag.
    unicodeRegExp: false,
    inlineRefs: false
  })
  formatsPlugin.default(ajv)
  ajv.addFormat('int32', { type: 'number', validate: (n: number) => Number.isInteger(n) })
  ajv.addFormat('int64', { type: 'number', validate: (n: number) => Number.isInteger(n) })
  ajv.addFormat('double', { type: 'number', validate: () => true })
  for (const name of ['repo.nwo', 'binary', 'timestamp', 'byte', 'password']) ajv.addFormat(name, true)
  return ajv
}

/** Validators for one description, compiled on first use and kept for the life of the process. */
export class OperationValidators {
  private bodyAjv?: Ajv
  private paramAjv?: Ajv
  private readonly cache = new Map<string, ValidateFunction>()
  /** Component schemas already registered, per ajv instance (registering all 900 up front costs ~300 ms). */
  private readonly registered = new WeakMap<Ajv, Set<string>>()

  constructor(private readonly schemas: Record<string, JsonSchema>) {}

  /** Checks a JSON value; `coerce` lets strings from a URL stand for numbers and booleans. */
  check(cacheKey: string, schema: JsonSchema, value: unknown, coerce = false): SchemaProblem[] {
    const key = `${coerce ? 'c' : 'j'}:${cacheKey}`
    let validate = this.cache.get(key)
    if (!validate) {
      const ajv = coerce ? (this.paramAjv ??= makeAjv(true)) : (this.bodyAjv ??= makeAjv(false))
      this.registerReferenced(ajv, schema)
      validate = ajv.compile(schema)
      this.cache.set(key, validate)
    }
    if (validate(value)) return []
    return simplifyErrors(validate.errors ?? [])
  }

  /** Registers the component schemas `schema` refers to, directly or through other components. */
  private registerReferenced(ajv: Ajv, schema: JsonSchema): void {
    let done = this.registered.get(ajv)
    if (!done) this.registered.set(ajv, (done = new Set()))
    const pending: unknown[] = [schema]
    while (pending.length > 0) {
      const node = pending.pop()
      if (Array.isArray(node)) {
        pending.push(...node)
      } else if (node && typeof node === 'object') {
        for (const [key, value] of Object.entries(node)) {
          if (key === '$ref' && typeof value === 'string' && value.startsWith(SCHEMA_BASE)) {
            const name = value.slice(SCHEMA_BASE.length)
            if (done.has(name)) continue
            done.add(name)
            const component = this.schemas[name]
            if (component === undefined) throw new Error(`GitHub's description has no schema ${name}`)
            ajv.addSchema(typeof component === 'boolean' ? component : { ...component, $id: value })
            pending.push(component)
          } else if (typeof value === 'object') {
            pending.push(value)
          }
        }
      }
    }
  }
}

/** ajv reports every branch of a failed oneOf/anyOf; keep the most telling errors only. */
function simplifyErrors(errors: ErrorObject[]): SchemaProblem[] {
  const specific = errors.filter(e => !['oneOf', 'anyOf', 'if'].includes(e.keyword))
  const chosen = specific.length > 0 ? specific : errors
  const seen = new Set<string>()
  const problems: SchemaProblem[] = []
  for (const error of chosen) {
    const message = describeError(error)
    const key = `${error.instancePath}|${message}`
    if (seen.has(key)) continue
    seen.add(key)
    problems.push({ pointer: error.instancePath, message })
    if (problems.length >= 10) break
  }
  return problems
}

function describeError(error: ErrorObject): string {
  const where = error.instancePath ? `'${error.instancePath.slice(1)}'` : 'the body'
  const params = error.params as Record<string, unknown>
  switch (error.keyword) {
    case 'required':
      return `"${String(params.missingProperty)}" wasn't supplied (in ${where}).`
    case 'type':
      return `For ${where}, the value is not ${String(params.type)}.`
    case 'enum':
      return `For ${where}, the value is not one of ${JSON.stringify(params.allowedValues)}.`
    case 'additionalProperties':
      return `For ${where}, "${String(params.additionalProperty)}" is not a permitted key.`
    default:
      return `For ${where}, ${error.message ?? error.keyword}.`
  }
}
