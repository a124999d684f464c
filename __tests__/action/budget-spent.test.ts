// Where the "budget spent" line goes (#38, #39): to whoever asked, each time; on a CI round's pull request,
// which no one asked on, once (the marker readRounds reads back), then not again.
import { describe, expect, test } from '@jest/globals'
import { spentReply } from '../../src/action/budget.js'
import { readRounds } from '../../src/trigger/fix-rounds.js'
import type { CiRound } from '../../src/trigger/types.js'

const LINE = "The repository's budget of $1/day is spent. No agent ran."
const ci = (said: CiRound['said']) => ({ kind: 'ci' as const, said })
const review = { kind: 'review' as const }
const bot = { kind: 'app', login: 'github-actions[bot]' } as const

describe('spentReply', () => {
  test('a /ralph comment or a label: the requester gets the line each time, no marker', () => {
    expect(spentReply(LINE, {})).toBe(`${LINE}\n`)
  })

  test('a review round: the reviewer asked, and is told each time', () => {
    expect(spentReply(LINE, { round: review })).toBe(`${LINE}\n`)
  })

  test("a CI round's first: the line with the marker the next round reads back", () => {
    const reply = spentReply(LINE, { round: ci(['cap']) })
    expect(reply).toContain(`${LINE}\n`)
    const read = readRounds([{ user: { login: 'github-actions[bot]', type: 'Bot' }, body: reply ?? '' }], bot)
    expect(read.said).toEqual(new Set(['budget']))
  })

  test('a CI round on a pull request that says it already: nothing', () => {
    expect(spentReply(LINE, { round: ci(['budget']) })).toBeUndefined()
  })
})
