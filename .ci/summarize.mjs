// Reads Vitest's JSON report and prints the closing line CI recognises: "N passed, N failed, N skipped".
import { readFileSync } from 'node:fs';

const file = process.argv[2] ?? '.ci-results.json';
let report;
try {
  report = JSON.parse(readFileSync(file, 'utf8'));
} catch (e) {
  console.log('0 passed, 1 failed');
  console.error(`no test report at ${file}: ${e.message}`);
  process.exit(1);
}
const passed = report.numPassedTests ?? 0;
const failed = (report.numFailedTests ?? 0) + (report.numFailedTestSuites ?? 0) - countSuitesWithFailedTests(report);
const skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
if (passed + failed === 0) {
  console.error('no test ran');
  process.exit(1);
}
process.exit(failed > 0 || report.success === false ? 1 : 0);

// A suite that failed only because a test inside it failed is already counted through that test.
function countSuitesWithFailedTests(r) {
  let n = 0;
  for (const s of r.testResults ?? []) {
    if (s.status === 'failed' && (s.assertionResults ?? []).some((a) => a.status === 'failed')) n++;
  }
  return n;
}
