// The Postline of the crash soak: one `postline start` with every role, started again and again
// on the same data directory (and database), and killed as a machine would lose it: SIGKILL to
// its process group (Postline, its worker thread, anything it spawned) and to the embedded
// PostgreSQL, which pg_ctl starts in a session of its own (src/db/embedded.ts) and a group kill
// therefore misses: its postmaster and every backend are killed in the same instant.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { ROOT } from './postline-process.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** How Postline is started: the compiled CLI when POSTLINE_ENTRY=dist (after `npm run build`), else tsx on the sources. */
function entry(): string[] {
  if (process.env.POSTLINE_ENTRY === 'dist') return [path.join(ROOT, 'dist/src/main.js')];
  return ['--import', 'tsx', path.join(ROOT, 'src/main.ts')];
}

/** A process that exists and is not a zombie waiting to be reaped. */
function running(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

function procEntries(): { pid: number; ppid: number; pgid: number; args: string[] }[] {
  const out: { pid: number; ppid: number; pgid: number; args: string[] }[] = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (fields[0] === 'Z') continue;
      const args = fs.readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0');
      out.push({ pid: Number(name), ppid: Number(fields[1]), pgid: Number(fields[2]), args });
    } catch {
      /* exited meanwhile */
    }
  }
  return out;
}

/** What a stopped Postline left in its data directory that a next start would have to get past. */
export interface Leftovers {
  /** PostgreSQL processes still running from the data directory. */
  postgres: number[];
  /** Processes of the stopped Postline's process group still running. */
  group: number[];
  postmasterPid: boolean;
  startLock: boolean;
  /** Registrations in pg-users (each a process that claims to use the server). */
  registrations: string[];
}

export class SoakNode {
  private child: ChildProcess | undefined;
  private exited: Promise<void> = Promise.resolve();
  readonly logFile: string;

  constructor(
    readonly dataDir: string,
    private env: Record<string, string>,
    readonly url: string,
    readonly external: boolean,
  ) {
    this.logFile = path.join(dataDir, 'postline.log');
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Spawns `postline start` in a process group of its own; resolves when /readyz answers 200, with the ms that took. */
  async start(): Promise<number> {
    const started = performance.now();
    const out = fs.openSync(this.logFile, 'a');
    const child = spawn(process.execPath, [...entry(), 'start'], { cwd: ROOT, env: this.env, stdio: ['ignore', out, out], detached: true });
    fs.closeSync(out);
    this.child = child;
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
    const deadline = Date.now() + 120_000;
    for (;;) {
      if (child.exitCode !== null || child.signalCode !== null) throw new Error(`postline exited (${child.exitCode ?? child.signalCode}); see ${this.logFile}`);
      const status = await fetch(`${this.url}/readyz`).then(
        (r) => r.arrayBuffer().then(() => r.status),
        () => 0,
      );
      if (status === 200) return performance.now() - started;
      if (Date.now() > deadline) throw new Error(`postline not ready after 120 s; see ${this.logFile}`);
      await sleep(50);
    }
  }

  /** The embedded server's postmaster, its children, and the Postline process group: every pid the kill must reach. */
  private tree(): number[] {
    const procs = procEntries();
    const pgData = path.join(this.dataDir, 'pg');
    const postmasters = this.external ? [] : procs.filter((p) => p.args[0]?.endsWith('/postgres') && p.args.includes(pgData)).map((p) => p.pid);
    const backends = procs.filter((p) => postmasters.includes(p.ppid)).map((p) => p.pid);
    const group = this.child?.pid ? procs.filter((p) => p.pgid === this.child!.pid).map((p) => p.pid) : [];
    return [...postmasters, ...backends, ...group];
  }

  /** SIGKILL to the whole tree at once; resolves once none of it runs any more. */
  async killTree(): Promise<void> {
    const pids = this.tree();
    if (this.child?.pid) {
      try {
        process.kill(-this.child.pid, 'SIGKILL');
      } catch {
        /* already gone */
      }
    }
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        /* already gone */
      }
    }
    await this.exited;
    const deadline = Date.now() + 10_000;
    while (pids.some(running)) {
      if (Date.now() > deadline) throw new Error(`still running 10 s after SIGKILL: ${pids.filter(running).join(' ')}`);
      await sleep(20);
    }
  }

  /** SIGTERM to Postline alone, as an operator stops it; resolves on its exit. */
  async stop(): Promise<void> {
    if (!this.child || this.child.exitCode !== null || this.child.signalCode !== null) return;
    this.child.kill('SIGTERM');
    await this.exited;
  }

  async leftovers(): Promise<Leftovers> {
    const procs = procEntries();
    const pgData = path.join(this.dataDir, 'pg');
    const exists = (file: string) => fs.existsSync(path.join(this.dataDir, file));
    return {
      postgres: procs.filter((p) => p.args.some((a) => a === pgData)).map((p) => p.pid),
      group: this.child?.pid ? procs.filter((p) => p.pgid === this.child!.pid).map((p) => p.pid) : [],
      postmasterPid: exists('pg/postmaster.pid'),
      startLock: exists('pg-start.lock'),
      registrations: await fsp.readdir(path.join(this.dataDir, 'pg-users')).catch(() => []),
    };
  }

  /** The database URL of this start: the external one, or the embedded server's (its port changes with each start). */
  private databaseUrl(): string {
    if (this.env.DATABASE_URL) return this.env.DATABASE_URL;
    const lines = fs.readFileSync(path.join(this.dataDir, 'pg', 'postmaster.pid'), 'utf8').split('\n');
    const password = fs.readFileSync(path.join(this.dataDir, 'pg-password'), 'utf8').trim();
    return `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${Number(lines[3])}/postgres`;
  }

  /** Direct SQL on Postline's database, only to count what was committed. */
  async sql<T = any>(query: string, params: unknown[] = []): Promise<T[]> {
    const client = new pg.Client({ connectionString: this.databaseUrl() });
    await client.connect();
    try {
      return (await client.query(query, params)).rows;
    } finally {
      await client.end();
    }
  }
}
