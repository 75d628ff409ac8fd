// POSTLINE_OUTBOUND_IPS on loopback: outgoing connections leave from 127.0.0.2 and 127.0.0.3 in
// turn (the MX sink sees each message's source address), and a domain pinned to one of them
// through PATCH /domains/:id sends only from it. An address that is not listed is refused.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestPostline } from '../support/postline.js';
import { eventually, publishMx, send, SENDER_DOMAIN, startDeliveryTest } from './support.js';

describe('delivery: outgoing connections bound to POSTLINE_OUTBOUND_IPS', () => {
  let t: TestPostline;
  let domainId: string;

  before(async () => {
    t = await startDeliveryTest({ POSTLINE_OUTBOUND_IPS: '127.0.0.2,127.0.0.3' });
    publishMx(t, 'inbox.test', [{ name: 'mx.inbox.test', priority: 10, address: '127.0.0.1' }]);
    domainId = (await t.sql('SELECT id FROM domains WHERE name = $1', [SENDER_DOMAIN]))[0].id;
  });
  after(() => t.stop());

  const sources = (prefix: string) => new Set(t.sink.messages.filter((m) => m.to[0]!.startsWith(prefix)).map((m) => m.remoteAddress.replace(/^::ffff:/, '')));

  it('sends from each listed address in turn', async () => {
    for (let i = 0; i < 6; i++) await send(t, { to: `turn${i}@inbox.test` });
    await eventually(async () => t.sink.messages.filter((m) => m.to[0]!.startsWith('turn')).length === 6, 15_000);
    assert.deepEqual(sources('turn'), new Set(['127.0.0.2', '127.0.0.3']));
  });

  it('sends a pinned domain’s mail only from its addresses', async () => {
    const refused = await patch(t, domainId, { outbound_ips: ['127.0.0.9'] });
    assert.equal(refused.status, 422);
    assert.match(refused.body.message, /127\.0\.0\.9 is not one of POSTLINE_OUTBOUND_IPS/);
    const pinned = await patch(t, domainId, { outbound_ips: ['127.0.0.3'] });
    assert.equal(pinned.status, 200, JSON.stringify(pinned.body));
    const res = await fetch(`${t.url}/domains/${domainId}`, { headers: { authorization: `Bearer ${t.apiKey}` } });
    assert.deepEqual((await res.json()).outbound_ips, ['127.0.0.3']);
    for (let i = 0; i < 6; i++) await send(t, { to: `pinned${i}@inbox.test` });
    await eventually(async () => t.sink.messages.filter((m) => m.to[0]!.startsWith('pinned')).length === 6, 15_000);
    assert.deepEqual(sources('pinned'), new Set(['127.0.0.3']));
  });
});

async function patch(t: TestPostline, id: string, body: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${t.url}/domains/${id}`, {
    method: 'PATCH',
    headers: { authorization: `Bearer ${t.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}
