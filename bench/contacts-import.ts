// CSV import of contacts (issue 5): how fast a 100,000-row file goes from upload to
// `completed`, and how much memory the Postline process needs meanwhile (it must stay flat:
// the file is streamed into the database and parsed a slice at a time, never held whole).
//
// Postline runs as its own process with --roles api,worker (the worker role in its thread, as
// an operator runs it) on a fresh database. Each row has an address, first and last name and
// two properties (a string and a number); the import joins one segment and sets one topic
// choice, so every row costs what a real import costs, contact.created events included.
// Reported: upload time (POST until 201), import time (201 until completed), rows/s over the
// whole (upload start until completed), peak RSS of the Postline process (the kernel's VmHWM)
// against its RSS before the upload, peak PSS of its PostgreSQL, CPU shares.
//
//   npx tsx bench/contacts-import.ts                          # embedded PostgreSQL, 100,000 rows
//   npx tsx bench/contacts-import.ts --db embedded,external --rows 1000000 --on-conflict upsert
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { startPostlineProcess, type DbMode, type PostlineProcess } from './support/postline-process.js';
import { CpuMeter } from './support/proc-cpu.js';
import { MemorySampler, mib, procStatus } from './support/proc-memory.js';
import { waitForQuiet } from './support/quiet.js';
import { appendResults, fixed, machine, printMachine, table } from './support/report.js';

const { values: args } = parseArgs({
  options: {
    db: { type: 'string', default: 'embedded' },
    rows: { type: 'string', default: '100000' },
    'on-conflict': { type: 'string', default: 'skip' },
    timeout: { type: 'string', default: '600' },
  },
});

interface Row {
  db: DbMode;
  rows: number;
  fileMiB: number;
  uploadSeconds: number;
  importSeconds: number;
  rowsPerSecond: number;
  nodeBaselineMiB: number;
  nodePeakMiB: number;
  pgPeakPssMiB: number;
  cpu: string;
  counts: Record<string, number>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function csvFile(rows: number): Blob {
  const lines = ['Email,First Name,Last Name,Plan,Seats'];
  for (let i = 0; i < rows; i++) lines.push(`person.${i}@bench.example.com,First${i},Last ${i},${i % 3 === 0 ? 'pro' : 'free'},${i % 50}`);
  return new Blob([`${lines.join('\n')}\n`], { type: 'text/csv' });
}

async function api(postline: PostlineProcess, method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(postline.url + path, {
    method,
    headers: { authorization: `Bearer ${postline.apiKey}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await res.json();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

async function benchDatabase(db: DbMode, file: Blob): Promise<Row> {
  const rows = Number(args.rows);
  const postline = await startPostlineProcess({ db, roles: ['api', 'worker'], externalUrl: process.env.EXTERNAL_DATABASE_URL, label: 'contacts-import' });
  try {
    await api(postline, 'POST', '/contact-properties', { key: 'plan', type: 'string' });
    await api(postline, 'POST', '/contact-properties', { key: 'seats', type: 'number' });
    const segment = await api(postline, 'POST', '/segments', { name: 'Imported' });
    const topic = await api(postline, 'POST', '/topics', { name: 'News', default_subscription: 'opt_out' });
    await waitForQuiet(`${db} import`, os.availableParallelism());
    await sleep(1000);
    const baseline = procStatus(postline.pid)!.rssKiB;
    // Its PostgreSQL: the embedded server's processes, or the backends of postline_bench on an external one.
    let pgPids = await postline.postgresPids();
    const refresh = setInterval(
      () =>
        void postline.postgresPids().then(
          (pids) => (pgPids = pids),
          () => {},
        ),
      1000,
    );
    const sampler = new MemorySampler(postline.pid, () => pgPids);
    const cpu = new CpuMeter(postline.pid, pgPids);

    const form = new FormData();
    form.append('file', file);
    form.append(
      'column_map',
      JSON.stringify({
        email: 'Email',
        first_name: 'First Name',
        last_name: 'Last Name',
        properties: { plan: { column: 'Plan' }, seats: { column: 'Seats', type: 'number' } },
      }),
    );
    form.append('on_conflict', args['on-conflict']!);
    form.append('segments', JSON.stringify([{ id: segment.id }]));
    form.append('topics', JSON.stringify([{ id: topic.id, subscription: 'opt_in' }]));
    const started = performance.now();
    const res = await fetch(`${postline.url}/contacts/imports`, { method: 'POST', headers: { authorization: `Bearer ${postline.apiKey}` }, body: form });
    const created = await res.json();
    if (res.status !== 201) throw new Error(`POST /contacts/imports: ${res.status} ${JSON.stringify(created)}`);
    const uploaded = performance.now();

    const deadline = uploaded + Number(args.timeout) * 1000;
    let state: any;
    for (;;) {
      state = await api(postline, 'GET', `/contacts/imports/${created.id}`);
      if (state.status === 'completed' || state.status === 'failed') break;
      if (performance.now() > deadline) throw new Error(`import still ${state.status} at ${state.counts.total} rows`);
      await sleep(100);
    }
    const ended = performance.now();
    const shares = cpu.stop(await postline.postgresPids());
    sampler.stop();
    clearInterval(refresh);
    if (state.status !== 'completed') throw new Error(`import failed: ${JSON.stringify(state.errors)}`);
    return {
      db,
      rows,
      fileMiB: Math.round((file.size / 2 ** 20) * 10) / 10,
      uploadSeconds: Math.round((uploaded - started) / 100) / 10,
      importSeconds: Math.round((ended - uploaded) / 100) / 10,
      rowsPerSecond: Math.round(rows / ((ended - started) / 1000)),
      nodeBaselineMiB: mib(baseline),
      nodePeakMiB: mib(sampler.nodeHwmKiB()),
      pgPeakPssMiB: mib(sampler.peakPgPssKiB),
      cpu: `postline ${shares.postline}% (main thread ${shares.postlineMain}%), postgres ${shares.postgres}%, other ${shares.other}%${shares.otherTop ? ` (${shares.otherTop})` : ''}`,
      counts: state.counts,
    };
  } finally {
    await postline.stop();
  }
}

async function main(): Promise<void> {
  const run = machine();
  printMachine(run);
  const file = csvFile(Number(args.rows));
  const results: Row[] = [];
  for (const db of args.db!.split(',') as DbMode[]) {
    console.log(`\n## ${db}: importing ${args.rows} rows (${fixed(file.size / 2 ** 20, 1)} MiB), on_conflict ${args['on-conflict']}`);
    results.push(await benchDatabase(db, file));
  }
  console.log(
    '\n' +
      table(
        ['database', 'rows', 'file MiB', 'upload s', 'import s', 'rows/s', 'node idle MiB', 'node peak RSS MiB', 'PG peak PSS MiB'],
        results.map((r) => [
          r.db,
          r.rows,
          r.fileMiB,
          fixed(r.uploadSeconds, 1),
          fixed(r.importSeconds, 1),
          r.rowsPerSecond,
          r.nodeBaselineMiB,
          r.nodePeakMiB,
          r.pgPeakPssMiB,
        ]),
      ),
  );
  for (const r of results) console.log(`! ${r.db}: counts ${JSON.stringify(r.counts)}; CPU ${r.cpu}`);
  console.log(`\nresults appended to ${appendResults('contacts-import', run, results)}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
