// The stand-in's GraphQL endpoint (POST /graphql): no OpenAPI description covers GraphQL, so each document is
// parsed and checked here against the slice of GitHub's schema the action uses (review threads, and the
// resolveReviewThread mutation), copied field for field from octokit/graphql-schema's schema.graphql. What
// GitHub would refuse is answered as GitHub answers it (HTTP 200, `errors`, graphql-ruby's messages) and
// listed as a problem, so a test can require that there was none. Only one operation per document, no
// fragments, no directives: the action sends none, and a document that does is refused here.
import { GITHUB_ACTIONS_BOT, type GitHubState, type ReviewThreadRecord } from './state.js'

type Json = Record<string, unknown>

// --- the schema slice (GitHub's names and types; arguments the stand-in ignores are still accepted) ---

interface FieldDef {
  type: string
  args?: Record<string, string>
  /** GitHub still answers it, but it is on its way out: using it is listed as a problem. */
  deprecated?: string
}

const CONNECTION_ARGS = { after: 'String', before: 'String', first: 'Int', last: 'Int' }

const OBJECTS: Record<string, Record<string, FieldDef>> = {
  Query: {
    repository: { type: 'Repository', args: { owner: 'String!', name: 'String!', followRenames: 'Boolean' } }
  },
  Mutation: {
    resolveReviewThread: {
      type: 'ResolveReviewThreadPayload',
      args: { input: 'ResolveReviewThreadInput!' }
    }
  },
  Repository: {
    id: { type: 'ID!' },
    name: { type: 'String!' },
    nameWithOwner: { type: 'String!' },
    pullRequest: { type: 'PullRequest', args: { number: 'Int!' } }
  },
  PullRequest: {
    id: { type: 'ID!' },
    number: { type: 'Int!' },
    reviewThreads: { type: 'PullRequestReviewThreadConnection!', args: CONNECTION_ARGS }
  },
  PullRequestReviewThreadConnection: {
    nodes: { type: '[PullRequestReviewThread]' },
    pageInfo: { type: 'PageInfo!' },
    totalCount: { type: 'Int!' }
  },
  PullRequestReviewCommentConnection: {
    nodes: { type: '[PullRequestReviewComment]' },
    pageInfo: { type: 'PageInfo!' },
    totalCount: { type: 'Int!' }
  },
  PageInfo: {
    endCursor: { type: 'String' },
    hasNextPage: { type: 'Boolean!' },
    hasPreviousPage: { type: 'Boolean!' },
    startCursor: { type: 'String' }
  },
  PullRequestReviewThread: {
    comments: {
      type: 'PullRequestReviewCommentConnection!',
      args: { ...CONNECTION_ARGS, skip: 'Int' }
    },
    diffSide: { type: 'DiffSide!' },
    id: { type: 'ID!' },
    isCollapsed: { type: 'Boolean!' },
    isOutdated: { type: 'Boolean!' },
    isResolved: { type: 'Boolean!' },
    line: { type: 'Int' },
    originalLine: { type: 'Int' },
    originalStartLine: { type: 'Int' },
    path: { type: 'String!' },
    startDiffSide: { type: 'DiffSide' },
    startLine: { type: 'Int' },
    subjectType: { type: 'PullRequestReviewThreadSubjectType!' },
    viewerCanReply: { type: 'Boolean!' },
    viewerCanResolve: { type: 'Boolean!' },
    viewerCanUnresolve: { type: 'Boolean!' }
  },
  PullRequestReviewComment: {
    body: { type: 'String!' },
    databaseId: {
      type: 'Int',
      deprecated:
        '`databaseId` will be removed because it does not support 64-bit signed integer identifiers. Use `fullDatabaseId` instead.'
    },
    fullDatabaseId: { type: 'BigInt' },
    id: { type: 'ID!' },
    line: { type: 'Int' },
    outdated: { type: 'Boolean!' },
    path: { type: 'String!' }
  },
  ResolveReviewThreadPayload: {
    clientMutationId: { type: 'String' },
    thread: { type: 'PullRequestReviewThread' }
  }
}

const INPUTS: Record<string, Record<string, string>> = {
  ResolveReviewThreadInput: { clientMutationId: 'String', threadId: 'ID!' }
}

