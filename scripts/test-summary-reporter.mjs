// A second node:test reporter beside `spec`: writes one JSON line per skipped test (with its
// reason), per test that ran past the per-test timeout, and per top-level test with its file
// and duration, so scripts/test.mjs can list the skips and the slowest files at the end of
// the run instead of letting them scroll by. Lines are written as the events come: with
// --test-force-exit, nothing after the last event is sure to be written.
export default async function* summaryReporter(source) {
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { name, file, skip, details, nesting } = event.data;
    if (nesting === 0 && file) yield `${JSON.stringify({ kind: 'top-level', file, ms: Math.round(details?.duration_ms ?? 0) })}\n`;
    if (skip !== undefined && skip !== false) {
      yield `${JSON.stringify({ kind: 'skipped', name, file, reason: skip === true ? '(no reason given)' : skip })}\n`;
    } else if (event.type === 'test:fail' && details?.error?.failureType === 'testTimeoutFailure') {
      yield `${JSON.stringify({ kind: 'timed out', name, file, reason: details.error.message })}\n`;
    }
  }
}
