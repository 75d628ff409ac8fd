// Scale-out as an operator runs it: two `--roles api` nodes, two `--roles worker` nodes and one
// `--roles smtp` node, separate processes on one external PostgreSQL, the rate limits shared
// through Redis. Mail comes in through both api nodes (the resend SDK) and SMTP (nodemailer)
// and goes to a loopback MX host that answers slowly; half-way, the worker holding the most
// deliveries is killed with SIGKILL. Every acknowledged email arrives, and an email arrives twice
// only if the killed worker held it when it died. A key deleted through one api node is refused
// by the other before its cached entry could expire; requests over the limit split across both
// api nodes are refused as if they had met one node.
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import { describe, it } from 'node:test';
import { Redis } from 'ioredis';
import nodemailer from 'nodemailer';
import pg from 'pg';
import { Resend } from 'resend';
import { startLoopbackMx } from '../support/loopback-mx.js';
import { createVerifiedDomain } from '../support/domains.js';
import { eventually } from '../support/eventually.js';
import type { MxSink } from '../support/mx-sink.js';
import { testDbMode } from '../support/postline.js';
import { PostlineProcess, baseEnv, externalDatabase, newApiKey, tempDataDir, cleanupsAfterSuite } from './postline-process.js';

const REDIS_URL = 'redis://127.0.0.1:6379';
const RATE_LIMIT = 40; // per account and second, all nodes together
const KEY_CACHE_MS = 2_000; // how long an api node keeps a key nobody told it about (accounts/api-keys.ts)
const BATCH = 100;
const SMTP_MESSAGES = 20;