const ENUMS: Record<string, string[]> = {
  DiffSide: ['LEFT', 'RIGHT'],
  PullRequestReviewThreadSubjectType: ['FILE', 'LINE']
}

const SCALARS = new Set(['ID', 'String', 'Int', 'Boolean', 'BigInt'])

// --- types as written (`[PullRequestReviewThread]`, `Int!`) ---

type TypeRef = { list?: TypeRef; name?: string; nonNull: boolean }

function parseTypeText(text: string): TypeRef {
  const nonNull = text.endsWith('!')
  const inner = nonNull ? text.slice(0, -1) : text
  return inner.startsWith('[')
    ? { list: parseTypeText(inner.slice(1, -1)), nonNull }
    : { name: inner, nonNull }
}

const typeText = (t: TypeRef): string =>
  (t.list ? `[${typeText(t.list)}]` : String(t.name)) + (t.nonNull ? '!' : '')
const namedOf = (t: TypeRef): string => (t.list ? namedOf(t.list) : String(t.name))

// --- the document ---

interface Location {
  line: number
  column: number
}

type Value =
  | { kind: 'variable'; name: string; loc: Location }
  | { kind: 'int'; value: number; loc: Location }
  | { kind: 'float'; value: number; loc: Location }
  | { kind: 'string'; value: string; loc: Location }
  | { kind: 'boolean'; value: boolean; loc: Location }
  | { kind: 'null'; loc: Location }
  | { kind: 'enum'; value: string; loc: Location }
  | { kind: 'list'; items: Value[]; loc: Location }
  | { kind: 'object'; fields: Record<string, Value>; loc: Location }

interface FieldNode {
  alias?: string
  name: string
  args: Record<string, Value>
  selections?: FieldNode[]
  loc: Location
}

interface OperationNode {
  type: 'query' | 'mutation'
  name?: string
  variables: { name: string; type: TypeRef; loc: Location }[]
  selections: FieldNode[]
  loc: Location
}

interface GraphqlError {
  message: string
  locations?: Location[]
  path?: (string | number)[]
  extensions?: Json
  type?: string
}

class ParseError extends Error {}

interface Token {
  kind: 'name' | 'punct' | 'int' | 'float' | 'string' | 'end'
  text: string
  loc: Location
}

function tokenize(source: string): Token[] {
  const tokens: Token[] = []
  let line = 1
  let lineStart = 0
  let i = 0
  const loc = (at: number): Location => ({ line, column: at - lineStart + 1 })
  while (i < source.length) {
    const ch = source[i]
    if (ch === '\n') {
      line++
      lineStart = ++i
      continue
    }
    if (/[\s,\uFEFF]/.test(ch)) {
      i++
      continue
    }
    if (ch === '#') {
      while (i < source.length && source[i] !== '\n') i++
      continue
    }
    if (source.startsWith('...', i))
      throw new ParseError(`Parse error on "..." (ELLIPSIS) at [${line}, ${i - lineStart + 1}]`)
    if ('{}():$![]=@'.includes(ch)) {
      tokens.push({ kind: 'punct', text: ch, loc: loc(i) })
      i++
      continue
    }
    const name = /^[_A-Za-z][_0-9A-Za-z]*/.exec(source.slice(i))
    if (name) {
      tokens.push({ kind: 'name', text: name[0], loc: loc(i) })
      i += name[0].length
      continue
    }
    const number = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/.exec(source.slice(i))
    if (number) {
      tokens.push({ kind: number[2] || number[3] ? 'float' : 'int', text: number[0], loc: loc(i) })
      i += number[0].length
      continue
    }
    if (ch === '"') {
      if (source.startsWith('"""', i))
        throw new ParseError(`Parse error on """ (block string) at [${line}, ${i - lineStart + 1}]`)
      const m = /^"((?:[^"\\\n]|\\.)*)"/.exec(source.slice(i))
      if (!m)
        throw new ParseError(`Parse error on bad Unicode escape sequence at [${line}, ${i - lineStart + 1}]`)
      tokens.push({ kind: 'string', text: JSON.parse(m[0]) as string, loc: loc(i) })
      i += m[0].length
      continue
    }
    throw new ParseError(`Parse error on "${ch}" at [${line}, ${i - lineStart + 1}]`)
  }
  tokens.push({ kind: 'end', text: '', loc: loc(i) })
  return tokens
}

