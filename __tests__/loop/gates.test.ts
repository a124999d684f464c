// Checks as gates: they run after the agent in the work tree, their failures reach the next prompt,
// and the loop succeeds only when they pass (and, by default, the agent said it was done).
import { readFileSync, statSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { CREDIT_TRAILER } from '../../src/ralph/index.js'
import { countRuns, harness, type Harness } from './harness.js'

let h: Harness
beforeEach(() => {
  h = harness()
})
afterEach(() => h.cleanup())

/** An agent that writes the fix in its second run and always says it is done. */
function fixingAgent(): string {
  return h.script(
    'agent.sh',
    `${countRuns(h.tools)}
cat > '${h.tools}/prompt-'$n.txt
if [ $n -ge 2 ]; then echo 'fixed' > answer.txt; fi
echo "run $n"
echo
echo '<promise>COMPLETE</promise>'`
  )
}

test('gates that fail in iteration 1 and pass in iteration 2 end the loop as all_checks_passed', async () => {
  h.writeRalph(
    `agent: ${fixingAgent()}
checks:
  - name: answer
    run: 'echo "checking answer"; grep -q fixed answer.txt 2>/dev/null && echo ok || { echo "answer.txt is wrong: expected fixed" >&2; exit 1; }'
  - name: always
    run: "true"`,
    'Fix answer.txt.'
  )
  const { result, events } = await h.run({ maxIterations: 5 })
  expect(result.stopReason).toBe('all_checks_passed')
  expect(result.success).toBe(true)
  expect(result.iterations.map(it => it.verdict)).toEqual(['checks_failed', 'passed'])
  expect(result.iterations[0].checks.map(c => [c.name, c.passed])).toEqual([
    ['answer', false],
    ['always', true]
  ])
  expect(result.iterations[0].checks[0].tail).toContain('answer.txt is wrong: expected fixed')
  // The baseline (iteration 0) ran them once before the agent, then each iteration.
  expect(events.flatMap(e => (e.type === 'check_finished' ? [e.iteration] : []))).toEqual([0, 0, 1, 1, 2, 2])
  // Logs of every check, in arrival order.
  expect(h.readRecord('logs/iteration-001/checks/answer.log')).toBe(
    'checking answer\nanswer.txt is wrong: expected fixed\n'
  )
  expect(h.readRecord('progress.md')).toMatch(
    /## Iteration 1: checks failed[\s\S]*FAIL `answer`[\s\S]*## Iteration 2: passed/
  )
  expect(h.readRecord('progress.md')).toContain('## Stopped: all_checks_passed')
})

test("ralph.failures carries iteration 1's failing output into iteration 2's prompt (no baseline: iteration 1's is empty)", async () => {
  h.writeRalph(
    `agent: ${fixingAgent()}
checks:
  - name: answer
    run: 'echo "line one of the failure"; echo "E: expected fixed, got nothing" >&2; exit 4'`,
    'Fix it.\n\nFailures so far:\n\n{{ ralph.failures }}\n\nEnd.'
  )
  await h.run({ maxIterations: 2, baseline: false })
  const first = readFileSync(path.join(h.tools, 'prompt-1.txt'), 'utf8')
  const second = readFileSync(path.join(h.tools, 'prompt-2.txt'), 'utf8')
  expect(first).toBe('Fix it.\n\nFailures so far:\n\n\n\nEnd.' + CREDIT_TRAILER)
  expect(second).toBe(
    'Fix it.\n\nFailures so far:\n\n`answer` failed (exit code 4). The end of its output:\n\n' +
      '~~~\nline one of the failure\nE: expected fixed, got nothing\n~~~\n\nEnd.' +
      CREDIT_TRAILER
  )
})

test('with gates and no ralph.* placeholder in the body, the loop status section goes between body and credit', async () => {
  h.writeRalph(
    `agent: ${fixingAgent()}
checks:
  - name: answer
    run: grep -q fixed answer.txt`,
    'Fix answer.txt.'
  )
  await h.run({ maxIterations: 2, baseline: false })
  const first = readFileSync(path.join(h.tools, 'prompt-1.txt'), 'utf8')
  expect(first.startsWith('Fix answer.txt.\n\n---\n\n## Loop status\n\n')).toBe(true)
  expect(first.endsWith(CREDIT_TRAILER)).toBe(true)
  expect(first).toContain('This is iteration 1 of at most 2.')
  expect(first).toContain('### Checks\n\n- `answer`: `grep -q fixed answer.txt`')
  expect(first).toContain('None yet: this is the first iteration.')
  expect(first).toContain(
    'end your final message with this line, on a line of its own:\n\n<promise>COMPLETE</promise>\n\n'
  )
  const second = readFileSync(path.join(h.tools, 'prompt-2.txt'), 'utf8')
  expect(second).toContain('### Failing checks from the previous iteration\n\n`answer` failed (exit code 2).')
  expect(second).toContain('- Iteration 1 (')
  expect(second).toContain('checks 0/1 passing (failing: answer)')
})

test('a body that uses one ralph.* placeholder gets no loop status section', async () => {
  h.writeRalph(
    `agent: ${fixingAgent()}
checks:
  - name: answer
    run: grep -q fixed answer.txt`,
    'Gates:\n{{ ralph.checks }}\nSay {{ ralph.completion_tag }} when done.'
  )
  await h.run({ maxIterations: 1 })
  expect(readFileSync(path.join(h.tools, 'prompt-1.txt'), 'utf8')).toBe(
    'Gates:\n- `answer`: `grep -q fixed answer.txt`\nSay <promise>COMPLETE</promise> when done.' +
      CREDIT_TRAILER
  )
})

test('gates that pass without the completion tag do not end the loop; an empty tag lets gates alone decide', async () => {
  const agent = h.script('agent.sh', 'cat >/dev/null; echo "still working"')
  h.writeRalph(`agent: ${agent}\nchecks:\n  - name: ok\n    run: "true"`, 'Work.')
  const withTag = await h.run({ maxIterations: 2 })
  expect(withTag.result.stopReason).toBe('max_iterations')
  expect(withTag.result.iterations.map(it => it.verdict)).toEqual([
    'checks_passed_no_tag',
    'checks_passed_no_tag'
  ])
  expect(withTag.result.stopDetail).toBe(
    'reached the cap of 2 iterations; the checks pass, but the agent has not given the completion tag'
  )
  const gatesOnly = await h.run({ maxIterations: 2, completionTag: '' })
  expect(gatesOnly.result.stopReason).toBe('all_checks_passed')
  expect(gatesOnly.result.iterations).toHaveLength(1)
})

test('a check that runs out of time fails with a marker, and the next check still runs', async () => {
  const agent = h.script('agent.sh', 'cat >/dev/null')
  h.writeRalph(
    `agent: ${agent}
checks:
  - name: slow
    run: echo started; sleep 30
    timeout: 2
  - name: next
    run: echo next ran`,
    'Work.'
  )
  const { result } = await h.run({ maxIterations: 1, completionTag: '' })
  const [slow, next] = result.iterations[0].checks
  expect(slow).toMatchObject({ passed: false, timedOut: true })
  expect(slow.tail).toBe("started\n\n\n[Check 'slow' timed out after 2.0s — output may be incomplete]\n")
  expect(h.readRecord('logs/iteration-001/checks/slow.log')).toContain("[Check 'slow' timed out after 2.0s")
  expect(next).toMatchObject({ passed: true, tail: 'next ran\n' })
})

test('a check that prints a lot keeps memory bounded; its log has every byte, the record only the tail', async () => {
  const agent = h.script('agent.sh', 'cat >/dev/null')
  const mib = 96
  h.writeRalph(
    `agent: ${agent}
checks:
  - name: loud
    run: head -c ${mib * 1024 * 1024} /dev/zero | tr '\\0' 'x'; echo; echo THE END; exit 1`,
    'Work.'
  )
  global.gc?.()
  const before = process.memoryUsage().rss
  let peak = before
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5)
  const { result } = await h.run({ maxIterations: 1 })
  clearInterval(sampler)
  const check = result.iterations[0].checks[0]
  expect(check.outputBytes).toBe(mib * 1024 * 1024 + 9)
  expect(statSync(path.join(h.record, check.log)).size).toBe(mib * 1024 * 1024 + 9)
  expect(check.tail).toHaveLength(2000)
  expect(check.tail.endsWith('x\nTHE END\n')).toBe(true)
  // Holding the output would cost at least its size; streaming costs a few MiB.
  expect(peak - before).toBeLessThan(48 * 1024 * 1024)
})

