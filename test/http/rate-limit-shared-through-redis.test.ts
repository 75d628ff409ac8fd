// With REDIS_URL, the per-account rate limit is one budget for all nodes; with Redis out of
// reach, every node keeps serving, limiting on its own counters, headers included.
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createLogger } from '../../src/logger.js';
import { startPostline, type Postline } from '../../src/server.js';
import { rawRequest, startTestPostline, type TestPostline } from '../support/postline.js';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const LIMIT = 4;

/** Redis is a prerequisite of this file; on a developer machine without it, say so and skip (never in CI). */
async function redisMissing(): Promise<string | false> {
  const { hostname, port } = new URL(REDIS_URL);
  const reachable = await new Promise<boolean>((resolve) => {
    const socket = net.connect({ host: hostname, port: Number(port || 6379), timeout: 1000 });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket
      .on('connect', () => done(true))
      .on('error', () => done(false))
      .on('timeout', () => done(false));
  });
  if (reachable || process.env.CI === 'true') return false;
  return `no Redis at ${REDIS_URL} (set TEST_REDIS_URL)`;
}

/** Waits for the start of the next one-second window, so a burst stays within one window. */
async function startOfWindow(): Promise<void> {
  await new Promise((r) => setTimeout(r, 1000 - (Date.now() % 1000) + 30));
}

/** Until a node has connected to Redis it counts on its own: wait until two nodes share a counter. */
async function untilShared(nodes: string[], apiKey: string): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    await startOfWindow();
    const a = await rawRequest({ url: nodes[0]!, apiKey }, 'GET', '/api-keys');
    const b = await rawRequest({ url: nodes[1]!, apiKey }, 'GET', '/api-keys');
    if (b.headers.get('ratelimit-remaining') === String(Number(a.headers.get('ratelimit-remaining')) - 1)) return;
    assert.ok(attempt < 15, 'the nodes never shared a counter');
  }
}

/** A TCP forwarder to Redis that the test can cut (an outage) and restore on the same port. */
class RedisLink {
  private server: net.Server | undefined;
  private sockets = new Set<net.Socket>();
  port = 0;
  async up(): Promise<this> {
    const target = new URL(REDIS_URL);
    this.server = net.createServer((client) => {
      const upstream = net.connect(Number(target.port || 6379), target.hostname);
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on('close', () => this.sockets.delete(s));
        s.on('error', () => {});
      }
      client.pipe(upstream).pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    this.server.listen(this.port, '127.0.0.1');
    await new Promise((r) => this.server!.once('listening', r));
    this.port = (this.server.address() as net.AddressInfo).port;
    return this;
  }
  async down(): Promise<void> {
    const closed = new Promise((r) => this.server?.close(r));
    for (const s of this.sockets) s.destroy();
    await closed;
  }
}

describe('rate limit shared through Redis', { skip: await redisMissing() }, () => {
  let t: TestPostline;
  let second: Postline;
  let deadRedis: Postline;
  before(async () => {
    // Each test Postline has its own account (a fresh database), so its Redis keys are its own.
    t = await startTestPostline({ env: { REDIS_URL, POSTLINE_RATE_LIMIT: String(LIMIT) } });
    // A second node on the same database and Redis.
    second = await startPostline({ ...t.postline.config, port: 0 });
    // Its one "Redis unavailable" warning is expected: keep it out of the test output.
    const quiet = { logger: createLogger('error') };
    deadRedis = await startPostline({ ...t.postline.config, port: 0, redisUrl: 'redis://127.0.0.1:1' }, quiet);
  });
  after(async () => {
    await second?.stop();
    await deadRedis?.stop();
    await t?.stop();
  });

  it('counts requests to both nodes against one budget', async () => {
    const nodes = [t.url, second.url!];
    await untilShared(nodes, t.apiKey);
    await startOfWindow();
    const responses = [];
    for (let i = 0; i < LIMIT + 2; i++) {
      responses.push(await rawRequest({ url: nodes[i % 2]!, apiKey: t.apiKey }, 'GET', '/api-keys'));
    }
    assert.deepEqual(
      responses.map((r) => r.status),
      [200, 200, 200, 200, 429, 429],
    );
    assert.deepEqual(
      responses.map((r) => r.headers.get('ratelimit-remaining')),
      ['3', '2', '1', '0', '0', '0'],
    );
    for (const r of responses) {
      assert.equal(r.headers.get('ratelimit-limit'), String(LIMIT));
      assert.equal(r.headers.get('ratelimit-policy'), `${LIMIT};w=1`);
    }
    assert.equal(responses[5]!.body.name, 'rate_limit_exceeded');
    assert.equal(responses[5]!.headers.get('retry-after'), '1');
  });

  it('keeps serving, with headers and a per-node limit, when Redis is unreachable', async () => {
    const node = { url: deadRedis.url!, apiKey: t.apiKey };
    await startOfWindow();
    const started = Date.now();
    const responses = [];
    for (let i = 0; i < LIMIT + 1; i++) responses.push(await rawRequest(node, 'GET', '/api-keys'));
    assert.ok(Date.now() - started < 500, `requests waited for Redis: ${Date.now() - started} ms`);
    assert.deepEqual(
      responses.map((r) => r.status),
      [200, 200, 200, 200, 429],
    );
    for (const r of responses) assert.equal(r.headers.get('ratelimit-limit'), String(LIMIT));
  });

  it('falls back to per-node counting during a Redis outage and shares again once it is back', async () => {
    const link = await new RedisLink().up();
    const quiet = { logger: createLogger('error') };
    const config = { ...t.postline.config, port: 0, redisUrl: `redis://127.0.0.1:${link.port}` };
    const a = await startPostline(config, quiet);
    const b = await startPostline(config, quiet);
    try {
      const nodes = [a.url!, b.url!];
      await untilShared(nodes, t.apiKey);

      await link.down();
      await startOfWindow();
      const started = Date.now();
      const statuses = [];
      for (let i = 0; i < LIMIT + 2; i++) {
        statuses.push((await rawRequest({ url: nodes[i % 2]!, apiKey: t.apiKey }, 'GET', '/api-keys')).status);
      }
      assert.ok(Date.now() - started < 500, `requests waited for Redis: ${Date.now() - started} ms`);
      assert.deepEqual(statuses, [200, 200, 200, 200, 200, 200], 'each node counts its own 3 requests');

      await link.up();
      await untilShared(nodes, t.apiKey);
    } finally {
      await a.stop();
      await b.stop();
      await link.down();
    }
  });
});
