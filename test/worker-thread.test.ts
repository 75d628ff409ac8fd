// POSTLINE_WORKER_THREAD both ways, whatever the machine's core count: with true the worker
// role's delivering parts run in a thread of their own (its pool and event loop show in
// /metrics under thread="worker"); with false they run on the main event loop (no such
// thread). Mail is delivered either way.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FROM, publishMx, send, startDeliveryTest, waitForLastEvent } from './delivery/support.js';
import { rawRequest, type TestPostline } from './support/postline.js';

describe('POSTLINE_WORKER_THREAD decides where the worker role runs', () => {
  let t: TestPostline;
  before(async () => {
    t = await startDeliveryTest({ POSTLINE_WORKER_THREAD: 'true' });
    publishMx(t, 'inbox.test');
  });
  after(() => t.stop());

  /** The `thread` labels of the pool gauge on /metrics. */
  async function threads(): Promise<string[]> {
    const res = await rawRequest(t, 'GET', '/metrics', { auth: null });
    assert.equal(res.status, 200);
    const labels = [...String(res.body).matchAll(/^postline_db_pool_max_connections\{thread="(\w+)"\}/gm)].map((m) => m[1]!);
    return [...new Set(labels)].sort();
  }

  async function delivered(to: string): Promise<void> {
    const id = await send(t, { from: FROM, to });
    await waitForLastEvent(t, id, 'delivered', 20_000);
  }

  it('true: a worker thread beside the main one, and mail delivered', async () => {
    assert.equal(t.postline.config.workerThread, true);
    await delivered('on@inbox.test');
    assert.deepEqual(await threads(), ['main', 'worker']);
  });

  it('false: the main thread alone, and mail delivered', async () => {
    await t.restart({ POSTLINE_WORKER_THREAD: 'false' });
    assert.equal(t.postline.config.workerThread, false);
    await delivered('off@inbox.test');
    assert.deepEqual(await threads(), ['main']);
  });
});
