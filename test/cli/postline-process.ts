// Drives the real `postline` command as child processes (`node --import tsx src/main.ts …`),
// for what only a whole process shows: kill -9, signals, several processes on one data
// directory, the CLI's output. The database is the embedded server in a temporary data
// directory, or a fresh database on TEST_DATABASE_URL when POSTLINE_TEST_DB=external.
import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after } from 'node:test';
import { fileURLToPath } from 'node:url';
import { within } from '../support/eventually.js';
import { createExternalDatabase, TEST_SECRET_KEY, testDbMode } from '../support/postline.js';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const entry = path.join(repoRoot, 'src', 'main.ts');

export const newApiKey = () => `re_${crypto.randomBytes(4).toString('hex')}_${crypto.randomBytes(12).toString('hex')}`;

/**
 * What a process test starts (servers, processes, directories) is undone when its suite ends:
 * push a cleanup for each; they run in reverse order, each one's failure ignored.
 */
export function cleanupsAfterSuite(): (() => Promise<unknown>)[] {
  const cleanups: (() => Promise<unknown>)[] = [];
  after(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
  });
  return cleanups;
}

/** The environment of a Postline under test: loopback only, no SMTP listeners, quiet logs. */
export function baseEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    // The test's own database settings must not leak into the child unless asked for, nor the
    // test runner's POSTLINE_TEST_* (the CLI would warn of them as unknown settings).
    if (v !== undefined && !['DATABASE_URL', 'REDIS_URL', 'NODE_TEST_CONTEXT', 'NODE_OPTIONS'].includes(k) && !k.startsWith('POSTLINE_TEST_')) env[k] = v;
  }
  return {
    ...env,
    PORT: '0',
    HOST: '127.0.0.1',
    POSTLINE_SMTP_PORTS: '0',
    POSTLINE_SMTPS_PORTS: '0',
    POSTLINE_DNS_SERVERS: '127.0.0.1:9', // nothing is resolved by these tests
    POSTLINE_DNSBLS: '', // nor any blocklist asked
    POSTLINE_DOMAIN_BLOCKLISTS: '',
    POSTLINE_RATE_LIMIT: '1000',
    POSTLINE_SECRET_KEY: TEST_SECRET_KEY,
    LOG_LEVEL: 'info',
    ...extra,
  };
}

export async function tempDataDir(): Promise<string> {
  return fs.mkdtemp(path.join(os.tmpdir(), 'postline-cli-'));
}

/** A fresh database on TEST_DATABASE_URL, dropped by `drop()`. */
export const externalDatabase = () => createExternalDatabase('postline_cli');

/**
 * Where a `postline start` of a test keeps its data: a data directory and, when the suite runs on
 * TEST_DATABASE_URL, a fresh database. `env` is what to start it with; `remove` kills an embedded
 * server a killed process left behind and deletes both.
 */
export async function processStorage(): Promise<{ dataDir: string; env: Record<string, string>; remove(): Promise<void> }> {
  const dataDir = await tempDataDir();
  const database = testDbMode() === 'external' ? await externalDatabase() : undefined;
  return {
    dataDir,
    env: { POSTLINE_DATA_DIR: dataDir, ...(database ? { DATABASE_URL: database.url } : {}) },
    async remove() {
      for (const pid of await postmastersOf(dataDir)) process.kill(pid, 'SIGKILL');
      await fs.rm(dataDir, { recursive: true, force: true });
      await database?.drop();
    },
  };
}

/**
 * How long a process may take to exit once asked to, or once killed: POSTLINE_SHUTDOWN_TIMEOUT's
 * default (30 s) for a graceful stop, and as much again for a loaded machine.
 */
const EXIT_TIMEOUT_MS = 60_000;

type Exit = { code: number | null; signal: NodeJS.Signals | null };

/** A running `postline start`; its pino log lines are kept in `lines`. */
export class PostlineProcess {
  readonly lines: string[] = [];
  url = '';
  private readonly exit: Promise<Exit>;
  private constructor(readonly child: ChildProcess) {
    this.exit = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  }

