import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { recordEvents } from '../../src/events/record-events.js';
import { within } from '../support/eventually.js';
import type { TestPostline } from '../support/postline.js';
import { recordedEvents, send, sleep, startWebhookTest, subscribe, WebhookReceiver } from './support.js';

// Event ids come from a sequence when the row is inserted, not when it commits: a
// transaction that records an event and commits late leaves a lower id behind events that
// were already dispatched. The fan-out must neither skip it nor dispatch around it.
describe('webhooks: an event committed after later events is still delivered', () => {
  let t: TestPostline;
  let receiver: WebhookReceiver;
  before(async () => {
    t = await startWebhookTest();
    receiver = await new WebhookReceiver(t.resend).start();
  });
  after(async () => {
    await t.stop();
    await receiver.stop();
  });

  it('waits for the open transaction, then delivers both events', async () => {
    await subscribe(t, receiver, ['email.sent', 'domain.updated']);
    const [{ id: accountId }] = await t.sql('SELECT id FROM accounts ORDER BY created_at LIMIT 1');
    // A state change in flight: its event (through the one event writer) has the lower id.
    let commit!: () => void;
    const open = new Promise<void>((resolve) => (commit = resolve));
    let recorded!: () => void;
    const inserted = new Promise<void>((resolve) => (recorded = resolve));
    const slow = t.postline.db.tx(async (q) => {
      const data = { id: 'late', name: 'late.test', status: 'verified', created_at: new Date().toISOString(), region: 'us-east-1', records: [] };
      await recordEvents(q, [{ accountId, type: 'domain.updated', data }]);
      recorded();
      await open;
    });
    await within(inserted, 10_000, 'the open transaction to record its event');
    const emailId = await send(t, { to: 'delivered@resend.dev' });
    const [sent] = (await recordedEvents(t, [emailId])).filter((e) => e.type === 'email.sent');
    const [late] = await t.sql(`SELECT id FROM events WHERE data->>'id' = 'late'`);
    assert.equal(late, undefined, 'not visible before it commits');
    assert.ok(sent);

    // Showing that nothing happens takes a wait: twenty of the fan-out's polls (25 ms apart).
    await sleep(500);
    assert.equal(receiver.requests.length, 0, 'events after an open transaction wait for it');
    commit();
    await slow;
    await receiver.waitUntil(() => receiver.unique.size === 2, 5_000);
    const [lateRow] = await t.sql(`SELECT id FROM events WHERE data->>'id' = 'late'`);
    assert.ok(lateRow.id < sent!.id, 'the late event has the lower id');
    assert.deepEqual(
      receiver
        .payloads()
        .map((p) => p.type)
        .sort(),
      ['domain.updated', 'email.sent'],
    );
    assert.deepEqual(receiver.rejected, []);
  });
});
