import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestPostline } from '../support/postline.js';
import { send, startDeliveryTest, verifyDkim, waitForLastEvent } from './support.js';

describe('delivery: a domain without MX records receives at its A record (RFC 5321 §5.1)', () => {
  let t: TestPostline;
  before(async () => {
    t = await startDeliveryTest();
  });
  after(() => t.stop());

  it('connects to the address of the domain itself when it has no MX', async () => {
    t.dns.set('a-only.test', { A: ['127.0.0.1'] });
    const before = t.sink.messages.length;
    const id = await send(t, { to: 'postmaster@a-only.test' });
    await waitForLastEvent(t, id, 'delivered');
    assert.deepEqual(t.sink.messages[before]!.to, ['postmaster@a-only.test']);
    assert.equal((await verifyDkim(t, t.sink.messages[before]!.raw))[0]!.result, 'pass');
    const queried = t.dns.queries.filter((q) => q.name === 'a-only.test').map((q) => q.type);
    assert.ok(queried.includes('MX') && queried.includes('A'), queried.join(' '));
  });
});