test('checks run with bash in the work tree the agent left', async () => {
  const agent = h.script('agent.sh', 'cat >/dev/null; echo 3 > value.txt')
  h.writeRalph(
    `agent: ${agent}
checks:
  - name: shell
    run: test "$(cat value.txt)" -eq 3 && pwd | grep -q . && [ -f ralphs/fixer/RALPH.md ]`,
    'Work.'
  )
  const { result } = await h.run({ maxIterations: 1, completionTag: '' })
  expect(result.stopReason).toBe('all_checks_passed')
})

test('ralph.diff shows what changed since the loop started, untracked files included', async () => {
  const agent = h.script(
    'agent.sh',
    `${countRuns(h.tools)}\ncat > '${h.tools}/prompt-'$n.txt\necho "line $n" >> notes.txt`
  )
  h.writeRalph(`agent: ${agent}\nchecks:\n  - name: never\n    run: "false"`, 'Changes:\n{{ ralph.diff }}')
  await h.run({
    maxIterations: 2,
    completionTag: '',
    breaker: { noProgress: 0, sameFailure: 0, agentFailures: 0 }
  })
  expect(readFileSync(path.join(h.tools, 'prompt-1.txt'), 'utf8')).toBe('Changes:\n' + CREDIT_TRAILER)
  const second = readFileSync(path.join(h.tools, 'prompt-2.txt'), 'utf8')
  expect(second).toContain('notes.txt | 1 +')
  expect(second).toContain('+line 1')
})

