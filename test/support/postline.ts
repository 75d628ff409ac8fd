// Starts a whole Postline for a test file: its database (the embedded server in a fresh data
// directory, or a fresh database on TEST_DATABASE_URL when POSTLINE_TEST_DB=external), a
// loopback DNS server it resolves through, and an MX sink on the outbound port. Tests then
// talk to it only through public interfaces: the resend SDK, SMTP, webhooks.
import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { Resend } from 'resend';
import { loadConfig, type Role } from '../../src/config.js';
import { startPostline, type Postline } from '../../src/server.js';
import { TestDnsServer } from './dns-server.js';
import { MxSink } from './mx-sink.js';

const run = promisify(execFile);

export interface TestPostline {
  postline: Postline;
  url: string;
  apiKey: string;
  resend: Resend;
  dns: TestDnsServer;
  /** The MX host every test domain points at by default (127.0.0.1 on the outbound port). */
  sink: MxSink;
  /** Run SQL against Postline's database: for assertions about what was stored, never to set up state. */
  sql(query: string, params?: unknown[]): Promise<any[]>;
  /** Stop and start Postline again on the same database (restart / crash-recovery tests), with other roles if given. */
  restart(env?: Record<string, string>, roles?: Role[]): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The key the tests' Postlines seal their secrets with (POSTLINE_SECRET_KEY): given to every one,
 * so another node on the same database (a second process, a CLI command) opens them too.
 * test/secrets/ covers the embedded default (a key made in the data directory).
 */
export const TEST_SECRET_KEY = Buffer.from('postline tests: not a real key!!').toString('base64');

export const testDbMode = () => (process.env.POSTLINE_TEST_DB === 'external' ? 'external' : 'embedded');

/**
 * A fresh database on TEST_DATABASE_URL, dropped by `drop()`; `migrated`: a copy of the database
 * scripts/test.mjs prepared (prepare-database.ts), when there is one, instead of an empty one.
 */
export async function createExternalDatabase(
  prefix = 'postline_test',
  options: { migrated?: boolean } = {},
): Promise<{ url: string; drop: () => Promise<void> }> {
  const base = process.env.TEST_DATABASE_URL;
  if (!base) throw new Error('POSTLINE_TEST_DB=external needs TEST_DATABASE_URL');
  const name = `${prefix}_${crypto.randomBytes(6).toString('hex')}`;
  const template = options.migrated ? process.env.POSTLINE_TEST_TEMPLATE_DB : undefined;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ''}`);
  } finally {
    await admin.end();
  }
  const url = new URL(base);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: base });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

/**
 * The embedded server's files as prepare-database.ts left them (initialised and migrated), into
 * `dataDir`, when scripts/test.mjs prepared them. `cp -a` keeps the owner and modes PostgreSQL
 * insists on (as root, the files belong to the postgres user).
 */
async function copyPreparedEmbedded(dataDir: string): Promise<void> {
  const template = process.env.POSTLINE_TEST_TEMPLATE_DIR;
  if (!template) return;
  await run('cp', ['-a', path.join(template, 'pg'), path.join(template, 'pg-password'), dataDir]);
}

export async function startTestPostline(options: { env?: Record<string, string>; roles?: Role[] } = {}): Promise<TestPostline> {
  const dns = await new TestDnsServer().start();
  const sink = await new MxSink('127.0.0.1').start();
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'postline-test-'));
  let external: Awaited<ReturnType<typeof createExternalDatabase>> | undefined;
  // Nothing started here may outlive a failed start: an open server would keep the file's process alive.
  const undoStart = async (err: unknown): Promise<never> => {
    await Promise.allSettled([dns.stop(), sink.stop(), external?.drop(), fs.rm(dataDir, { recursive: true, force: true })]);
    throw err;
  };
  if (testDbMode() === 'external') external = await createExternalDatabase('postline_test', { migrated: true }).catch(undoStart);
  else await copyPreparedEmbedded(dataDir).catch(undoStart);
  const apiKey = `re_${crypto.randomBytes(4).toString('hex')}_${crypto.randomBytes(12).toString('hex')}`;
  const baseEnv: Record<string, string> = {
    PORT: '0',
    HOST: '127.0.0.1',
    POSTLINE_DATA_DIR: dataDir,
    POSTLINE_DNS_SERVERS: dns.address,
    POSTLINE_OUTBOUND_PORT: String(sink.port),
    POSTLINE_BOOTSTRAP_API_KEY: apiKey,
    POSTLINE_RATE_LIMIT: '1000',
    POSTLINE_SMTP_PORTS: '0',
    POSTLINE_SMTPS_PORTS: '0',
    POSTLINE_SMTP_HOSTNAME: 'mta.postline.test',
    POSTLINE_SECRET_KEY: TEST_SECRET_KEY,
    // No blocklist is asked unless a test names its own (test/blocklists/): the public defaults
    // would only add queries to the loopback server that tests counting queries do not expect.
    POSTLINE_DNSBLS: '',
    POSTLINE_DOMAIN_BLOCKLISTS: '',
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
    ...(external ? { DATABASE_URL: external.url } : {}),
  };
  let env = { ...baseEnv, ...options.env };
  let postline = await startPostline(loadConfig(env), { roles: options.roles }).catch(undoStart);
  const handle: TestPostline = {
    postline,
    url: postline.url!,
    apiKey,
    resend: new Resend(apiKey, { baseUrl: postline.url! }),
    dns,
    sink,
    async sql(query, params) {
      return handle.postline.db.query(query, params);
    },
    async restart(extraEnv = {}, roles = options.roles) {
      await handle.postline.stop();
      env = { ...env, ...extraEnv, PORT: new URL(handle.url).port };
      postline = await startPostline(loadConfig(env), { roles });
      handle.postline = postline;
    },
    async stop() {
      await handle.postline.stop();
      await Promise.all([dns.stop(), sink.stop()]);
      await external?.drop();
      await fs.rm(dataDir, { recursive: true, force: true });
    },
  };
  return handle;
}

/** A raw fetch against the API, for what the SDK cannot send (bad JSON, wrong types, headers). */
export async function rawRequest(
  t: Pick<TestPostline, 'url' | 'apiKey'>,
  method: string,
  pathname: string,
  options: { body?: string | object; headers?: Record<string, string>; auth?: string | null } = {},
): Promise<{ status: number; headers: Headers; body: any }> {
  const headers: Record<string, string> = { 'content-type': 'application/json', ...options.headers };
  if (options.auth !== null) headers.authorization = `Bearer ${options.auth ?? t.apiKey}`;
  const res = await fetch(t.url + pathname, {
    method,
    headers,
    body: options.body === undefined ? undefined : typeof options.body === 'string' ? options.body : JSON.stringify(options.body),
  });
  const text = await res.text();
  let body: any = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* not JSON: keep the text */
  }
  return { status: res.status, headers: res.headers, body };
}
