// The SMTP fuzzer of test/smtp/fuzz-sessions.test.ts, run longer (issue 17): `--runs` rounds of
// generated sessions (one to three side by side) from `--seed`, against an in-process Postline
// on the embedded PostgreSQL (or TEST_DATABASE_URL with --db external), on both port kinds,
// with and without TLS and AUTH, some waiting for the server's timeouts. Unlike the test it
// does not stop at the first problem: it plays every round and lists every problem found.
// Then the aftermath checks (each acknowledged message stored and delivered once) and a
// nodemailer submission. Prints sessions, reply codes seen and the slowest reply. Postline runs
// in this process (the fuzzer shares the test's set-up: DNS, MX sink, domains), so a crash
// ends the run.
//
//   npx tsx bench/fuzz-smtp.ts --runs 1000 --seed 1
import fc from 'fast-check';
import { parseArgs } from 'node:util';
import { SmtpFuzzer } from '../test/smtp/fuzz/smtp-fuzzer.js';
import { appendResults, fixed, machine, printMachine, table } from './support/report.js';

const { values: args } = parseArgs({
  options: {
    runs: { type: 'string', default: '500' },
    seed: { type: 'string', default: String(Date.now() % 1_000_000) },
    db: { type: 'string', default: 'embedded' },
    'no-timeouts': { type: 'boolean', default: false },
  },
});
const runs = Number(args.runs);
const seed = Number(args.seed);
if (args.db === 'external') process.env.POSTLINE_TEST_DB = 'external';
process.env.LOG_LEVEL ??= 'error';

const run = machine();
printMachine(run);
console.log(`# ${runs} rounds from seed ${seed}, ${args.db} database`);

const fuzzer = await SmtpFuzzer.start();
const started = performance.now();
const rounds = fc.sample(fuzzer.rounds({ timeouts: !args['no-timeouts'], largestKb: 3000 }), { numRuns: runs, seed });
for (const [i, plans] of rounds.entries()) {
  const problems = await fuzzer.play(plans);
  for (const p of problems) console.log(`round ${i}: ${p}`);
  if ((i + 1) % 100 === 0) console.log(`# ${i + 1} rounds, ${fuzzer.figures.sessions} sessions, ${fuzzer.figures.problems.length} problems`);
}
const seconds = (performance.now() - started) / 1000;

let aftermath = 'ok';
try {
  await fuzzer.checkAftermath();
  await fuzzer.checkStillServes();
} catch (err) {
  aftermath = (err as Error).message;
}
await fuzzer.t.stop();

const f = fuzzer.figures;
const codes = [...f.codes].sort(([a], [b]) => a - b);
console.log(
  table(
    ['figure', 'value'],
    [
      ['rounds', runs],
      ['sessions', f.sessions],
      [
        'sessions by port/setup',
        [...f.kinds]
          .sort()
          .map(([k, n]) => `${k} ${n}`)
          .join(', '),
      ],
      ['replies', codes.reduce((sum, [, n]) => sum + n, 0)],
      ['reply codes seen', codes.map(([c, n]) => `${c}×${n}`).join(' ')],
      ['slowest reply (ms)', `${fixed(f.slowestReplyMs)} (to ${f.slowestReplyTo})`],
      ['submissions accepted (replays)', `${f.submissions.size} (${f.replays})`],
      ['inbound accepted', f.inbound],
      ['problems', f.problems.length],
      ['aftermath', aftermath],
      ['wall time (s)', fixed(seconds, 1)],
    ],
  ),
);
appendResults('fuzz-smtp', run, [
  {
    runs,
    seed,
    db: args.db,
    sessions: f.sessions,
    codes: Object.fromEntries(codes),
    slowestReplyMs: Math.round(f.slowestReplyMs),
    submissions: f.submissions.size,
    inbound: f.inbound,
    problems: f.problems.length,
    aftermath,
    seconds: Math.round(seconds),
  },
]);
process.exit(f.problems.length === 0 && aftermath === 'ok' ? 0 : 1);