function parseDocument(source: string): OperationNode {
  const tokens = tokenize(source)
  let at = 0
  const peek = () => tokens[at]
  const next = () => tokens[at++]
  const unexpected = (t: Token): never => {
    throw new ParseError(
      `Parse error on ${t.kind === 'end' ? 'end of file' : JSON.stringify(t.text)} at [${t.loc.line}, ${t.loc.column}]`
    )
  }
  const expect = (text: string): Token => {
    const t = next()
    return t.kind === 'punct' && t.text === text ? t : unexpected(t)
  }
  const isPunct = (text: string) => peek().kind === 'punct' && peek().text === text
  const name = (): Token => {
    const t = next()
    return t.kind === 'name' ? t : unexpected(t)
  }
  const type = (): TypeRef => {
    let ref: TypeRef
    if (isPunct('[')) {
      next()
      ref = { list: type(), nonNull: false }
      expect(']')
    } else ref = { name: name().text, nonNull: false }
    if (isPunct('!')) {
      next()
      ref.nonNull = true
    }
    return ref
  }
  const value = (): Value => {
    const t = next()
    if (t.kind === 'punct' && t.text === '$') return { kind: 'variable', name: name().text, loc: t.loc }
    if (t.kind === 'int') return { kind: 'int', value: Number(t.text), loc: t.loc }
    if (t.kind === 'float') return { kind: 'float', value: Number(t.text), loc: t.loc }
    if (t.kind === 'string') return { kind: 'string', value: t.text, loc: t.loc }
    if (t.kind === 'name') {
      if (t.text === 'true' || t.text === 'false')
        return { kind: 'boolean', value: t.text === 'true', loc: t.loc }
      if (t.text === 'null') return { kind: 'null', loc: t.loc }
      return { kind: 'enum', value: t.text, loc: t.loc }
    }
    if (t.kind === 'punct' && t.text === '[') {
      const items: Value[] = []
      while (!isPunct(']')) items.push(value())
      next()
      return { kind: 'list', items, loc: t.loc }
    }
    if (t.kind === 'punct' && t.text === '{') {
      const fields: Record<string, Value> = {}
      while (!isPunct('}')) {
        const key = name().text
        expect(':')
        fields[key] = value()
      }
      next()
      return { kind: 'object', fields, loc: t.loc }
    }
    return unexpected(t)
  }
  const selectionSet = (): FieldNode[] => {
    expect('{')
    const fields: FieldNode[] = []
    while (!isPunct('}')) {
      if (isPunct('@')) unexpected(peek())
      const first = name()
      let alias: string | undefined
      let fieldName = first.text
      if (isPunct(':')) {
        next()
        alias = first.text
        fieldName = name().text
      }
      const args: Record<string, Value> = {}
      if (isPunct('(')) {
        next()
        while (!isPunct(')')) {
          const arg = name().text
          expect(':')
          args[arg] = value()
        }
        next()
      }
      if (isPunct('@')) unexpected(peek())
      const field: FieldNode = { name: fieldName, args, loc: first.loc }
      if (alias !== undefined) field.alias = alias
      if (isPunct('{')) field.selections = selectionSet()
      fields.push(field)
    }
    next()
    if (fields.length === 0) unexpected(tokens[at - 1])
    return fields
  }
  const start = peek()
  let operation: OperationNode
  if (isPunct('{')) operation = { type: 'query', variables: [], selections: selectionSet(), loc: start.loc }
  else {
    const keyword = name()
    if (keyword.text !== 'query' && keyword.text !== 'mutation') unexpected(keyword)
    operation = {
      type: keyword.text as 'query' | 'mutation',
      variables: [],
      selections: [],
      loc: keyword.loc
    }
    if (peek().kind === 'name') operation.name = next().text
    if (isPunct('(')) {
      next()
      while (!isPunct(')')) {
        const dollar = expect('$')
        const variable = name().text
        expect(':')
        operation.variables.push({ name: variable, type: type(), loc: dollar.loc })
        if (isPunct('=')) unexpected(peek())
      }
      next()
    }
    operation.selections = selectionSet()
  }
  // One operation: a second (or a fragment after it) is more than the action ever sends.
  if (peek().kind !== 'end') unexpected(peek())
  return operation
}

