// The verdict's round-two corpus (#37), the pytest project: every cheat class of verdict-corpus.ts on it gets no
// pull request, and an honest agent gets its own. A cheat that gets one today is `test.failing` (its
// `prToday`): it flips to `test` once the verdict stops it.
import { cheatTests, honestTest } from './verdict-corpus.js'
import { e2eSuite } from './suite.js'

const e2e = e2eSuite()

cheatTests(e2e, 'pytest')
honestTest(e2e, 'pytest')
