// The loop engine's public surface: runLoop and the pieces front-ends, the benchmark and tests use.
export { runLoop, verifyDelivered } from './run-loop.js'
export type { Delivered } from './steps/verification.js'
export { agentPresetFor } from './setup.js'
export { usageLimitWait, MAX_USAGE_LIMIT_WAIT_MS } from './usage-limit.js'
export { startingStatus } from './status.js'
export { STOP_WORDS, type StopWords } from './stop-words.js'
export { agentCaps } from './iteration.js'
export {
  loopConfig,
  addedChecks,
  gateSettingsProblem,
  defaultRecordDir,
  DEFAULT_KILL_GRACE_MS,
  DEFAULT_OUTPUT_CAP,
  DEFAULT_COMPLETION_TAG
} from './defaults.js'
export { previewPrompt } from './preview.js'
export { missingPrograms } from './preflight.js'
export { taskRalph, type TaskRalphOptions } from './task.js'
export { createCostMeter, priceUsage, type CostMeter, type PriceTokens } from '../agents/cost-meter.js'
export { detectCompletion, tagGiven, statusBlockExit, type CompletionSignal } from './completion.js'
export { failureFingerprint, normaliseFailureOutput } from './fingerprint.js'
export {
  StagnationBreaker,
  DEFAULT_BREAKER,
  DEFAULT_PERMISSION_DENIALS,
  type BreakerRule,
  type BreakerThresholds,
  type BreakerTrip
} from './breaker.js'
export { systemClock, type EnforcedStop } from './guard.js'
export { outputRoomOf } from './output-room.js'
export { runCommands, capOutput, type CommandContext, type CommandsOutcome } from './commands.js'
export { runChecks, CHECK_TAIL_CHARS, type CheckContext } from './checks.js'
export { verifyCommit, verifyModeOf, runSetup, cleanFailures, setupCommands } from './verify.js'
export { holdoutFeedback, HOLDOUT_FAILED } from './clean/holdout-text.js'
export { holdoutFolderProblem } from './clean/holdout.js'
export {
  buildPrompt,
  loopPlaceholdersUsed,
  loopStatusSection,
  loopValues,
  LOOP_PLACEHOLDERS,
  type LoopContext,
  type PromptInputs
} from './prompt.js'
export { RunRecord, PROGRESS_FILE, STATUS_FILE, makeFolder } from './record.js'
export { progressSection, baselineVerdict } from './progress.js'
export {
  charts,
  formatCost,
  gateEvidence,
  formatDuration,
  iterationCost,
  iterationTable,
  verdictLabel
} from './overview.js'
export * from './types.js'
