import { presetFor } from '../../src/agents/index.js'

const pick = (argv: string[], flags?: 'all' | 'reference') => presetFor(argv, { presets: true, flags })

test.each([
  [['claude', '-p'], 'claude', ['claude', '-p', '--output-format', 'stream-json', '--verbose']],
  [['codex', 'exec', '-'], 'codex', ['codex', 'exec', '--json', '-']],
  [['gemini', '-y'], 'gemini', ['gemini', '-y', '--output-format', 'stream-json']],
  [['opencode', 'run'], 'opencode', ['opencode', 'run', '--format', 'json']],
  [['qwen', '-y'], 'qwen', ['qwen', '-y', '--output-format', 'stream-json']],
  [['aider', '--message', 'x'], 'aider', ['aider', '--message', 'x']],
  [['./my-agent.sh', '--fast'], 'generic', ['./my-agent.sh', '--fast']]
])('%j runs with the %s preset as %j', (argv, name, expected) => {
  const preset = pick(argv)
  expect(preset.name).toBe(name)
  expect(preset.argv(argv)).toEqual(expected)
})

test('a flag the user gave is never added again (claude aside: the reference appends its own)', () => {
  for (const argv of [
    ['codex', 'exec', '--json', '-'],
    ['gemini', '--output-format', 'stream-json'],
    ['gemini', '-o', 'json'],
    ['opencode', 'run', '--format', 'json'],
    ['qwen', '-o', 'stream-json']
  ]) {
    expect(pick(argv).argv(argv)).toEqual(argv)
  }
})

test("reference flags: only claude's, so the argv is ralphify's", () => {
  expect(pick(['claude', '-p'], 'reference').argv(['claude', '-p'])).toEqual([
    'claude',
    '-p',
    '--output-format',
    'stream-json',
    '--verbose'
  ])
  for (const argv of [
    ['codex', 'exec', '--sandbox', 'danger-full-access', '-'],
    ['gemini', '-y'],
    ['opencode', 'run'],
    ['qwen', '-y']
  ]) {
    const preset = pick(argv, 'reference')
    expect(preset.argv(argv)).toEqual(argv)
    expect(preset.jsonStream).toBe(false)
  }
})

test('presets off: every agent is generic and runs exactly as written', () => {
  for (const argv of [['claude', '-p'], ['codex', 'exec', '-'], ['gemini']]) {
    const preset = presetFor(argv, { presets: false })
    expect(preset.name).toBe('generic')
    expect(preset.argv(argv)).toEqual(argv)
  }
})

test('names that only look like an agent are generic', () => {
  expect(pick(['claude-code']).name).toBe('generic')
  expect(pick(['codex']).name).toBe('generic')
  expect(pick(['opencode']).name).toBe('generic')
  expect(pick(['./gemini-wrapper.sh']).name).toBe('generic')
})

test("qwen: the loop's turn cap as --max-session-turns unless given; only stream-json is read as a stream", () => {
  expect(pick(['qwen', '-y']).argv(['qwen', '-y'], { maxTurns: 7, remainingUsd: 2 })).toEqual([
    'qwen',
    '-y',
    '--output-format',
    'stream-json',
    '--max-session-turns',
    '7'
  ])
  const own = ['qwen', '-y', '--max-session-turns', '3']
  expect(pick(own).argv(own, { maxTurns: 7 })).toEqual([...own, '--output-format', 'stream-json'])
  expect(pick(['qwen', '-o', 'json']).jsonStream).toBe(false)
  expect(pick(['qwen', '--output-format=text']).jsonStream).toBe(false)
})
