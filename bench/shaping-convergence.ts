// Traffic shaping against a receiver that throttles without saying its limit (issue 36, item 4):
// the provider's MX host accepts at most --receiver messages over a sliding --window and answers
// 421 4.7.0 "rate limited" above it (test/support/sliding-window-throttle.ts); the provider is
// declared at --declared messages a minute (POSTLINE_PROVIDERS_FILE), above what the receiver
// takes. A backlog of --emails transactional emails to it (more than the receiver takes in the
// run, so the rate is Postline's, not the backlog's) goes in through POST /emails/batch at once.
// Prints, per --bin seconds: messages accepted and refused (as a rate a minute), and the rate
// Postline's shaper had set (the queue view, published every 5 s); then the totals: delivered,
// refusals' share of attempts over the run and once settled (after --settle windows), and the
// settled rate as a share of what the receiver takes. An ASCII chart is printed and an SVG chart
// written to bench/results/shaping-convergence-<time>.svg; one JSON line per run is appended to
// bench/results/shaping-convergence.jsonl.
//
// Postline runs in this process (test/support/postline.ts: embedded PostgreSQL, a loopback DNS
// server, the MX sink) with the sending domain's warm-up off, POSTLINE_SHAPING_QUIET set to the
// window (the window Postline assumes receivers count over; a minute by default, as in
// production) and Postline's default retry delays (--retry to change them). The realistic run,
// the measurement of issue 36 (200 a sliding minute, 600 declared, four minutes and more):
//   npx tsx bench/shaping-convergence.ts
// Scaled down six times (a 10 s window, every time constant of the shaper with it):
//   npx tsx bench/shaping-convergence.ts --window 10 --receiver 200 --declared 3600 --minutes 1 --retry 10s --bin 5
// To measure another tree's shaping (the commit before, say), copy this file and
// test/support/sliding-window-throttle.ts into a checkout of it and run it there
// (BENCH_RESULTS_DIR=<this tree>/bench/results keeps the results together).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createVerifiedDomain, publishMx } from '../test/support/domains.js';
import { startTestPostline } from '../test/support/postline.js';
import { SlidingWindowThrottle } from '../test/support/sliding-window-throttle.js';
import { ROOT } from './support/postline-process.js';
import { appendResults, machine, printMachine, table } from './support/report.js';

const { values: args } = parseArgs({
  options: {
    /** Messages the receiver accepts per window. */
    receiver: { type: 'string', default: '200' },
    /** The receiver's window and Postline's (POSTLINE_SHAPING_QUIET), in seconds. */
    window: { type: 'string', default: '60' },
    /** The provider's declared messages a minute. */
    declared: { type: 'string', default: '600' },
    /** How long to measure, in windows (minutes when the window is a minute). */
    minutes: { type: 'string', default: '5' },
    emails: { type: 'string' },
    connections: { type: 'string', default: '5' },
    retry: { type: 'string' },
    bin: { type: 'string', default: '10' },
    /** Windows after the first attempt before the rate counts as settled. */
    settle: { type: 'string', default: '2' },
    label: { type: 'string', default: '' },
  },
});

const R = Number(args.receiver);
const WINDOW_MS = Number(args.window) * 1000;
const DECLARED = Number(args.declared);
const RUN_MS = Number(args.minutes) * WINDOW_MS;
const BIN_MS = Number(args.bin) * 1000;
const SETTLE_MS = Number(args.settle) * WINDOW_MS;
const EMAILS = Number(args.emails ?? Math.ceil(R * (Number(args.minutes) + 1.5)));
const perMinute = (count: number, ms: number) => Math.round((count * 60_000) / ms);

