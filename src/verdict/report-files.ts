// How each runner is told to write its machine-readable report to a file the action chose (outside the tree, in
// a folder only the action's user can write): pytest and `node --test` through a variable of the gate's
// environment, which reaches them however the gate starts them (a make target, a script, `npm test`); jest and
// go through arguments appended to the command, where the runner is the command's last step.
import { shlexQuote, shlexSplit } from '../ralph/index.js'
import type { ReportRunner } from './report.js'

/** What a gate's command and environment get so that its runner writes its report to `destination`. */
export interface ReportInvocation {
  /** Appended to the runner's own arguments (see `withRunnerArgs`). */
  args: string[]
  /** Set in the gate's environment (values already holding the job's, where the variable adds to one). */
  env: Record<string, string>
  /** Where go's report is: its standard output, redirected to `destination` by `withRunnerArgs`. */
  stdout?: boolean
}

/**
 * The `node --test` reporter the action writes beside the report (a file the agent's user may read, not write):
 * one JSON line per test that passed or failed, with its file, name, nesting and failure message. Node's own
 * reporters either leave the file out (tap, spec) or do not carry it on Node 20 (junit).
 */
export const NODE_REPORTER = `// ralph-action: one JSON line per test result, for the verdict.
export default async function* report(source) {
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue
    const d = event.data
    const error = d.details?.error
    yield JSON.stringify({
      type: event.type,
      file: d.file,
      name: d.name,
      nesting: d.nesting,
      ...(d.skip !== undefined ? { skip: true } : {}),
      ...(d.todo !== undefined ? { todo: true } : {}),
      ...(error ? { message: String(error.cause?.message ?? error.message) } : {})
    }) + '\\n'
  }
}
`

/** How many `--test-reporter` and `--test-reporter-destination` flags node's own arguments give. */
function reporterFlags(args: readonly string[]): { reporters: number; destinations: number } {
  const count = (flag: string): number => args.filter(a => a === flag || a.startsWith(`${flag}=`)).length
  return { reporters: count('--test-reporter'), destinations: count('--test-reporter-destination') }
}

/**
 * The report's invocation for `runner`. `reporter` is where NODE_REPORTER was written (node only); `nodeArgs` the
 * arguments the gate gives `node --test` itself (its command's or its package.json script's step), whose reporters
 * node pairs with destinations after ours; `jobEnv` the environment the gate would get, whose NODE_OPTIONS and
 * PYTEST_ADDOPTS are kept ahead of ours.
 */
export function reportInvocation(
  runner: ReportRunner,
  destination: string,
  options: {
    reporter?: string
    nodeArgs?: readonly string[]
    jobEnv?: Record<string, string | undefined>
  } = {}
): ReportInvocation {
  const join = (name: string, value: string): string =>
    [options.jobEnv?.[name], value].filter(v => v !== undefined && v !== '').join(' ')
  switch (runner) {
    case 'node --test': {
      if (!options.reporter) throw new Error('the node --test report needs the path of the reporter module')
      // Node takes NODE_OPTIONS' reporters first, then the command line's, and pairs them with destinations in
      // that order: the gate's own reporters without a destination get stdout, as they would alone; with none,
      // spec on stdout keeps the gate's log as a person reads it.
      const own = reporterFlags(options.nodeArgs ?? [])
      const flags = [`--test-reporter=${options.reporter}`, `--test-reporter-destination=${destination}`]
      if (own.reporters === 0) flags.push('--test-reporter=spec', '--test-reporter-destination=stdout')
      else if (own.destinations === 0)
        flags.push(...Array.from({ length: own.reporters }, () => '--test-reporter-destination=stdout'))
      return { args: [], env: { NODE_OPTIONS: join('NODE_OPTIONS', flags.map(nodeOptionQuote).join(' ')) } }
    }
    case 'pytest':
      // xunit1 names each test's file; PYTEST_ADDOPTS reaches pytest however it is started.
      return {
        args: [],
        env: {
          PYTEST_ADDOPTS: join(
            'PYTEST_ADDOPTS',
            [`--junitxml=${destination}`, '-o', 'junit_family=xunit1'].map(shlexQuote).join(' ')
          )
        }
      }
    case 'jest':
      return { args: ['--json', `--outputFile=${destination}`], env: {} }
    case 'go test':
      return { args: ['-json'], env: {}, stdout: true }
  }
}

