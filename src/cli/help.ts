// Help texts, with examples. The option tables come from the same specs the parser uses.
import { formatOptions } from './argv.js'
import { BUDGET_OPTIONS } from './budget-command.js'
import { TASK_OPTIONS } from './loop-command.js'
import { PROMPT_OPTIONS } from './prompt-command.js'
import { RUN_OPTIONS } from './run-command.js'

export const VERSION = '0.1.0'

export const HELP = `Usage: ralph-action COMMAND [ARGS]...

Run a ralph loop: each iteration runs the ralph's commands, fills the RALPH.md prompt, pipes it to the
agent, then runs the checks (gates). A drop-in for ralphify's \`ralph run\`.

Commands:
  run PATH       Run the loop of a ralph (a folder, a RALPH.md, or an installed ralph's name).
  loop "TASK"    Run a loop without a ralph: the task is the prompt, --check commands are the gates.
  prompt PATH    Print the prompt an iteration would give the agent, without running the agent.
  validate PATH  Check a ralph and print every problem as file:line:column: message.
  scaffold [NAME]
                 Write a starter RALPH.md (into NAME/ when given).
  list           Print the project's installed ralphs (.agents/ralphs/) as JSON for a CI matrix.
  budget         Print the repository's budget ledger (refs/ralph/ledger): what is spent, held and left.

Options:
  -h, --help     Show help (also after a command).
  -V, --version  Show the version.

Exit codes: 0 success; 1 a problem with a file, a program or the machine (a RALPH.md, an agent not on
PATH); 2 a mistake on the command line (an unknown command, a bad option value); 3 the loop stopped
without success; 130 cancelled.
`

/** What ends a loop, for run's and loop's help. */
const WHAT_ENDS_THE_LOOP = (
  cap: string
): string => `The loop ends, successfully, when every check passes and the agent's final message ends with
<promise>COMPLETE</promise> (--completion-tag names another tag; --completion-tag '' lets the checks
alone decide); without checks, when the agent gives that tag. It stops without success at ${cap}
iterations, when --max-time or --max-cost is spent, with checks when it stops making progress (3 in a row
with no change, the same failing checks, or a failing agent), with --stop-on-error when the agent fails,
or on Ctrl+C. Every program it would start (the agent, the commands, the checks) is looked for first.`

const COMMAND_HELP: Record<string, string> = {
  run: `Usage: ralph-action run PATH [OPTIONS] [USER ARGS]...

Run the loop. Each iteration: run commands, assemble the prompt with their output, pipe it to the agent,
run the checks.

${WHAT_ENDS_THE_LOOP('-n')}

User args fill {{ args.NAME }}: --NAME VALUE, --NAME=VALUE, or positional values for the ralph's declared
\`args:\` in order. An arg the ralph never reads is named in a warning (a mistyped option, usually).

Options:
${formatOptions(RUN_OPTIONS)}

Examples:
  ralph-action run my-ralph -n 5
  ralph-action run my-ralph --check 'npm test' --max-cost 2 --max-time 30m --commit
  ralph-action run docs-writer --focus "the CLI" -n 3
`,
  loop: `Usage: ralph-action loop "TASK" --agent CMD [--check CMD]... [OPTIONS]

Run a loop without a ralph: TASK (or --spec FILE) is the prompt body; the gates and the completion rules
are those of \`run\`.

${WHAT_ENDS_THE_LOOP('--max-iterations (default 10)')}

Options:
${formatOptions(TASK_OPTIONS)}

Examples:
  ralph-action loop "Make the failing tests pass" --agent 'claude -p --permission-mode acceptEdits' \\
    --check 'npm test' --max-iterations 5 --max-cost 3
  ralph-action loop --spec SPEC.md --agent 'codex exec -' --check 'make check' --worktree
`,
  prompt: `Usage: ralph-action prompt PATH [--iteration N] [USER ARGS]...

Run the ralph's commands and print the prompt the agent would get, byte for byte, without running it.

Options:
${formatOptions(PROMPT_OPTIONS)}

Examples:
  ralph-action prompt my-ralph
  ralph-action prompt my-ralph --iteration 3 --focus tests > prompt.md
`,
  validate: `Usage: ralph-action validate PATH

Check a ralph and print every problem at once, each as file:line:column: message. Exit 1 if any.

Example:
  ralph-action validate .agents/ralphs/bug-hunter
`,
  scaffold: `Usage: ralph-action scaffold [NAME]

Write a starter RALPH.md into .agents/ralphs/NAME/ (created; where list, run NAME and /ralph NAME
find it), into the folder a path names (./NAME, dir/NAME), or into the current folder.

Example:
  ralph-action scaffold my-ralph && ralph-action run my-ralph -n 1
`,
  list: `Usage: ralph-action list

Print the project's installed ralphs (folders under .agents/ralphs/ holding a RALPH.md) as JSON,
{"ralph": [names...]}, ready for a GitHub Actions strategy.matrix.

Example:
  ralph-action list   # {"ralph":["bug-hunter","docs"]}
`,
  budget: `Usage: ralph-action budget [OPTIONS]
       ralph-action budget release LEASE --spent USD

Print the repository's budget ledger, fetched from its remote (into the same ref here): this UTC day and
month, spent and held, what is left of the budget, spend by ralph and by requester, and the leases of runs
that have not settled. \`release\` settles a lease by hand, for a run whose runner was lost: its spend (the
cost in its run record) is kept and the rest goes back; it needs GITHUB_TOKEN or GH_TOKEN (contents: write).

Options:
${formatOptions(BUDGET_OPTIONS)}

Examples:
  ralph-action budget
  ralph-action budget --budget 20/day,300/month
  GH_TOKEN=$(gh auth token) ralph-action budget release 9182736455.1-a1b2c3 --spent 0.42
`
}

export function helpFor(command: string): string {
  return COMMAND_HELP[command] ?? HELP
}