async function main(): Promise<void> {
  const run = machine();
  printMachine(run);
  const providersDir = fs.mkdtempSync(path.join(os.tmpdir(), 'postline-shaping-bench-'));
  const providersFile = path.join(providersDir, 'providers.json');
  fs.writeFileSync(
    providersFile,
    JSON.stringify([
      {
        name: 'throttler',
        mx: ['.throttle.test'],
        shaping: { connections: Number(args.connections), messages_per_connection: 100, messages_per_minute: DECLARED },
      },
    ]),
  );
  const t = await startTestPostline({
    env: {
      POSTLINE_PROVIDERS_FILE: providersFile,
      POSTLINE_SHAPING_QUIET: `${WINDOW_MS / 1000}s`,
      POSTLINE_RATE_LIMIT: '1000000',
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'error',
      ...(args.retry ? { POSTLINE_RETRY_DELAYS: args.retry } : {}),
    },
  });
  const throttle = new SlidingWindowThrottle(R, WINDOW_MS);
  try {
    const domain = await createVerifiedDomain(t, 'sender.test');
    const patched = await fetch(`${t.url}/domains/${domain.id}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${t.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ warmup: { enabled: false } }),
    });
    if (patched.status !== 200) throw new Error(`turning warm-up off: ${patched.status}`);
    publishMx(t, 'throttled.test', [{ name: 'mx.throttle.test', priority: 10, address: '127.0.0.1' }]);
    t.sink.onRecipient = (address) => (address.endsWith('@throttled.test') ? throttle.judge() : undefined);

    console.log(
      `# receiver: ${R} a sliding ${WINDOW_MS / 1000} s (${perMinute(R, WINDOW_MS)} a minute), declared ${DECLARED} a minute, ` +
        `${EMAILS} emails, ${args.connections} connections, POSTLINE_SHAPING_QUIET=${WINDOW_MS / 1000}s, retry ${args.retry ?? 'default'}`,
    );
    for (let sent = 0; sent < EMAILS; sent += 100) {
      const emails = Array.from({ length: Math.min(100, EMAILS - sent) }, (_, i) => ({
        from: 'Bench <bench@sender.test>',
        to: `user${sent + i}@throttled.test`,
        subject: `Shaping ${sent + i}`,
        html: '<p>Hello from the shaping bench.</p>',
      }));
      const { error } = await t.resend.batch.send(emails as any);
      if (error) throw new Error(JSON.stringify(error));
    }
    const queued = Date.now();
    while (throttle.accepted.length === 0) {
      if (Date.now() - queued > 60_000) throw new Error('no mail reached the receiver within a minute');
      await sleep(20);
    }
    const first = throttle.accepted[0]!;
    // Postline's rate for the provider as the queue view shows it, sampled each second.
    const rates: { at: number; rate: number | null }[] = [];
    const sampler = setInterval(() => {
      void queueRate(t.url, t.apiKey).then((rate) => rates.push({ at: Date.now(), rate }));
    }, 1000);
    await sleep(first + RUN_MS - Date.now());
    clearInterval(sampler);

    const bins: { from: number; accepted: number; refused: number; rate: number | null }[] = [];
    for (let from = first; from < first + RUN_MS; from += BIN_MS) {
      const { accepted, refused } = throttle.between(from, from + BIN_MS);
      const rate = rates.filter((r) => r.at >= from && r.at < from + BIN_MS).at(-1)?.rate ?? null;
      bins.push({ from: (from - first) / 1000, accepted, refused, rate });
    }
    const total = throttle.between(first, first + RUN_MS);
    const settled = throttle.between(first + SETTLE_MS, first + RUN_MS);
    const fourMinutes = throttle.between(first, first + 4 * WINDOW_MS);
    const settledShare = settled.accepted / ((R * (RUN_MS - SETTLE_MS)) / WINDOW_MS);
    const share = (part: number, whole: number) => (whole > 0 ? `${((100 * part) / whole).toFixed(1)} %` : 'n/a');

    console.log(
      table(
        ['from (s)', 'accepted a minute', 'refused a minute', 'Postline rate a minute', ''],
        bins.map((b) => [
          b.from,
          perMinute(b.accepted, BIN_MS),
          perMinute(b.refused, BIN_MS),
          b.rate ?? 'no limit',
          '#'.repeat(Math.round((perMinute(b.accepted, BIN_MS) / perMinute(R, WINDOW_MS)) * 40)) +
            '.'.repeat(Math.round((perMinute(b.refused, BIN_MS) / perMinute(R, WINDOW_MS)) * 40)),
        ]),
      ),
    );
    console.log(`# '#' accepted, '.' refused; 40 characters: what the receiver takes (${perMinute(R, WINDOW_MS)} a minute)`);
    const summary = {
      delivered: total.accepted,
      deliveredIn4Windows: fourMinutes.accepted,
      attempts: total.accepted + total.refused,
      refused: total.refused,
      refusedShare: share(total.refused, total.accepted + total.refused),
      settledPerMinute: perMinute(settled.accepted, RUN_MS - SETTLE_MS),
      settledShareOfReceiver: `${Math.round(settledShare * 100)} %`,
      settledRefusedShare: share(settled.refused, settled.accepted + settled.refused),
    };
    console.log(
      `delivered ${summary.delivered} in ${RUN_MS / 1000} s (${summary.deliveredIn4Windows} in the first 4 windows); ` +
        `refused ${summary.refused} of ${summary.attempts} attempts (${summary.refusedShare}); ` +
        `settled (after ${args.settle} windows): ${summary.settledPerMinute} a minute, ${summary.settledShareOfReceiver} of what the receiver takes, ` +
        `refused ${settled.refused} of ${settled.accepted + settled.refused} (${summary.settledRefusedShare})`,
    );
    const stamp = run.date.replace(/[-:]/g, '').replace(/\..*/, '').replace('T', '-');
    const svgFile = path.join(
      process.env.BENCH_RESULTS_DIR ?? path.join(ROOT, 'bench/results'),
      `shaping-convergence-${stamp}${args.label ? `-${args.label.replace(/[^\w.-]+/g, '_')}` : ''}.svg`,
    );
    fs.mkdirSync(path.dirname(svgFile), { recursive: true });
    fs.writeFileSync(
      svgFile,
      svgChart(
        bins,
        perMinute(R, WINDOW_MS),
        `${args.label ? `${args.label}: ` : ''}${summary.settledShareOfReceiver} of the receiver's rate once settled, ${summary.refusedShare} refused`,
      ),
    );
    console.log(`# chart: ${svgFile}`);
    const file = appendResults('shaping-convergence', run, [
      {
        label: args.label,
        receiver: R,
        windowS: WINDOW_MS / 1000,
        declared: DECLARED,
        emails: EMAILS,
        connections: Number(args.connections),
        retry: args.retry ?? 'default',
        ...summary,
        bins: bins.map((b) => [b.from, b.accepted, b.refused, b.rate]),
      },
    ]);
    console.log(`# results appended to ${file}`);
  } finally {
    await t.stop();
    fs.rmSync(providersDir, { recursive: true, force: true });
  }
}

