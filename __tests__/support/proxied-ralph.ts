// A ralph whose agent is a stand-in `claude` (a node script that speaks the Messages API to
// $ANTHROPIC_BASE_URL), run through the action behind the model proxy for one iteration, delivering nothing:
// the setup the dollar-cap and the budget e2e files share, so each says only what its agent asks.

/** The ralph `name` (`agent: ./claude`) and the stand-in `claude` whose script is `agent`. */
export function proxiedRalph(
  name: string,
  agent: string
): Record<string, string | { content: string; mode: number }> {
  return {
    [`.agents/ralphs/${name}/RALPH.md`]: '---\nagent: ./claude\n---\nWork.\n',
    claude: { content: agent, mode: 0o755 }
  }
}

/**
 * The action's inputs for one iteration of `ralph` behind the model proxy: the gate is green from the start
 * and the agent's requests are what is tested, so it must run; nothing is uploaded or delivered.
 */
export function proxiedInputs(ralph: string): Record<string, string> {
  return {
    ralph,
    isolation: 'none',
    'model-proxy': 'true',
    'max-iterations': '1',
    checks: 'true',
    'skip-if-green': 'false',
    'completion-tag': 'none',
    'upload-artifacts': 'false',
    'open-pr': 'false',
    'on-failure': 'none'
  }
}
