// What every bench prints and keeps: the machine it ran on, a plain-text table, and one JSON
// line per result appended to bench/results/<bench>.jsonl (with the run's date and machine).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from './postline-process.js';

export interface Machine {
  date: string;
  nproc: number;
  cpu: string;
  memGiB: number;
  kernel: string;
  node: string;
  loadavg: number[];
  commit: string;
}

export function machine(): Machine {
  let commit = 'unknown';
  try {
    commit = execFileSync('git', ['-C', ROOT, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['-C', ROOT, 'status', '--porcelain', 'src'], { encoding: 'utf8' }).trim();
    if (dirty) commit += '+uncommitted-src';
  } catch {
    /* not a git checkout */
  }
  return {
    date: new Date().toISOString(),
    nproc: os.availableParallelism(),
    cpu: os.cpus()[0]?.model ?? 'unknown',
    memGiB: Math.round(os.totalmem() / 2 ** 30),
    kernel: os.release(),
    node: process.version,
    loadavg: os.loadavg().map((l) => Math.round(l * 100) / 100),
    commit,
  };
}

export function printMachine(m: Machine): void {
  console.log(`# ${m.date}  nproc=${m.nproc}  cpu="${m.cpu}"  mem=${m.memGiB} GiB  kernel=${m.kernel}  node=${m.node}`);
  console.log(`# load average at start: ${m.loadavg.join(' ')}  postline ${m.commit}`);
}

export function table(headers: string[], rows: (string | number)[][]): string {
  const cells = [headers, ...rows.map((r) => r.map(String))];
  const widths = headers.map((_, c) => Math.max(...cells.map((r) => (r[c] ?? '').length)));
  const line = (r: string[]) => `| ${r.map((v, c) => v.padEnd(widths[c]!)).join(' | ')} |`;
  return [line(cells[0]!), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...cells.slice(1).map(line)].join('\n');
}

export function appendResults(bench: string, run: Machine, rows: object[]): string {
  const dir = process.env.BENCH_RESULTS_DIR ?? path.join(ROOT, 'bench/results');
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${bench}.jsonl`);
  fs.appendFileSync(file, rows.map((r) => `${JSON.stringify({ bench, ...r, machine: run })}\n`).join(''));
  return file;
}

export const fixed = (n: number, digits = 0) => (Number.isFinite(n) ? n.toFixed(digits) : 'n/a');
