// Writes the reference pages docs/reference/inputs.md and docs/reference/outputs.md from action.yml, as
// actions/checkout generates its docs: they cannot drift from what the action declares. `npm run docs`
// rewrites them; `--check` only reports whether they are current. The inputs are grouped by INPUT_GROUPS
// below, which must name every input action.yml declares, once: a new input fails both until it has a group.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { parse } from 'yaml'

// `--root DIR` reads and writes another copy (the tests use it); by default this repository.
const rootArg = process.argv.indexOf('--root')
const root =
  rootArg > 0
    ? path.resolve(process.argv[rootArg + 1])
    : path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')

/** The pages this script writes, relative to the repository's top. */
export const PAGES = { inputs: 'docs/reference/inputs.md', outputs: 'docs/reference/outputs.md' }

/** The inputs by what they are for: the ones most workflows set first, the ones almost nobody needs last. */
export const INPUT_GROUPS = [
  {
    title: 'The ralph and the agent',
    inputs: ['ralph', 'prompt', 'agent', 'args', 'install-agent']
  },
  {
    title: 'Gates and the verdict',
    inputs: [
      'checks',
      'setup',
      'baseline',
      'skip-if-green',
      'parallel-checks',
      'verify',
      'completion-tag',
      'protected-paths',
      'editable',
      'holdout',
      'holdout-path',
      'holdout-ref',
      'holdout-feedback'
    ]
  },
  {
    title: 'Budgets',
    inputs: ['max-iterations', 'max-cost', 'max-time', 'agent-timeout', 'max-turns', 'max-file-size']
  },
  {
    title: "The repository's budget",
    intro: 'See [A budget for the whole repository](../budget.md).',
    inputs: ['budget', 'budget-per-requester', 'ledger-ref', 'lease']
  },
  {
    title: 'The branch and the pull request',
    inputs: [
      'branch',
      'base',
      'open-pr',
      'on-failure',
      'draft',
      'pr-title',
      'labels',
      'reviewers',
      'assignees',
      'push-token',
      'github-token'
    ]
  },
  {
    title: "The agent's network",
    intro:
      'Behind the model proxy (on by default for the five agent CLIs it knows, when the job holds their key) the ' +
      "agent's user, which `setup` and the gates share, reaches only the proxy: a `setup` that downloads needs these.",
    inputs: ['agent-network', 'allowed-hosts']
  },
  {
    title: 'Triggers and hunts',
    intro: 'See [Triggers](../triggers.md).',
    inputs: ['trigger-label', 'allowed-bots', 'max-open-prs', 'report-issue']
  },
  {
    title: 'Reviews and failing CI',
    intro: 'See [Answering reviews and failing CI](../answering-reviews.md).',
    inputs: ['ci-fix', 'max-fix-rounds', 'resolve-threads']
  },
  {
    title: 'Modes: a dry run, two jobs, long loops, fan-out',
    intro:
      'See [Two jobs](../two-jobs.md), [Loops longer than one job](../long-loops.md) and ' +
      '[Fan-out](../triggers.md#fan-out).',
    inputs: ['dry-run', 'mode', 'delivery', 'continue-jobs', 'resume']
  },
  {
    title: 'Advanced',
    intro:
      'Inputs almost nobody needs: a model gateway, the agent user and its limits, the agent presets, the ' +
      "artifact's naming, the bot account, the project's folder.",
    inputs: [
      'model-proxy',
      'model-upstream',
      'model-ca',
      'isolation',
      'agent-user',
      'agent-max-processes',
      'presets',
      'allow-env',
      'bot-login',
      'upload-artifacts',
      'artifact-name',
      'retention-days',
      'working-directory'
    ]
  }
]

const GENERATED =
  '<!-- Generated from action.yml by `npm run docs`: edit action.yml (or the groups in scripts/docs.mjs), not this page. -->'

/** One line for a table cell: whitespace folded, pipes escaped. */
const cell = text =>
  String(text ?? '')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/\|/g, '\\|')

/** A default as the user would write it: `${{ github.token }}` and strings shown as code. */
const defaultCell = value => (value === undefined || value === '' ? '' : `\`${cell(value)}\``)