async function redisReachable(): Promise<boolean> {
  const redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  try {
    await redis.connect();
    return (await redis.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    redis.disconnect();
  }
}

const skip =
  testDbMode() !== 'external'
    ? 'needs TEST_DATABASE_URL: nodes on several machines share an external PostgreSQL'
    : !(await redisReachable())
      ? `needs Redis at ${REDIS_URL} for the shared rate limits`
      : false;

const messageIds = (sink: MxSink) => sink.messages.map((m) => /^Message-ID: <([^@]+)@/im.exec(m.raw.toString('latin1'))?.[1] ?? '');

describe('five nodes on one database', () => {
  const cleanups = cleanupsAfterSuite();

  it('delivers every acknowledged email through a worker’s SIGKILL, revokes keys and limits rates as one', { skip, timeout: 120_000 }, async () => {
    const { dns, sink } = await startLoopbackMx(cleanups);
    sink.answerDelayMs = 40; // each worker has at most 4 messages in flight: delivery takes seconds

    const database = await externalDatabase();
    cleanups.push(() => database.drop());
    const sql = new pg.Client({ connectionString: database.url });
    await sql.connect();
    cleanups.push(() => sql.end());
    const apiKey = newApiKey();
    const node = async (roles: string) => {
      const dataDir = await tempDataDir();
      cleanups.push(() => fs.rm(dataDir, { recursive: true, force: true }));
      const env = baseEnv({
        POSTLINE_DATA_DIR: dataDir,
        DATABASE_URL: database.url,
        REDIS_URL,
        POSTLINE_RATE_LIMIT: String(RATE_LIMIT),
        POSTLINE_BOOTSTRAP_API_KEY: apiKey,
        POSTLINE_DNS_SERVERS: dns.address,
        POSTLINE_SMTP_HOSTNAME: 'mta.postline.test',
        POSTLINE_OUTBOUND_PORT: String(sink.port),
        POSTLINE_DELIVERY_CONCURRENCY: '4',
        POSTLINE_SMTP_PORTS: roles === 'smtp' ? '0' : '',
        POSTLINE_SMTPS_PORTS: '',
      });
      const started = await PostlineProcess.start(env, { args: ['--roles', roles], timeoutMs: 60_000 });
      cleanups.push(() => started.stop('SIGKILL'));
      return started;
    };
    // The first node migrates the database; the others start together.
    const apiA = await node('api');
    const [apiB, smtp, ...workers] = await Promise.all([node('api'), node('smtp'), node('worker'), node('worker')]);
    const smtpPort = Number(smtp.lines.map((l) => /SMTP listening on [\d.]+:(\d+) \(STARTTLS\)/.exec(l)?.[1]).find(Boolean));

    // Mail through both api nodes and SMTP.
    const throughA = new Resend(apiKey, { baseUrl: apiA.url });
    const throughB = new Resend(apiKey, { baseUrl: apiB.url });
    await createVerifiedDomain({ dns, resend: throughA }, 'scale.test');
    const acknowledged: string[] = [];
    for (const [name, resend] of [
      ['a', throughA],
      ['b', throughB],
    ] as const) {
      const sent = await resend.batch.send(
        Array.from({ length: BATCH }, (_, i) => ({ from: 'hello@scale.test', to: `${name}${i}@dest.test`, subject: `Via ${name} ${i}`, text: 'x' })),
      );
      assert.equal(sent.error, null, JSON.stringify(sent.error));
      acknowledged.push(...sent.data!.data.map((e) => e.id));
      const one = await resend.emails.send({ from: 'hello@scale.test', to: `${name}-single@dest.test`, subject: `Single via ${name}`, html: '<p>x</p>' });
      assert.equal(one.error, null, JSON.stringify(one.error));
      acknowledged.push(one.data!.id);
    }
    const mailer = nodemailer.createTransport({
      host: '127.0.0.1',
      port: smtpPort,
      requireTLS: true,
      auth: { user: 'resend', pass: apiKey },
      tls: { rejectUnauthorized: false }, // the self-signed certificate
    });
    for (let i = 0; i < SMTP_MESSAGES; i++) {
      const info = await mailer.sendMail({ from: 'hello@scale.test', to: `s${i}@dest.test`, subject: `Via SMTP ${i}`, text: 'x' });
      acknowledged.push(/queued as ([0-9a-f-]{36})/.exec(info.response)![1]!);
    }
    mailer.close();

    // Half-way, the worker holding the most deliveries dies.
    await sink.waitFor(Math.floor(acknowledged.length / 2), 60_000);
    const held = async (pid: number) =>
      (await sql.query(`SELECT count(*)::int AS n FROM deliveries d JOIN nodes n ON n.id = d.claimed_by WHERE n.pid = $1`, [pid])).rows[0].n as number;
    const counts = await Promise.all(workers.map((w) => held(w.pid)));
    const [victim, survivor] = counts[0]! >= counts[1]! ? workers : [workers[1]!, workers[0]!];
    victim!.child.kill('SIGKILL');
    await victim!.exited;
    const inFlightAtDeath = await held(victim!.pid); // nobody reaps before 10 s of silence
    assert.ok(inFlightAtDeath > 0, 'the killed worker held deliveries');

    // Meanwhile: a key deleted through A is refused by B while B's cached entry is still fresh.
    const created = await throughA.apiKeys.create({ name: 'short-lived' });
    assert.equal(created.error, null);
    const keyOnB = new Resend(created.data!.token, { baseUrl: apiB.url });
    const readFrom = performance.now();
    assert.equal((await keyOnB.domains.list()).error, null);
    assert.equal((await throughA.apiKeys.remove(created.data!.id)).error, null);
    const refusedAt = await eventually(async () => (await keyOnB.domains.list()).error?.name === 'invalid_api_key' && performance.now(), 5_000, 'B refusing');
    assert.ok(
      refusedAt < readFrom + KEY_CACHE_MS,
      `B refused the key ${Math.round(refusedAt - readFrom)} ms after caching it: the cache expired, no notice came`,
    );

    // Requests over the limit, alternating between the nodes, in one window of the limiter.
    let allowed: number | undefined;
    for (let attempt = 0; attempt < 5 && allowed === undefined; attempt++) {
      await new Promise((r) => setTimeout(r, 1000 - (Date.now() % 1000) + 20)); // just after a window starts
      const window = Math.floor(Date.now() / 1000);
      const answers = await Promise.all(
        Array.from({ length: 2 * RATE_LIMIT }, (_, i) => fetch(`${i % 2 ? apiB.url : apiA.url}/domains`, { headers: { authorization: `Bearer ${apiKey}` } })),
      );
      await Promise.all(answers.map((a) => a.arrayBuffer()));
      if (Math.floor(Date.now() / 1000) !== window) continue; // spilled into the next window: again
      assert.deepEqual(new Set(answers.map((a) => a.status)), new Set([200, 429]));
      allowed = answers.filter((a) => a.status === 200).length;
    }
    assert.equal(allowed, RATE_LIMIT, 'both nodes together allow the limit once');

    // The survivor hands back what the dead worker held (after 10 s of silence). Waited for in
    // itself: the sink may already have every message, the dead worker's last ones received
    // before it could record them, while the queue still holds them as claimed.
    await eventually(async () => survivor!.lines.some((l) => l.includes('nodes stopped beating')), 60_000, 'the survivor reaping the dead node');
    // Every acknowledged email arrives and is recorded; twice only what the dead worker held.
    await eventually(
      async () =>
        new Set(messageIds(sink)).size >= acknowledged.length &&
        (await sql.query(`SELECT count(*)::int AS n FROM deliveries WHERE status = 'queued'`)).rows[0].n === 0,
      60_000,
      'every email delivered',
    );
    const delivered = messageIds(sink);
    assert.deepEqual([...new Set(delivered)].sort(), [...acknowledged].sort());
    const twice = delivered.length - new Set(delivered).size;
    assert.ok(twice <= inFlightAtDeath, `${twice} delivered twice, though the dead worker held only ${inFlightAtDeath}`);
  });
});