  /**
   * The exit once the process has ended. Still running after EXIT_TIMEOUT_MS, it is killed (so it
   * cannot hold the run) and this fails with its last log lines.
   */
  get exited(): Promise<Exit> {
    return within(this.exit, EXIT_TIMEOUT_MS, `postline (pid ${this.pid}) to exit`).catch((err: Error) => {
      this.child.kill('SIGKILL');
      throw new Error(`${err.message}; its last log lines:\n${this.lines.slice(-20).join('\n')}`);
    });
  }

  get pid(): number {
    return this.child.pid!;
  }

  /**
   * Starts `postline start …` and waits until it logs "ready" (with "HTTP API listening on URL"
   * before it when it serves the API). `detached` puts it in
   * a process group of its own, so a test can signal the group as a terminal's Ctrl-C does.
   */
  static async start(
    env: Record<string, string>,
    options: { args?: string[]; detached?: boolean; command?: string[]; timeoutMs?: number } = {},
  ): Promise<PostlineProcess> {
    const command = options.command ?? [process.execPath, '--import', 'tsx', entry, 'start', ...(options.args ?? [])];
    const child = spawn(command[0]!, command.slice(1), {
      cwd: repoRoot,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: options.detached ?? false,
    });
    const proc = new PostlineProcess(child);
    let buffered = '';
    const onData = (chunk: Buffer) => {
      buffered += chunk.toString();
      const parts = buffered.split('\n');
      buffered = parts.pop()!;
      proc.lines.push(...parts);
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    // A deadline, not a wait: a start compiles the worker thread's modules with tsx, which a loaded 2-core
    // machine (two test files at once beside other work) has been seen to take over 20 s to do.
    const deadline = Date.now() + (options.timeoutMs ?? 90_000);
    for (;;) {
      const match = proc.lines.map((l) => /HTTP API listening on (http:\/\/\S+?)"/.exec(l)).find(Boolean);
      if (match) proc.url = match[1]!;
      // Up once every role runs (server.ts logs "ready"); a node without the api role has no URL.
      if (proc.lines.some((l) => /"msg":"ready: /.test(l))) return proc;
      const exited = await Promise.race([proc.exit, new Promise((r) => setTimeout(r, 50))]);
      if (exited || Date.now() > deadline) {
        if (!exited) child.kill('SIGKILL');
        throw new Error(`postline start did not come up:\n${proc.lines.join('\n')}`);
      }
    }
  }

  /** Sends a signal (SIGTERM by default) and waits for the exit. */
  async stop(signal: NodeJS.Signals = 'SIGTERM', options: { group?: boolean } = {}) {
    if (options.group) process.kill(-this.pid, signal);
    else this.child.kill(signal);
    return this.exited;
  }
}

/** Runs a one-shot `postline …` command to completion. */
export async function runCli(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', entry, ...args], { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c) => (stdout += c));
  child.stderr.on('data', (c) => (stderr += c));
  const exit = new Promise<number | null>((resolve) => child.on('exit', resolve));
  const code = await within(exit, EXIT_TIMEOUT_MS, `postline ${args.join(' ')} to finish`).catch((err: Error) => {
    child.kill('SIGKILL');
    throw new Error(`${err.message}; its output:\n${stdout}${stderr}`);
  });
  return { code, stdout, stderr };
}

/** PostgreSQL postmasters running from this data directory (by their `-D` argument). */
export async function postmastersOf(dataDir: string): Promise<number[]> {
  const pgData = path.join(dataDir, 'pg');
  const pids: number[] = [];
  for (const name of await fs.readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const cmdline = await fs.readFile(`/proc/${name}/cmdline`, 'utf8').catch(() => '');
    const args = cmdline.split('\0');
    if (args[0]?.endsWith('/postgres') && args.includes(pgData)) pids.push(Number(name));
  }
  return pids;
}

export async function postmasterPid(dataDir: string): Promise<number | undefined> {
  const content = await fs.readFile(path.join(dataDir, 'pg', 'postmaster.pid'), 'utf8').catch(() => undefined);
  return content ? Number(content.split('\n')[0]) : undefined;
}
