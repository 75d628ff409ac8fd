// POSTLINE_DELIVERY_CONCURRENCY: a node holds at most that many SMTP sessions at once in
// total, whatever the number of destinations. Twelve destinations, each its own MX host (so
// the per-host limit never binds), a sink that takes a second to answer DATA, and the most
// transactions the sink saw at once.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestPostline } from '../support/postline.js';
import { FROM, publishMx, startDeliveryTest } from './support.js';

const DOMAINS = Array.from({ length: 12 }, (_, i) => `dest${i}.test`);

describe('delivery: POSTLINE_DELIVERY_CONCURRENCY bounds parallel sessions', () => {
  let t: TestPostline;
  before(async () => {
    t = await startDeliveryTest({ POSTLINE_DELIVERY_CONCURRENCY: '2' });
    for (const domain of DOMAINS) publishMx(t, domain);
    t.sink.answerDelayMs = 1_000;
  });
  after(() => t.stop());

  async function sendToEveryDomain(round: string): Promise<void> {
    const before = t.sink.messages.length;
    t.sink.mostAnswering = 0;
    const { error } = await t.resend.batch.send(DOMAINS.map((domain) => ({ from: FROM, to: `${round}@${domain}`, subject: round, html: '<p>Hi</p>' })));
    assert.equal(error, null, JSON.stringify(error));
    await t.sink.waitFor(before + DOMAINS.length, 60_000);
  }

  it('with 2, never holds more than two sessions at once, and does hold two', async () => {
    await sendToEveryDomain('two');
    assert.equal(t.sink.mostAnswering, 2);
  });

  it('with 6, the same mail goes out over more sessions at once, never more than six', async () => {
    await t.restart({ POSTLINE_DELIVERY_CONCURRENCY: '6' });
    await sendToEveryDomain('six');
    assert.ok(t.sink.mostAnswering > 2 && t.sink.mostAnswering <= 6, `most at once: ${t.sink.mostAnswering}`);
  });
});
