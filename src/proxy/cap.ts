// What the model proxy spends against besides max-cost: the repository's budget (a ledger's lease, #38), as
// the proxy sees it. The ledger implements it (ledger/lease.ts); the proxy and the loop know only this.
export interface SpendingCap {
  /** Dollars granted so far. */
  grantedUsd(): number
  /** Makes sure `totalUsd` is granted in all (topping up if it can); false: it cannot, and `refusal` says why. */
  cover(totalUsd: number): Promise<boolean>
  /** Why the last `cover` failed, in one line. */
  refusal(): { line: string } | undefined
}
