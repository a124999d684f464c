// The RALPH.md format engine: parse, validate, render. Nothing here spawns a process or talks to GitHub.
export { fileProblem, RalphError } from './types.js'
export type { PlaceholderValues, Ralph, RalphCheck, RalphCommand, RalphProblem } from './types.js'
export { argsRead, NAME_RE, parseUserArgs, VALID_NAME_CHARS_MSG } from './args.js'
export { stripHtmlComments } from './comments.js'
export { parseDuration } from './duration.js'
export {
  FrontmatterPositions,
  normalizeNewlines,
  parseFrontmatter,
  readFrontmatter,
  splitFrontmatter
} from './frontmatter.js'
export type { FrontmatterSplit, ParsedFrontmatter, SourcePos } from './frontmatter.js'
export { pyLstrip, pyRstrip, pyStrip } from './pystr.js'
export { PyOpaque, pyFloatRepr, pyFormatFixed1, pyRepr, pyStrRepr, pyTypeName } from './pyvalue.js'
export type { PyDict, PyValue } from './pyvalue.js'
export {
  assemblePrompt,
  commandArgv,
  CREDIT_TRAILER,
  formatDuration,
  PLACEHOLDER_RE,
  promptTemplate,
  ralphTemplate,
  renderPlaceholders,
  resolveArgsInRun,
  runsFromRalphDir,
  timeoutMarker
} from './render.js'
export { INSTALLED_RALPHS_DIR, listInstalledRalphs, RALPH_MARKER, resolveRalphPath } from './resolve.js'
export type { ResolvedRalphPath } from './resolve.js'
export { ShlexError, shlexQuote, shlexSplit } from './shlex.js'
export { argEnvironment, argEnvName, argsInsideWords } from './arg-words.js'
export {
  DEFAULT_CHECK_TIMEOUT,
  DEFAULT_COMMAND_TIMEOUT,
  lintRalph,
  loadRalph,
  validateRalph
} from './validate.js'
export type { LoadedRalph, LoadOptions } from './validate.js'
export { which } from './which.js'
export {
  pinTreeFile,
  readRegularFile,
  readTreeFile,
  TREE_FILE_MAX_BYTES,
  TreeFileError
} from './tree-file.js'
export {
  commandNotFound,
  missingAgentProgram,
  missingCommandProgram,
  missingGateProgram
} from './programs.js'
export { parseProtectSetting } from './protect.js'
export { parseEditableSetting } from './editable.js'
