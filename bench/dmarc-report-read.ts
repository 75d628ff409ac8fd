// Reading a large DMARC aggregate report (issue 36): a report of --rows records (20,000 by
// default, as Google sends for a large domain) in Google's layout, gzipped, in a MIME message;
// timed: postal-mime's parse of the message (the server's options), and readReportMail on the
// parsed message (gunzip, decode, XML, rows). Median of --runs runs, wall and CPU time (CPU is
// what a loaded machine does not inflate).
//
//   npx tsx bench/dmarc-report-read.ts                 # 20,000 rows, 7 runs
//   npx tsx bench/dmarc-report-read.ts --rows 100000 --runs 3
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { readReportMail } from '../src/dmarc-reports/read-report-mail.js';
import type { DmarcAggregateReport } from '../src/dmarc-reports/report-types.js';
import { gzip, largeReport, reportMail } from '../test/fixtures/dmarc-reports/report-mail.js';
import { appendResults, fixed, machine, printMachine, table } from './support/report.js';

const { values: args } = parseArgs({ options: { rows: { type: 'string', default: '20000' }, runs: { type: 'string', default: '7' } } });
const rows = Number(args.rows);
const runs = Number(args.runs);

const run = machine();
printMachine(run);
const xml = largeReport(rows);
const gz = gzip(xml);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const parseMs: number[] = [];
const readMs: number[] = [];
const readCpuMs: number[] = [];
for (let i = 0; i < runs; i++) {
  let t = performance.now();
  const email = await reportMail([{ filename: 'google.com!example.com!1549929600!1550015999.xml.gz', contentType: 'application/gzip', content: gz }]);
  parseMs.push(performance.now() - t);
  const cpu = process.cpuUsage();
  t = performance.now();
  const reading = readReportMail(email);
  readMs.push(performance.now() - t);
  const used = process.cpuUsage(cpu);
  readCpuMs.push((used.user + used.system) / 1000);
  const read = (reading?.reports[0] as DmarcAggregateReport | undefined)?.rows.length;
  if (read !== rows) throw new Error(`read ${read} rows of ${rows}`);
}

const result = {
  rows,
  xmlMB: xml.length / 1e6,
  gzipKB: gz.length / 1e3,
  composeAndParseMs: median(parseMs),
  readMs: median(readMs),
  readCpuMs: median(readCpuMs),
};
console.log(
  table(
    ['rows', 'XML MB', 'gzip KB', 'compose + postal-mime ms', 'readReportMail ms', 'readReportMail CPU ms'],
    [[rows, fixed(result.xmlMB, 1), fixed(result.gzipKB), fixed(result.composeAndParseMs), fixed(result.readMs), fixed(result.readCpuMs)]],
  ),
);
console.log(`readReportMail, every run (ms): ${readMs.map((m) => fixed(m)).join(' ')}`);
console.log(`results appended to ${appendResults('dmarc-report-read', run, [result])}`);
