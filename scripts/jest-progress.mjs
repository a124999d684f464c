// A jest reporter for CI logs: each test is printed as it ends, with the time since the run began, so a long
// end-to-end file shows its progress instead of minutes of silence (jest's own reporter prints per file).
import path from 'node:path'

const mark = { passed: '✓', failed: '✗', skipped: '○', pending: '○', todo: '✎' }

export default class ProgressReporter {
  constructor(globalConfig) {
    this.root = globalConfig.rootDir
    this.began = Date.now()
    this.files = 0
    this.filesDone = 0
  }

  clock() {
    const s = Math.round((Date.now() - this.began) / 1000)
    return `[${String(Math.floor(s / 60)).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}]`
  }

  say(line) {
    process.stdout.write(`${this.clock()} ${line}\n`)
  }

  file(test) {
    return path.relative(this.root, test.path)
  }

  onRunStart(results) {
    this.files = results.numTotalTestSuites
    this.say(`${this.files} test files`)
  }

  onTestFileStart(test) {
    this.say(`▶ ${this.file(test)}`)
  }

  onTestCaseResult(test, result) {
    const took = result.duration == null ? '' : ` (${result.duration} ms)`
    this.say(`  ${mark[result.status] ?? '?'} ${this.file(test)} › ${result.fullName}${took}`)
  }

  onTestFileResult(test, result) {
    this.filesDone++
    const verdict = result.testExecError || result.numFailingTests > 0 ? 'FAIL' : 'done'
    this.say(`■ ${verdict} ${this.file(test)} (${this.filesDone}/${this.files} files)`)
  }
}
