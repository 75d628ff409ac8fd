// The route fuzzer of test/http/fuzz-every-route.test.ts (issue 17), run long: every route of
// GET /openapi.json and the dashboard's files, with hostile paths, queries, headers and bodies
// (test/support/fuzz-requests.ts). It does not stop at the first problem: it counts every
// answer and prints each distinct problem (a 5xx, an error outside Resend's shape, an answer
// over 5 s) with one request that shows it, then the figures: requests, distinct statuses,
// slowest answers. Exits 1 when it found a problem or the server stopped sending mail after.
//
//   npx tsx bench/fuzz-routes.ts --runs 20000 --seed 17          # embedded PostgreSQL
//   POSTLINE_TEST_DB=external TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npx tsx bench/fuzz-routes.ts
import { parseArgs } from 'node:util';
import fc from 'fast-check';
import { type FuzzRequest, requestArbitrary, routesOf } from '../test/support/fuzz-requests.js';
import { assertStillServing, describeRequest, problemWith, startFuzzTarget } from '../test/support/fuzz-target.js';
import { appendResults, machine, printMachine } from './support/report.js';

const { values: args } = parseArgs({
  options: {
    runs: { type: 'string', default: '20000' },
    seed: { type: 'string', default: String(Date.now() % 1_000_000) },
  },
});
const RUNS = Number(args.runs);
const SEED = Number(args.seed);

const target = await startFuzzTarget();
let failed = false;
try {
  const routes = routesOf(target.openapi);
  const statuses = new Map<number, number>();
  const problems = new Map<string, { count: number; request: FuzzRequest }>();
  const slowest: { ms: number; request: FuzzRequest; status: number }[] = [];
  const routesReached = new Set<string>();
  const started = performance.now();
  let sent = 0;
  // A property that always holds: requests are generated one at a time (some bodies are tens of MB).
  const record = async (request: FuzzRequest) => {
    let problem: string | undefined;
    try {
      const answer = await target.send(request);
      statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
      if (answer.status < 300) routesReached.add(`${request.route.method} ${request.route.template}`);
      slowest.push({ ms: answer.ms, request, status: answer.status });
      slowest.sort((a, b) => b.ms - a.ms).splice(5);
      problem = problemWith(request, answer);
    } catch (err) {
      problem = `no answer: ${(err as Error).message}`;
    }
    if (problem) {
      const key = `${request.route.method} ${request.route.template}: ${problem.replace(/[0-9a-f-]{36}/g, '<uuid>').slice(0, 160)}`;
      const seen = problems.get(key) ?? { count: 0, request };
      seen.count++;
      problems.set(key, seen);
    }
    if (++sent % 1000 === 0) console.error(`${sent} requests, ${problems.size} distinct problems`);
    return true;
  };
  await fc.assert(fc.asyncProperty(requestArbitrary(routes, target.known), record), { numRuns: RUNS, seed: SEED });
  const seconds = (performance.now() - started) / 1000;
  let afterwards = 'the SDK send delivered, /healthz and /readyz 200';
  try {
    await assertStillServing(target.t);
  } catch (err) {
    afterwards = `FAILED: ${(err as Error).message}`;
  }
  const run = machine();
  printMachine(run);
  const db = process.env.POSTLINE_TEST_DB === 'external' ? 'external' : 'embedded';
  console.log(`route fuzzer, seed ${SEED}, ${db} PostgreSQL`);
  console.log(
    `${RUNS} requests over ${routes.length} routes in ${seconds.toFixed(1)} s (${Math.round(RUNS / seconds)}/s); ${routesReached.size} routes answered 2xx at least once`,
  );
  console.log(
    `statuses: ${[...statuses]
      .sort(([a], [b]) => a - b)
      .map(([s, n]) => `${s}×${n}`)
      .join(' ')} (${statuses.size} distinct)`,
  );
  console.log('slowest:');
  for (const s of slowest) console.log(`  ${Math.round(s.ms)} ms, ${s.status}: ${describeRequest(s.request).slice(0, 240)}`);
  console.log(`afterwards: ${afterwards}`);
  console.log(`${problems.size} distinct problems`);
  for (const [key, { count, request }] of problems) console.log(`\n${count}× ${key}\n  e.g. ${describeRequest(request)}`);
  appendResults('fuzz-routes', run, [
    {
      db,
      seed: SEED,
      requests: RUNS,
      seconds,
      statuses: Object.fromEntries(statuses),
      slowestMs: Math.round(slowest[0]?.ms ?? 0),
      problems: [...problems.keys()],
    },
  ]);
  failed = problems.size > 0 || afterwards.startsWith('FAILED');
} finally {
  await target.stop();
}
process.exit(failed ? 1 : 0);