test('guardrails fill ralph.guardrails and the status section asks for new signs', async () => {
  const agent = h.script('agent.sh', `cat > '${h.tools}/prompt.txt'`)
  h.repo.write('GUARDRAILS.md', '# Signs\n\n- Run the tests before saying done.\n')
  h.writeRalph(`agent: ${agent}\nguardrails: GUARDRAILS.md\nchecks:\n  - name: ok\n    run: "true"`, 'Work.')
  await h.run({ maxIterations: 1 })
  const prompt = readFileSync(path.join(h.tools, 'prompt.txt'), 'utf8')
  expect(prompt).toContain('### Guardrails\n\n# Signs\n\n- Run the tests before saying done.')
  expect(prompt).toContain('append a new lesson (a "Sign") to `GUARDRAILS.md`')
})

test('a ralph-less run uses the task as the body', async () => {
  const agent = h.script('agent.sh', `cat > '${h.tools}/prompt.txt'; echo done > task.txt`)
  h.writeRalph(`agent: ${agent}`, 'unused')
  const { taskRalph } = await import('../../src/loop/index.js')
  const ralph = taskRalph({
    agent,
    dir: h.repo.dir,
    checks: [{ name: 'task', run: 'test -f task.txt', timeout: 5 }]
  })
  const { result } = await h.run({
    ralph,
    checks: ralph.checks,
    promptText: '  Make task.txt <!-- hidden --> for iteration {{ ralph.iteration }}.  ',
    completionTag: '',
    maxIterations: 2
  })
  expect(result.stopReason).toBe('all_checks_passed')
  const prompt = readFileSync(path.join(h.tools, 'prompt.txt'), 'utf8')
  expect(prompt.startsWith('Make task.txt  for iteration 1.\n\n---\n\n## Loop status')).toBe(true)
  expect(prompt).not.toContain('Co-authored-by')
})

test('a record folder inside the work tree is refused before anything runs', async () => {
  h.writeRalph('agent: cat', 'Work.')
  await expect(h.run({ recordDir: path.join(h.repo.dir, '.ralph-record') })).rejects.toThrow(
    /inside the work tree/
  )
  writeFileSync(path.join(h.tools, 'x'), '')
})

test('a gate killed by a signal says so in the record (killed by SIGKILL), never "exit null"', async () => {
  h.writeRalph(
    `agent: ${fixingAgent()}
checks:
  - name: crashes
    run: 'echo "about to die"; kill -KILL $$'`,
    'Fix it.\n\n{{ ralph.progress }}'
  )
  const { result } = await h.run({ maxIterations: 2 })
  const check = result.iterations[0].checks[0]
  expect(check).toMatchObject({ passed: false, exitCode: null, signal: 'SIGKILL' })
  const progress = h.readRecord('progress.md')
  expect(progress).toContain('FAIL `crashes`')
  expect(progress).toMatch(/FAIL `crashes` \([^)]*, killed by SIGKILL\)/)
  expect(progress).not.toContain('exit null')
})
