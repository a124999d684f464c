// Protected paths: what judges the agent (tests that existed, check scripts, runner configuration, the ralph's
// folder, .github/) is put back from the start commit before every gate run, so the verdict is the action's.
// The decisions (which globs, does a path match) are pure; finding changes reads the tree as the action's
// user without following a link; the writes run as the agent's user (its runProcess), so the tree stays its own.
//
// The folder, one job a file:
//   types.ts         the shapes (ProtectRule, Revert, Protection…); imports nothing, so loop/types.ts imports it
//                    directly (through this index it would close a circle: gate-run.ts names loop/types' CheckRun)
//   rules.ts         what `auto` stands for: AUTO_RULES, one small function each (gate-files.ts reads gate commands)
//   glob.ts          the glob engine: a glob as a regular expression, the rule naming a path
//   resolve.ts       a setting and the run's facts against the start commit → a Protection
//   scan.ts          the tree scan with its stat cache: findChanges
//   restore.ts       the put-back script, run as the agent's user, and the look again after it
//   commit-check.ts  the protected paths a delivered commit changes
//   gate-run.ts      the failing run that voids a round of gates during which protected paths changed
// Everything outside this folder imports it through this index.
export { parseProtectSetting } from '../../ralph/protect.js'
export { protectedChanges, protectedInCommit } from './commit-check.js'
export { filesRun } from './gate-files.js'
export { changedDuringGates } from './gate-run.js'
export { globMatches, globRegExp, ruleFor } from './glob.js'
export {
  baseEntries,
  insideTop,
  protectionFromRules,
  protectionOf,
  repositoryTop,
  resolveProtection
} from './resolve.js'
export { readBlobs, restore, restoreProtected, restoreScript, type RestoreOptions } from './restore.js'
export { revertsLine } from './reverts-line.js'
export {
  AUTO_RULES,
  autoRules,
  protectRules,
  RUNNER_CONFIG_GLOBS,
  TEST_FILE_GLOBS,
  type AutoRule
} from './rules.js'
export { findChanges } from './scan.js'
export {
  ProtectedPathError,
  type AutoFacts,
  type BaseEntry,
  type Protection,
  type ProtectRule,
  type Revert
} from './types.js'