// --- validation ---

function validate(operation: OperationNode, variables: Json): GraphqlError[] {
  const errors: GraphqlError[] = []
  const opName = operation.name ?? 'anonymous query'
  const declared = new Map(operation.variables.map(v => [v.name, v]))
  const used = new Set<string>()
  const path: string[] = [operation.type]

  const checkValue = (value: Value, expected: TypeRef, where: string): void => {
    if (value.kind === 'variable') {
      used.add(value.name)
      const variable = declared.get(value.name)
      if (!variable) {
        errors.push({
          message: `Variable $${value.name} is used by ${opName} but not declared`,
          locations: [value.loc],
          path: [...path],
          extensions: { code: 'variableNotDefined', variableName: value.name }
        })
        return
      }
      const given = variable.type
      const sameBase = typeText({ ...given, nonNull: false }) === typeText({ ...expected, nonNull: false })
      if (!sameBase || (expected.nonNull && !given.nonNull))
        errors.push({
          message: `${sameBase ? 'Nullability' : 'Type'} mismatch on variable $${value.name} and ${where} (${typeText(given)} / ${typeText(expected)})`,
          locations: [value.loc],
          path: [...path],
          extensions: { code: 'variableMismatch', variableName: value.name, typeName: typeText(given) }
        })
      return
    }
    // An input object's fields and a list's items are checked one by one: a variable may stand in any of them.
    const named = namedOf(expected)
    if (value.kind === 'object' && !expected.list && INPUTS[named]) {
      for (const [key, fieldType] of Object.entries(INPUTS[named])) {
        const given = value.fields[key]
        if (given !== undefined) checkValue(given, parseTypeText(fieldType), `${where}.${key}`)
        else if (fieldType.endsWith('!'))
          errors.push({
            message: `${where} has an invalid value: ${named} requires ${key}.`,
            locations: [value.loc],
            path: [...path],
            extensions: { code: 'argumentLiteralsIncompatible', typeName: 'CoercionError' }
          })
      }
      for (const key of Object.keys(value.fields).filter(key => !(key in INPUTS[named])))
        errors.push({
          message: `InputObject '${named}' doesn't accept argument '${key}'`,
          locations: [value.fields[key].loc],
          path: [...path],
          extensions: { code: 'argumentNotAccepted', name: named, typeName: 'InputObject', argumentName: key }
        })
      return
    }
    if (value.kind === 'list' && expected.list) {
      for (const item of value.items) checkValue(item, expected.list, where)
      return
    }
    const problem = literalProblem(value, expected)
    if (problem)
      errors.push({
        message: `${where} has an invalid value (${problem}). Expected type '${typeText(expected)}'.`,
        locations: [value.loc],
        path: [...path],
        extensions: { code: 'argumentLiteralsIncompatible', typeName: 'CoercionError' }
      })
  }

  const checkFields = (fields: FieldNode[], parent: string): void => {
    for (const field of fields) {
      path.push(field.alias ?? field.name)
      if (field.name === '__typename') {
        if (field.selections) errors.push(scalarSelections(field, 'String!', path))
        path.pop()
        continue
      }
      const def = OBJECTS[parent]?.[field.name]
      if (!def) {
        errors.push({
          message: `Field '${field.name}' doesn't exist on type '${parent}'`,
          locations: [field.loc],
          path: [...path],
          extensions: { code: 'undefinedField', typeName: parent, fieldName: field.name }
        })
        path.pop()
        continue
      }
      const accepted = def.args ?? {}
      for (const [arg, value] of Object.entries(field.args)) {
        const argType = accepted[arg]
        if (!argType) {
          errors.push({
            message: `Field '${field.name}' doesn't accept argument '${arg}'`,
            locations: [value.loc],
            path: [...path, arg],
            extensions: {
              code: 'argumentNotAccepted',
              name: field.name,
              typeName: 'Field',
              argumentName: arg
            }
          })
          continue
        }
        checkValue(value, parseTypeText(argType), `argument ${arg}`)
      }
      const missing = Object.entries(accepted)
        .filter(([arg, text]) => text.endsWith('!') && !(arg in field.args))
        .map(([arg]) => arg)
      if (missing.length > 0)
        errors.push({
          message: `Field '${field.name}' is missing required arguments: ${missing.join(', ')}`,
          locations: [field.loc],
          path: [...path],
          extensions: {
            code: 'missingRequiredArguments',
            className: 'Field',
            name: field.name,
            arguments: missing.join(', ')
          }
        })
      const returns = parseTypeText(def.type)
      const named = namedOf(returns)
      if (OBJECTS[named]) {
        if (!field.selections)
          errors.push({
            message: `Field must have selections (field '${field.name}' returns ${named} but has no selections. Did you mean '${field.name} { ... }'?)`,
            locations: [field.loc],
            path: [...path],
            extensions: { code: 'selectionMismatch', nodeName: `field '${field.name}'`, typeName: named }
          })
        else checkFields(field.selections, named)
      } else if (field.selections) errors.push(scalarSelections(field, def.type, path))
      path.pop()
    }
  }

  const root = operation.type === 'query' ? 'Query' : 'Mutation'
  checkFields(operation.selections, root)
  for (const variable of operation.variables) {
    if (!used.has(variable.name))
      errors.push({
        message: `Variable $${variable.name} is declared by ${opName} but not used`,
        locations: [variable.loc],
        path: [operation.type],
        extensions: { code: 'variableNotUsed', variableName: variable.name }
      })
    const named = namedOf(variable.type)
    if (!SCALARS.has(named) && !ENUMS[named] && !INPUTS[named]) {
      errors.push({
        message: `${named} isn't a defined input type (on $${variable.name})`,
        locations: [variable.loc],
        path: [operation.type],
        extensions: { code: 'variableRequiresValidType', typeName: named, variableName: variable.name }
      })
      continue
    }
    const problem = jsonProblem(variables[variable.name], variable.type)
    if (problem)
      errors.push({
        message: `Variable $${variable.name} of type ${typeText(variable.type)} was provided invalid value`,
        locations: [variable.loc],
        extensions: {
          value: variables[variable.name] ?? null,
          problems: [{ path: [], explanation: problem }]
        }
      })
  }
  for (const name of Object.keys(variables))
    if (!declared.has(name))
      // GitHub ignores a variable no operation declares; the stand-in lists it (it is a bug in the caller).
      errors.push({
        message: `Variable $${name} is not declared by ${opName}`,
        extensions: { code: 'standInUndeclared' }
      })
  return errors
}

