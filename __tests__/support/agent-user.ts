// The test agents' user names, apart from jest (the e2e harness also runs outside it: npm run local).
/**
 * The agent's user for this jest worker. RALPH_TEST_AGENT_PREFIX gives a second jest run on the same machine
 * users of its own (a whole-uid kill of one run must not hit the other's agents).
 */
export const TEST_AGENT_USER = `${process.env.RALPH_TEST_AGENT_PREFIX ?? 'ralph-agent-t'}${process.env.JEST_WORKER_ID ?? '1'}`
/** A job user with passwordless sudo, as GitHub's hosted runners have (`runner`). */
export const SUDO_RUNNER_USER = `ralph-runner-t${process.env.JEST_WORKER_ID ?? '1'}`