/** NODE_OPTIONS splits on spaces and honours double quotes (with `\\` escapes) only. */
function nodeOptionQuote(flag: string): string {
  return /[\s"\\]/.test(flag) ? `"${flag.replace(/[\\"]/g, c => `\\${c}`)}"` : flag
}

/** Programs that run a package.json script by name. */
const SCRIPT_RUNNERS = new Set(['npm', 'yarn', 'pnpm'])

/** The command's `&&` steps, split outside quotes; undefined when it holds anything else that joins commands. */
function topLevelSteps(command: string): string[] | undefined {
  const steps: string[] = []
  let quote: string | undefined
  let from = 0
  for (let i = 0; i < command.length; i++) {
    const c = command[i]
    if (quote) {
      if (c === quote) quote = undefined
      else if (c === '\\' && quote === '"') i++
    } else if (c === "'" || c === '"') quote = c
    else if (c === '&' && command[i + 1] === '&') {
      steps.push(command.slice(from, i))
      from = i + 2
      i++
    } else if (/[|;&\n<>()`]/.test(c)) return undefined
  }
  if (quote) return undefined
  steps.push(command.slice(from))
  return steps.map(s => s.trim())
}

/**
 * `command` with `args` given to its runner, or why it cannot be: the runner must be the last step of the
 * command (and of each package.json script it goes through), so what follows it is the runner's own arguments.
 * `runnerOf` says which runner a step runs on its own (the loop's recogniser); `scripts` are package.json's.
 */
export function withRunnerArgs(
  command: string,
  invocation: Pick<ReportInvocation, 'args' | 'stdout'>,
  destination: string,
  runnerOf: (step: string) => ReportRunner | undefined,
  scripts: Record<string, string> = {}
): { command: string } | { why: string } {
  if (invocation.args.length === 0) return { command }
  const last = lastStepRuns(command, runnerOf, scripts, 0)
  if ('why' in last) return last
  const args = invocation.args.map(shlexQuote).join(' ')
  // npm passes what follows `--` to the script; yarn and pnpm pass what follows the script's name.
  const joined = last.viaScript === 'npm' ? `${command} -- ${args}` : `${command} ${args}`
  return { command: invocation.stdout ? `${joined} > ${shlexQuote(destination)}` : joined }
}

function lastStepRuns(
  command: string,
  runnerOf: (step: string) => ReportRunner | undefined,
  scripts: Record<string, string>,
  depth: number
): { viaScript?: string } | { why: string } {
  const steps = topLevelSteps(command)
  if (!steps) return { why: 'it is not a plain command (or an `&&` chain of them)' }
  const last = steps[steps.length - 1]
  if (steps.slice(0, -1).some(step => runnerOf(step) !== undefined))
    return { why: 'its test runner is not its last step' }
  if (runnerOf(last) === undefined) return { why: 'its test runner is not its last step' }
  let words: string[]
  try {
    words = shlexSplit(last)
  } catch {
    return { why: 'its last step cannot be read as words' }
  }
  while (words.length > 0 && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[0])) words = words.slice(1)
  const program = words[0]?.split('/').at(-1) ?? ''
  if (!SCRIPT_RUNNERS.has(program)) return {}
  // What follows `npm test --` reaches the script's command: a script that runs a script would take it as its own.
  if (depth > 0) return { why: 'its package.json script runs another script before its test runner' }
  // Arguments given after `--` or to a script that already takes some are fine; the script's own last step runs.
  const rest = words.slice(1).filter(w => !w.startsWith('-'))
  const name = ['test', 't', 'tst'].includes(rest[0] ?? '') ? 'test' : rest[0] === 'run' ? rest[1] : rest[0]
  const script = name === undefined ? undefined : scripts[name]
  if (script === undefined) return { why: `package.json has no script \`${name ?? ''}\`` }
  if (scripts[`post${name}`] !== undefined)
    return { why: `package.json's \`post${name}\` runs after its test runner` }
  const inner = lastStepRuns(script, runnerOf, scripts, depth + 1)
  return 'why' in inner ? inner : { viaScript: program }
}