function scalarSelections(field: FieldNode, type: string, path: string[]): GraphqlError {
  return {
    message: `Selections can't be made on scalars (field '${field.name}' returns ${type.replace(/!$/, '')} but has selections [${(field.selections ?? []).map(f => f.name).join(', ')}])`,
    locations: [field.loc],
    path: [...path],
    extensions: {
      code: 'selectionMismatch',
      nodeName: `field '${field.name}'`,
      typeName: type.replace(/!$/, '')
    }
  }
}

/** Why a literal does not fit `type`, or undefined. */
function literalProblem(value: Value, type: TypeRef): string | undefined {
  if (value.kind === 'variable') return undefined
  if (value.kind === 'null') return type.nonNull ? 'null' : undefined
  if (type.list) {
    const items = value.kind === 'list' ? value.items : [value]
    for (const item of items) {
      const problem = literalProblem(item, type.list)
      if (problem) return problem
    }
    return undefined
  }
  const named = String(type.name)
  const shown = value.kind === 'string' ? JSON.stringify(value.value) : value.kind
  // An input object given as a literal is checked field by field before this (checkValue).
  if (INPUTS[named]) return shown
  if (ENUMS[named]) return value.kind === 'enum' && ENUMS[named].includes(value.value) ? undefined : shown
  switch (named) {
    case 'Int':
      return value.kind === 'int' && Math.abs(value.value) < 2 ** 31 ? undefined : shown
    case 'Boolean':
      return value.kind === 'boolean' ? undefined : shown
    case 'ID':
      return value.kind === 'string' || value.kind === 'int' ? undefined : shown
    default:
      return value.kind === 'string' ? undefined : shown
  }
}

