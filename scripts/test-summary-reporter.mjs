// A second node:test reporter beside `spec`: writes one JSON line per skipped test (with its
// reason) and per test that ran past the per-test timeout, so scripts/test.mjs can list them
// at the end of the run instead of letting them scroll by.
export default async function* summaryReporter(source) {
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { name, file, skip, details } = event.data;
    if (skip !== undefined && skip !== false) {
      yield `${JSON.stringify({ kind: 'skipped', name, file, reason: skip === true ? '(no reason given)' : skip })}\n`;
    } else if (event.type === 'test:fail' && details?.error?.failureType === 'testTimeoutFailure') {
      yield `${JSON.stringify({ kind: 'timed out', name, file, reason: details.error.message })}\n`;
    }
  }
}