async function queueRate(url: string, apiKey: string): Promise<number | null> {
  try {
    const res = await fetch(`${url}/queue`, { headers: { authorization: `Bearer ${apiKey}` } });
    const body = (await res.json()) as { shaping?: { destination: string; rate_per_minute: number | null }[] };
    return body.shaping?.find((s) => s.destination === 'throttler')?.rate_per_minute ?? null;
  } catch {
    return null;
  }
}

/** Accepted (solid) and refused (stacked, light) a minute per bin, with the receiver's rate as a line. */
function svgChart(bins: { from: number; accepted: number; refused: number; rate: number | null }[], receiverPerMinute: number, title: string): string {
  const width = 720;
  const height = 300;
  const left = 50;
  const bottom = 30;
  const binMinutes = BIN_MS / 60_000;
  const max = Math.max(receiverPerMinute * 1.5, ...bins.map((b) => (b.accepted + b.refused) / binMinutes), ...bins.map((b) => b.rate ?? 0));
  const x = (i: number) => left + (i * (width - left - 10)) / bins.length;
  const y = (v: number) => height - bottom - (v / max) * (height - bottom - 30);
  const w = (width - left - 10) / bins.length - 1;
  const bars = bins
    .map((b, i) => {
      const a = b.accepted / binMinutes;
      const r = b.refused / binMinutes;
      return (
        `<rect x="${x(i).toFixed(1)}" y="${y(a).toFixed(1)}" width="${w.toFixed(1)}" height="${(y(0) - y(a)).toFixed(1)}" fill="#3b7dd8"/>` +
        (r > 0
          ? `<rect x="${x(i).toFixed(1)}" y="${y(a + r).toFixed(1)}" width="${w.toFixed(1)}" height="${(y(a) - y(a + r)).toFixed(1)}" fill="#e8a0a0"/>`
          : '')
      );
    })
    .join('');
  const rateLine = bins
    .map((b, i) => (b.rate === null ? null : `${(x(i) + w / 2).toFixed(1)},${y(b.rate).toFixed(1)}`))
    .filter(Boolean)
    .join(' ');
  const ticks = bins
    .filter((_, i) => i % Math.max(1, Math.round(bins.length / 12)) === 0)
    .map((b) => `<text x="${x(bins.indexOf(b)).toFixed(1)}" y="${height - 10}" font-size="10">${b.from}s</text>`)
    .join('');
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif">
<text x="${left}" y="16" font-size="12">${title.replace(/&/g, '&amp;').replace(/</g, '&lt;')}</text>
${bars}
<line x1="${left}" x2="${width - 10}" y1="${y(receiverPerMinute).toFixed(1)}" y2="${y(receiverPerMinute).toFixed(1)}" stroke="#333" stroke-dasharray="4 3"/>
<text x="${left + 4}" y="${(y(receiverPerMinute) - 4).toFixed(1)}" font-size="10">receiver: ${receiverPerMinute}/min</text>
${rateLine ? `<polyline points="${rateLine}" fill="none" stroke="#d88a3b" stroke-width="2"/>` : ''}
<text x="4" y="${y(0).toFixed(1)}" font-size="10">0</text><text x="4" y="${y(max).toFixed(1)}" font-size="10">${Math.round(max)}/min</text>
${ticks}
<text x="${width - 260}" y="16" font-size="10" fill="#3b7dd8">accepted</text><text x="${width - 205}" y="16" font-size="10" fill="#c06060">refused</text><text x="${width - 155}" y="16" font-size="10" fill="#d88a3b">Postline's rate</text>
</svg>
`;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms)));

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