/** Why a variable's JSON value does not fit `type`, or undefined. */
function jsonProblem(value: unknown, type: TypeRef): string | undefined {
  if (value === undefined || value === null) return type.nonNull ? 'Expected value to not be null' : undefined
  if (type.list) {
    if (!Array.isArray(value)) return jsonProblem(value, type.list)
    for (const item of value) {
      const problem = jsonProblem(item, type.list)
      if (problem) return problem
    }
    return undefined
  }
  const named = String(type.name)
  const bad = `Could not coerce value ${JSON.stringify(value)} to ${named}`
  if (INPUTS[named]) {
    if (typeof value !== 'object' || Array.isArray(value)) return bad
    for (const [key, fieldType] of Object.entries(INPUTS[named])) {
      const problem = jsonProblem((value as Json)[key], parseTypeText(fieldType))
      if (problem) return `${key}: ${problem}`
    }
    const extra = Object.keys(value).find(key => !(key in INPUTS[named]))
    return extra ? `Field is not defined on ${named}: ${extra}` : undefined
  }
  if (ENUMS[named]) return typeof value === 'string' && ENUMS[named].includes(value) ? undefined : bad
  switch (named) {
    case 'Int':
      return Number.isInteger(value) && Math.abs(value as number) < 2 ** 31 ? undefined : bad
    case 'Boolean':
      return typeof value === 'boolean' ? undefined : bad
    case 'ID':
      return typeof value === 'string' || Number.isInteger(value) ? undefined : bad
    default:
      return typeof value === 'string' ? undefined : bad
  }
}

// --- execution ---

interface Context {
  state: GitHubState
  actor: string
  readOnly: boolean
  variables: Json
  errors: GraphqlError[]
}

/** An argument's value, variables filled in. */
function argValue(value: Value, variables: Json): unknown {
  switch (value.kind) {
    case 'variable':
      return variables[value.name] ?? null
    case 'null':
      return null
    case 'list':
      return value.items.map(item => argValue(item, variables))
    case 'object':
      return Object.fromEntries(Object.entries(value.fields).map(([k, v]) => [k, argValue(v, variables)]))
    default:
      return value.value
  }
}

const cursorOf = (index: number): string => Buffer.from(`cursor:v2:${index}`).toString('base64')
const indexOf = (cursor: unknown): number | undefined => {
  const m = /^cursor:v2:(\d+)$/.exec(Buffer.from(String(cursor ?? ''), 'base64').toString('utf8'))
  return m ? Number(m[1]) : undefined
}

/** A page of `items` as GitHub's connections give it; an error when first/last is missing or over 100. */
function connection<T>(
  items: T[],
  args: Json,
  field: FieldNode,
  path: (string | number)[],
  ctx: Context
): { nodes: T[]; pageInfo: Json; totalCount: number } | null {
  const first = args.first as number | null | undefined
  const last = args.last as number | null | undefined
  if ((first ?? null) === null && (last ?? null) === null) {
    ctx.errors.push({
      message: `You must provide a \`first\` or \`last\` value to properly paginate the \`${field.name}\` connection.`,
      locations: [field.loc],
      path,
      type: 'MISSING_PAGINATION_BOUNDARIES'
    })
    return null
  }
  for (const [name, n] of [
    ['first', first],
    ['last', last]
  ] as const)
    if (typeof n === 'number' && (n < 0 || n > 100)) {
      ctx.errors.push({
        message: `Requesting ${n} records on the \`${field.name}\` connection exceeds the \`${name}\` limit of 100 records.`,
        locations: [field.loc],
        path,
        type: 'EXCESSIVE_PAGINATION'
      })
      return null
    }
  let start = 0
  let end = items.length
  const after = args.after === undefined || args.after === null ? undefined : indexOf(args.after)
  const before = args.before === undefined || args.before === null ? undefined : indexOf(args.before)
  if (after !== undefined) start = after + 1
  if (before !== undefined) end = Math.min(end, before)
  if (typeof first === 'number') end = Math.min(end, start + first)
  if (typeof last === 'number') start = Math.max(start, end - last)
  const nodes = items.slice(start, end)
  return {
    nodes,
    totalCount: items.length,
    pageInfo: {
      startCursor: nodes.length ? cursorOf(start) : null,
      endCursor: nodes.length ? cursorOf(end - 1) : null,
      hasNextPage: end < items.length,
      hasPreviousPage: start > 0
    }
  }
}