/** Every input action.yml declares in exactly one group, and no group naming one it does not: else one line. */
export function groupProblem(action, groups = INPUT_GROUPS) {
  const declared = Object.keys(action.inputs ?? {})
  const grouped = groups.flatMap(group => group.inputs)
  const fix = 'scripts/docs.mjs, INPUT_GROUPS'
  const twice = grouped.find((name, index) => grouped.indexOf(name) !== index)
  if (twice) return `Input '${twice}' is in two groups of ${fix}: keep it in one.`
  const stray = grouped.find(name => !declared.includes(name))
  if (stray) return `Input '${stray}' is in ${fix} but not in action.yml: remove it there.`
  const loose = declared.find(name => !grouped.includes(name))
  if (loose) return `Input '${loose}' of action.yml is in no group: add it to one in ${fix}.`
  return undefined
}

export function inputsTable(action, names) {
  const rows = names.map(name => {
    const input = action.inputs[name]
    return `| \`${name}\` | ${defaultCell(input.default)} | ${input.required ? 'yes' : 'no'} | ${cell(input.description)} |`
  })
  return ['| input | default | required | description |', '|---|---|---|---|', ...rows].join('\n')
}

export function outputsTable(action) {
  const rows = Object.entries(action.outputs ?? {}).map(
    ([name, output]) => `| \`${name}\` | ${cell(output.description)} |`
  )
  return ['| output | description |', '|---|---|', ...rows].join('\n')
}

/** docs/reference/inputs.md for the action.yml text. */
export function renderInputs(actionYml) {
  const action = parse(actionYml)
  const problem = groupProblem(action)
  if (problem) throw new Error(problem)
  const sections = INPUT_GROUPS.map(group =>
    [`## ${group.title}`, ...(group.intro ? [group.intro] : []), inputsTable(action, group.inputs)].join(
      '\n\n'
    )
  )
  return [
    GENERATED,
    '# Inputs',
    `The ${Object.keys(action.inputs).length} inputs of [\`action.yml\`](../../action.yml), the ones most workflows ` +
      'set first and those almost nobody needs last, under Advanced. Nine of them restate a RALPH.md key: how ' +
      'each merges with it is in ' +
      "[The keys and the action's inputs](../ralph-format.md#the-keys-and-the-actions-inputs).",
    ...sections
  ].join('\n\n')
}

/** docs/reference/outputs.md for the action.yml text. */
export function renderOutputs(actionYml) {
  const action = parse(actionYml)
  return [
    GENERATED,
    '# Outputs',
    `The ${Object.keys(action.outputs ?? {}).length} outputs of [\`action.yml\`](../../action.yml), for the steps ` +
      'after it: `${{ steps.<id>.outputs.<name> }}`.',
    outputsTable(action)
  ].join('\n\n')
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const actionYml = readFileSync(path.join(root, 'action.yml'), 'utf8')
  let pages
  try {
    pages = [
      [PAGES.inputs, `${renderInputs(actionYml)}\n`],
      [PAGES.outputs, `${renderOutputs(actionYml)}\n`]
    ]
  } catch (error) {
    console.error(error.message)
    process.exit(1)
  }
  const read = file => {
    try {
      return readFileSync(path.join(root, file), 'utf8')
    } catch {
      return undefined
    }
  }
  const stale = pages.filter(([file, text]) => read(file) !== text).map(([file]) => file)
  if (process.argv.includes('--check')) {
    if (stale.length > 0) {
      console.error(`${stale.join(' and ')} differ from action.yml: run \`npm run docs\`.`)
      process.exit(1)
    }
    console.log('The reference pages match action.yml.')
  } else {
    for (const [file, text] of pages.filter(([file]) => stale.includes(file))) {
      mkdirSync(path.dirname(path.join(root, file)), { recursive: true })
      writeFileSync(path.join(root, file), text)
    }
    console.log(
      stale.length > 0
        ? `${stale.join(' and ')}: regenerated from action.yml.`
        : 'The reference pages are already current.'
    )
  }
}
