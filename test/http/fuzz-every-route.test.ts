// Every route Postline serves (GET /openapi.json, and the dashboard's files), fuzzed with
// fast-check: hostile path parameters, queries, headers and bodies (test/support/
// fuzz-requests.ts) sent as raw bytes, with API keys of this account, of another, sending-only,
// bad and none, and the dashboard's session cookie. Every answer: no 5xx, every refusal in
// Resend's shape `{statusCode, message, name}` with the status it is sent with, none slower
// than 5 s. Afterwards the server still takes a send through the SDK, delivers it, and answers
// its probes. A fixed seed and a bounded count here; bench/fuzz-routes.ts runs it long.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { requestArbitrary, routesOf } from '../support/fuzz-requests.js';
import { assertStillServing, describeRequest, type FuzzTarget, problemWith, startFuzzTarget } from '../support/fuzz-target.js';

const SEED = 17;
const RUNS = 2_500;

describe('HTTP: every route under hostile requests', () => {
  let target: FuzzTarget;
  before(async () => {
    target = await startFuzzTarget();
  });
  after(() => target?.stop());

  it('fuzzes every route the OpenAPI document lists, and the dashboard', () => {
    const routes = routesOf(target.openapi);
    const listed = Object.values<any>(target.openapi.paths).flatMap((item) =>
      Object.keys(item).filter((k) => ['get', 'post', 'patch', 'put', 'delete'].includes(k)),
    );
    assert.equal(routes.length, listed.length + 2);
    assert.ok(listed.length > 100, `only ${listed.length} operations`);
  });

  it(`answers ${RUNS} hostile requests without a 5xx, each refusal in Resend's shape, none over 5 s`, async () => {
    const routes = routesOf(target.openapi);
    // fc.check, not fc.assert: fast-check's own report prints the whole counterexample, a body of
    // megabytes, which the test runner's reporter then takes minutes to format (a CI run stalled
    // on one). The property's message says what was sent, within bounds (describeRequest).
    const run = await fc.check(
      fc.asyncProperty(requestArbitrary(routes, target.known), async (request) => {
        const answer = await target.send(request);
        const problem = problemWith(request, answer);
        assert.equal(problem, undefined, `${problem}\n${describeRequest(request)}`);
      }),
      { seed: SEED, numRuns: RUNS, endOnFailure: true },
    );
    if (run.failed) assert.fail(`request ${run.numRuns} of ${RUNS}: ${String((run.errorInstance as Error | null)?.message ?? 'no answer').slice(0, 2000)}`);
  });

  it('still sends through the SDK, delivers, and answers its probes afterwards', () => assertStillServing(target.t));
});
