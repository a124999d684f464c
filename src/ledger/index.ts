// The repository's dollar budget: a ledger in a ref of the repository that every run reserves from before it
// spends and settles after (see docs/budget.md). The action and the model proxy call openLease/Lease;
// the CLI reads the ledger to print it.
export {
  BUDGET_INPUTS,
  describeLimit,
  describeLimits,
  hasBudget,
  parseBudget,
  parseBudgets,
  type BudgetLimits,
  type WindowLimits
} from './budget.js'
export {
  emptyLedger,
  LEDGER_FILE,
  LEDGER_VERSION,
  MAX_LEDGER_BYTES,
  parseLedger,
  serializeLedger,
  LedgerFormatError,
  type Ledger,
  type LeaseRecord,
  type RunRef,
  type Totals
} from './format.js'
export {
  chunkFor,
  fixedCap,
  leaseId,
  openLease,
  parseLeaseState,
  resumeLease,
  settleLease,
  type BudgetStatus,
  type Lease,
  type LeaseRequest,
  type LeaseState,
  type Opened,
  type Settled,
  type SpendingCap
} from './lease.js'
export { formatUsd, microsOf, usdOf, type Micros } from './money.js'
export {
  compact,
  expire,
  granted,
  leftOf,
  limitedWindows,
  refusalFor,
  refusalLine,
  reserve,
  settle,
  topUp,
  windowState,
  type Refusal,
  type Scope,
  type WindowState
} from './operations.js'
export {
  DEFAULT_LEDGER_REF,
  LedgerError,
  LedgerStore,
  ledgerRefProblem,
  readLedgerCommit,
  type LedgerStoreOptions,
  type LedgerTip
} from './store.js'
export { dayKey, monthKey, resetPhrase, resetsAt, type WindowKind } from './windows.js'
