import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestPostline } from '../support/postline.js';
import { deliveriesOf, eventsOf, send, startDeliveryTest, waitForLastEvent } from './support.js';

describe('delivery: domains that can never receive mail bounce without a connection', () => {
  let t: TestPostline;
  before(async () => {
    t = await startDeliveryTest();
  });
  after(() => t.stop());

  it('bounces mail for a domain that does not exist (NXDOMAIN)', async () => {
    const connections = t.sink.connections;
    const id = await send(t, { to: 'someone@no-such-domain.test' });
    await waitForLastEvent(t, id, 'bounced');
    const bounce = (await eventsOf(t, id)).at(-1)!.data.bounce;
    assert.equal(bounce.type, 'Permanent');
    assert.equal(bounce.subType, 'General');
    assert.match(bounce.diagnosticCode[0], /^550 5\.1\.2 no-such-domain\.test: the domain does not exist/);
    const [row] = await deliveriesOf(t, id);
    assert.equal(row.status, 'bounced');
    assert.match(row.last_response, /^550 5\.1\.2/);
    assert.equal(t.sink.connections, connections);
  });

  it('bounces mail for a domain that publishes a null MX (RFC 7505)', async () => {
    t.dns.set('null-mx.test', { MX: [{ exchange: '.', priority: 0 }], A: ['127.0.0.1'] });
    const connections = t.sink.connections;
    const id = await send(t, { to: 'someone@null-mx.test' });
    await waitForLastEvent(t, id, 'bounced');
    const [row] = await deliveriesOf(t, id);
    assert.match(row.last_response, /^556 5\.1\.10 null-mx\.test/);
    assert.equal(t.sink.connections, connections, 'the A record is not used when a null MX says no mail');
  });

  it('bounces mail for an existing domain with neither MX nor address records', async () => {
    t.dns.set('txt-only.test', { TXT: ['v=spf1 -all'] });
    const id = await send(t, { to: 'someone@txt-only.test' });
    await waitForLastEvent(t, id, 'bounced');
    const [row] = await deliveriesOf(t, id);
    assert.match(row.last_response, /^550 5\.1\.2 txt-only\.test: the domain has neither MX nor A\/AAAA records/);
  });
});