type Resolver = (
  parent: never,
  args: Json,
  field: FieldNode,
  path: (string | number)[],
  ctx: Context
) => unknown

function thread(ctx: Context, record: ReviewThreadRecord): Json {
  const comments = ctx.state.threadComments(record)
  const root = comments[0]
  const mayWrite = ctx.actor === GITHUB_ACTIONS_BOT || ctx.state.hasRole(ctx.actor, 'write')
  return {
    record,
    comments,
    id: record.id,
    isResolved: record.resolved,
    isCollapsed: record.resolved,
    isOutdated: root.subjectType === 'line' && root.line === null,
    path: root.path,
    line: root.line,
    startLine: root.startLine,
    originalLine: root.originalLine,
    originalStartLine: root.originalStartLine,
    diffSide: root.side,
    startDiffSide: root.startSide,
    subjectType: root.subjectType === 'file' ? 'FILE' : 'LINE',
    viewerCanReply: true,
    viewerCanResolve: mayWrite && !record.resolved,
    viewerCanUnresolve: mayWrite && record.resolved
  }
}

const RESOLVERS: Record<string, Record<string, Resolver>> = {
  Query: {
    repository: (_parent, args, _field, path, ctx) => {
      const { repo } = ctx.state
      const wanted = `${String(args.owner)}/${String(args.name)}`
      if (wanted.toLowerCase() === ctx.state.fullName.toLowerCase()) return { repo }
      ctx.errors.push({
        type: 'NOT_FOUND',
        path,
        message: `Could not resolve to a Repository with the name '${wanted}'.`
      })
      return null
    }
  },
  Repository: {
    id: (_p, _a, _f, _path, ctx) => ctx.state.nodeId('R', ctx.state.repo.id),
    name: (_p, _a, _f, _path, ctx) => ctx.state.repo.name,
    nameWithOwner: (_p, _a, _f, _path, ctx) => ctx.state.fullName,
    pullRequest: (_parent, args, _field, path, ctx) => {
      const pull = ctx.state.pull(Number(args.number))
      if (pull) return pull
      ctx.errors.push({
        type: 'NOT_FOUND',
        path,
        message: `Could not resolve to a PullRequest with the number of ${String(args.number)}.`
      })
      return null
    }
  },
  PullRequest: {
    id: (pull: { nodeId: string }) => pull.nodeId,
    number: (pull: { number: number }) => pull.number,
    reviewThreads: (pull: { number: number }, args, field, path, ctx) =>
      connection(
        ctx.state.reviewThreads.filter(t => t.pullNumber === pull.number).map(t => thread(ctx, t)),
        args,
        field,
        path,
        ctx
      )
  },
  PullRequestReviewThread: {
    comments: (t: { comments: unknown[] }, args, field, path, ctx) =>
      connection(t.comments, args, field, path, ctx)
  },
  PullRequestReviewComment: {
    id: (c: { nodeId: string }) => c.nodeId,
    fullDatabaseId: (c: { id: number }) => String(c.id),
    databaseId: (c: { id: number }) => c.id,
    outdated: (c: { line: number | null; subjectType: string }) => c.subjectType === 'line' && c.line === null
  },
  Mutation: {
    resolveReviewThread: (_parent, args, field, path, ctx) => {
      const input = args.input as { threadId: string; clientMutationId?: string }
      if (ctx.readOnly) {
        ctx.errors.push({
          type: 'FORBIDDEN',
          path,
          locations: [field.loc],
          message: 'Resource not accessible by integration'
        })
        return null
      }
      const record = ctx.state.reviewThreads.find(t => t.id === input.threadId)
      if (!record) {
        ctx.errors.push({
          type: 'NOT_FOUND',
          path,
          locations: [field.loc],
          message: `Could not resolve to a node with the global id of '${input.threadId}'`
        })
        return null
      }
      if (ctx.actor !== GITHUB_ACTIONS_BOT && !ctx.state.hasRole(ctx.actor, 'write')) {
        ctx.errors.push({
          type: 'FORBIDDEN',
          path,
          locations: [field.loc],
          message: `${ctx.actor} does not have the correct permissions to execute \`ResolveReviewThread\``
        })
        return null
      }
      record.resolved = true
      record.resolvedBy = ctx.actor
      return { clientMutationId: input.clientMutationId ?? null, thread: thread(ctx, record) }
    }
  }
}

