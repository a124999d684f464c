import {
  costAt,
  lookupPrice,
  normaliseModelId,
  PRICE_TABLE,
  PRICE_TABLE_VERSION,
  priceFromTable,
  topPriceOf,
  vendorOfModel,
  type ModelVendor
} from '../../src/agents/index.js'

test('every row says when and where its price was read, and how far it is verified', () => {
  expect(PRICE_TABLE_VERSION).toMatch(/^\d{4}-\d{2}-\d{2}$/)
  for (const row of PRICE_TABLE) {
    expect(row.date).toMatch(/^\d{4}-\d{2}-\d{2}$/)
    expect(row.source).toMatch(/https?:\/\/|none found/)
    expect(['official', 'third-party', 'unverified']).toContain(row.verified)
    if (row.verified === 'unverified') expect(row.source).not.toBe('')
    for (const price of [row.input, row.output, row.cache_read, row.cache_write, row.cache_write_1h ?? 0])
      expect(price).toBeGreaterThanOrEqual(0)
    for (const model of row.models) expect(normaliseModelId(model)).toBe(model)
  }
})

test('no model is priced twice', () => {
  const ids = PRICE_TABLE.flatMap(row => row.models)
  expect(new Set(ids).size).toBe(ids.length)
})

test('the models the recorded streams use are priced', () => {
  expect(lookupPrice('claude-sonnet-4-5')).toMatchObject({
    input: 3,
    output: 15,
    cache_read: 0.3,
    cache_write: 3.75
  })
  expect(lookupPrice('gpt-5.5')).toMatchObject({ input: 5, output: 30, cache_read: 0.5 })
})

test('model ids are normalised: provider prefixes, dates, versions, [1m], dots in claude ids', () => {
  expect(normaliseModelId('claude-sonnet-4-5-20250929')).toBe('claude-sonnet-4-5')
  expect(normaliseModelId('anthropic/claude-sonnet-4.5')).toBe('claude-sonnet-4-5')
  expect(normaliseModelId('us.anthropic.claude-opus-4-1-20250805-v1:0')).toBe('claude-opus-4-1')
  expect(normaliseModelId('claude-opus-4-6[1m]')).toBe('claude-opus-4-6')
  expect(normaliseModelId('openai/gpt-5.5')).toBe('gpt-5.5')
  expect(normaliseModelId('gpt-5-2025-08-07')).toBe('gpt-5')
  expect(normaliseModelId('models/gemini-2.5-pro')).toBe('gemini-2.5-pro')
})

test('an unknown model is not guessed from a look-alike', () => {
  expect(lookupPrice('gpt-5.5-turbo')).toBeUndefined()
  expect(lookupPrice('claude-sonnet-9')).toBeUndefined()
  expect(lookupPrice(undefined)).toBeUndefined()
  expect(
    priceFromTable({ input: 1, output: 1, cache_read: 0, cache_write: 0, model: 'test-model' })
  ).toBeUndefined()
})

test('a run is priced per token kind', () => {
  const usage = {
    input: 1_000_000,
    output: 100_000,
    cache_read: 2_000_000,
    cache_write: 40_000,
    model: 'claude-haiku-4-5'
  }
  expect(priceFromTable(usage)).toBeCloseTo(1 + 0.5 + 0.2 + 0.05, 12)
})

test("every row belongs to a vendor, and a vendor's top price is each of its highest rates (#25)", () => {
  for (const row of PRICE_TABLE) for (const model of row.models) expect(vendorOfModel(model)).toBeDefined()
  // Anthropic's highest input and output are claude-opus-4-1's; its highest cache read is fable's too.
  expect(topPriceOf('Anthropic')).toMatchObject({
    input: 15,
    output: 75,
    cache_read: 1.5,
    cache_write: 18.75
  })
  expect(topPriceOf('OpenAI')).toMatchObject({ input: 30, output: 180 })
  expect(topPriceOf('Google')).toMatchObject({ input: 2, output: 12 })
  expect(vendorOfModel('anthropic/claude-unlisted-9')).toBe('Anthropic')
  expect(vendorOfModel('o4-mini')).toBe('OpenAI')
  expect(vendorOfModel('models/gemini-9-ultra')).toBe('Google')
  expect(vendorOfModel('qwen4-max')).toBe('Alibaba')
  expect(vendorOfModel('deepseek-v4')).toBeUndefined()
  expect(vendorOfModel(undefined)).toBeUndefined()
})

test('an Anthropic row prices the 1-hour cache write at 2× its input, the 5-minute one at 1.25× (#35)', () => {
  for (const row of PRICE_TABLE.filter(row => vendorOfModel(row.models[0]) === 'Anthropic')) {
    expect({ models: row.models, hour: row.cache_write_1h }).toEqual({
      models: row.models,
      hour: 2 * row.input
    })
    expect({ models: row.models, five: row.cache_write }).toEqual({
      models: row.models,
      five: expect.closeTo(1.25 * row.input, 10)
    })
  }
  expect(topPriceOf('Anthropic').cache_write_1h).toBe(30)
})