function complete(
  type: TypeRef,
  value: unknown,
  field: FieldNode,
  path: (string | number)[],
  ctx: Context
): unknown {
  if (value === null || value === undefined) return null
  if (type.list)
    return (value as unknown[]).map((item, i) => complete(type.list!, item, field, [...path, i], ctx))
  const named = String(type.name)
  if (!OBJECTS[named]) return value
  return select(named, value, field.selections ?? [], path, ctx)
}

function select(
  typeName: string,
  parent: unknown,
  fields: FieldNode[],
  path: (string | number)[],
  ctx: Context
): Json {
  const out: Json = {}
  for (const field of fields) {
    const key = field.alias ?? field.name
    if (field.name === '__typename') {
      out[key] = typeName
      continue
    }
    const def = OBJECTS[typeName][field.name]
    const args = Object.fromEntries(
      Object.entries(field.args).map(([name, value]) => [name, argValue(value, ctx.variables)])
    )
    const resolver = RESOLVERS[typeName]?.[field.name]
    const raw = resolver
      ? resolver(parent as never, args, field, [...path, key], ctx)
      : (parent as Json)[field.name]
    out[key] = complete(parseTypeText(def.type), raw, field, [...path, key], ctx)
  }
  return out
}

// --- the endpoint ---

export interface GraphqlAnswer {
  status: number
  body: Json
  /** `query Name` / `mutation Name` for the request log (operationId `graphql:<type> <name>`). */
  operation: string
  /** What GitHub would have refused, or what the action must not rely on: expect none. */
  problems: string[]
}

/**
 * Answers one POST /graphql. `readOnly`: the job token's `permissions:` grant no write, so a mutation is
 * refused (FORBIDDEN), as GitHub refuses it.
 */
export function answerGraphql(
  state: GitHubState,
  request: { body: unknown; actor: string; readOnly: boolean }
): GraphqlAnswer {
  const body = (request.body ?? {}) as { query?: unknown; variables?: unknown; operationName?: unknown }
  const refuse = (operation: string, errors: GraphqlError[]): GraphqlAnswer => ({
    status: 200,
    body: { errors },
    operation,
    problems: errors.map(e => e.message)
  })
  if (typeof body.query !== 'string')
    return {
      status: 400,
      body: { message: 'A query attribute must be specified and must be a string.' },
      operation: 'graphql',
      problems: ['no query']
    }
  const variables = (body.variables ?? {}) as Json
  let operation: OperationNode
  try {
    operation = parseDocument(body.query)
  } catch (error) {
    if (!(error instanceof ParseError)) throw error
    return refuse('graphql', [{ message: error.message }])
  }
  const name = `${operation.type} ${operation.name ?? '(anonymous)'}`
  if (body.operationName !== undefined && body.operationName !== operation.name)
    return refuse(name, [{ message: `No operation named "${String(body.operationName)}"` }])
  const errors = validate(operation, variables)
  if (errors.length > 0) return refuse(name, errors)
  const problems: string[] = []
  const deprecated = (fields: FieldNode[], type: string): void => {
    for (const field of fields) {
      const def = OBJECTS[type]?.[field.name]
      if (def?.deprecated) problems.push(`${type}.${field.name} is deprecated: ${def.deprecated}`)
      if (def && field.selections) deprecated(field.selections, namedOf(parseTypeText(def.type)))
    }
  }
  const root = operation.type === 'query' ? 'Query' : 'Mutation'
  deprecated(operation.selections, root)
  const ctx: Context = { state, actor: request.actor, readOnly: request.readOnly, variables, errors: [] }
  const data = select(root, {}, operation.selections, [], ctx)
  return {
    status: 200,
    body: ctx.errors.length ? { data, errors: ctx.errors } : { data },
    operation: name,
    problems
  }
}