test('the 1-hour writes of a run are priced at their own rate, the rest of its writes at the 5-minute one (#35)', () => {
  const usage = {
    input: 0,
    output: 0,
    cache_read: 0,
    cache_write: 100_000,
    cache_write_1h: 40_000,
    model: 'claude-sonnet-4-5'
  }
  // $3.75 a million 5-minute writes, $6 a million 1-hour ones (a prompt under the long-context threshold).
  expect(priceFromTable(usage)).toBeCloseTo(0.06 * 3.75 + 0.04 * 6, 12)
  // A vendor without an hour's cache is charged 2× its input for one: never less than its own write.
  expect(priceFromTable({ ...usage, model: 'gpt-5.5' })).toBeCloseTo(0.04 * 10, 12)
})

describe('a prompt over a long-context threshold (#35)', () => {
  // claude-sonnet-4-5 above 200K prompt tokens: $6 input, $22.50 output, $0.60 read, $7.50 and $12 writes.
  const sonnet = (prompt: { input: number; cache_read?: number; cache_write?: number }) => ({
    cache_read: 0,
    cache_write: 0,
    ...prompt,
    output: 10_000,
    model: 'claude-sonnet-4-5'
  })

  it('bills the whole request at the long rates, its cache reads and writes counting toward the threshold', () => {
    const usage = sonnet({ input: 100_000, cache_read: 60_000, cache_write: 50_000 })
    expect(priceFromTable(usage)).toBeCloseTo(
      (100_000 * 6 + 60_000 * 0.6 + 50_000 * 7.5 + 10_000 * 22.5) / 1e6,
      12
    )
    expect(priceFromTable({ ...usage, cache_write_1h: 50_000 })).toBeCloseTo(
      (100_000 * 6 + 60_000 * 0.6 + 50_000 * 12 + 10_000 * 22.5) / 1e6,
      12
    )
  })

  it('bills a prompt at the threshold at the base rates: only one over it crosses', () => {
    expect(priceFromTable(sonnet({ input: 200_000 }))).toBeCloseTo((200_000 * 3 + 10_000 * 15) / 1e6, 12)
    expect(priceFromTable(sonnet({ input: 200_001 }))).toBeCloseTo((200_001 * 6 + 10_000 * 22.5) / 1e6, 12)
    // OpenAI's threshold is 272K, its cached input counted in it: gpt-5.4 at $5 / $22.50 / $0.50 above it.
    const gpt = { input: 200_000, output: 1000, cache_read: 72_001, cache_write: 0, model: 'gpt-5.4' }
    expect(priceFromTable(gpt)).toBeCloseTo((200_000 * 5 + 72_001 * 0.5 + 1000 * 22.5) / 1e6, 12)
  })

  it('has rates no lower than the base ones, on every row that has them', () => {
    const rows = PRICE_TABLE.filter(row => row.longContext)
    expect(rows.map(row => row.models[0])).toEqual(
      expect.arrayContaining(['claude-sonnet-4-6', 'gpt-5.4', 'gemini-2.5-pro', 'gemini-3-pro-preview'])
    )
    for (const row of rows) {
      const long = row.longContext!
      expect(long.above).toBeGreaterThan(0)
      for (const kind of ['input', 'output', 'cache_read', 'cache_write'] as const)
        expect({ models: row.models, kind, long: long[kind] >= row[kind] }).toEqual({
          models: row.models,
          kind,
          long: true
        })
    }
  })

  it('prices an unlisted model no lower than any row of its vendor, at every prompt size', () => {
    const sizes = [1000, 100_000, 100_001, 200_000, 200_001, 272_000, 272_001, 1_000_000]
    for (const vendor of ['Anthropic', 'OpenAI', 'Google', 'Alibaba'] as ModelVendor[]) {
      const top = topPriceOf(vendor)
      for (const row of PRICE_TABLE.filter(row => vendorOfModel(row.models[0]) === vendor))
        for (const prompt of sizes)
          for (const usage of [
            { input: prompt, output: 1000, cache_read: 0, cache_write: 0 },
            { input: 0, output: 1000, cache_read: prompt, cache_write: 0 },
            { input: 0, output: 1000, cache_read: 0, cache_write: prompt, cache_write_1h: prompt }
          ])
            expect({
              vendor,
              row: row.models[0],
              usage,
              low: costAt(top, usage) < costAt(row, usage)
            }).toEqual({
              vendor,
              row: row.models[0],
              usage,
              low: false
            })
    }
  })
})
