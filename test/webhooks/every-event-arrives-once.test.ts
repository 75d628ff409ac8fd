import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestPostline } from '../support/postline.js';
import { eventually, publishMx, recordedEvents, send, SENDER_DOMAIN, sleep, startWebhookTest, subscribe, WebhookReceiver } from './support.js';

const EMAIL_EVENTS = ['email.sent', 'email.delivered', 'email.delivery_delayed', 'email.bounced', 'email.complained', 'email.failed'];

describe('webhooks: every lifecycle event of every email arrives once, signed', () => {
  let t: TestPostline;
  let receiver: WebhookReceiver;
  let webhookId: string;
  before(async () => {
    t = await startWebhookTest({ POSTLINE_RETRY_DELAYS: '300ms' });
    receiver = await new WebhookReceiver(t.resend).start();
    webhookId = await subscribe(t, receiver, [...EMAIL_EVENTS, 'domain.created', 'domain.updated']);
    publishMx(t, 'inbox.test');
    // ok@ accepts, ghost@ is refused (5xx), grey@ is deferred (4xx) once and then accepted.
    let greylisted = false;
    t.sink.onRecipient = (address) => {
      if (address.startsWith('ghost')) return { code: 550, message: '5.1.1 No such user' };
      if (address.startsWith('grey') && !greylisted) {
        greylisted = true;
        return { code: 451, message: '4.7.1 Greylisted' };
      }
      return undefined;
    };
  });
  after(async () => {
    await t.stop();
    await receiver.stop();
  });

  it('delivers sent, delivered, delivery_delayed and bounced, each exactly once after dedupe', async () => {
    const ids = [
      await send(t, {
        to: 'ok@inbox.test',
        tags: [
          { name: 'order', value: '42' },
          { name: 'kind', value: 'receipt' },
        ],
      }),
      await send(t, { to: 'ghost@inbox.test' }),
      await send(t, { to: 'grey@inbox.test' }),
      await send(t, { to: ['ok2@inbox.test', 'ghost2@inbox.test'] }),
      await send(t, { to: 'complained@resend.dev' }),
    ];
    // Every email reaches a final state, then every recorded event must come through.
    await eventually(
      async () => {
        const rows = await t.sql(`SELECT count(*)::int AS n FROM deliveries WHERE email_id = ANY($1) AND status = 'queued'`, [ids]);
        return rows[0].n === 0;
      },
      20_000,
      'final delivery states',
    );
    const recorded = await recordedEvents(t, ids);
    const types = new Set(recorded.map((e) => e.type));
    for (const type of ['email.sent', 'email.delivered', 'email.delivery_delayed', 'email.bounced', 'email.complained']) assert.ok(types.has(type), type);
    const ofEmails = () => receiver.payloads().filter((p) => ids.includes(p.data.email_id));
    await receiver.waitUntil(() => ofEmails().length >= recorded.length, 15_000, `${recorded.length} email webhooks`);
    await sleep(500); // anything doubled would have arrived by now

    // Exactly once after dedupe by svix-id, and no message sent twice while the receiver was healthy.
    const received = ofEmails();
    assert.equal(received.length, recorded.length);
    const key = (type: string, data: any) => `${type} ${data.email_id} ${[...data.to].sort().join(',')}`;
    assert.deepEqual(received.map((p) => key(p.type, p.data)).sort(), recorded.map((e) => key(e.type, e.data)).sort());
    assert.deepEqual(receiver.rejected, []);
    assert.ok(
      [...receiver.attempts.values()].every((n) => n === 1),
      'one request per message',
    );

    // The envelope: the event's own type, ISO created_at and the outbox's data, byte for byte.
    for (const event of recorded) {
      const payload = received.find((p) => key(p.type, p.data) === key(event.type, event.data))!;
      assert.deepEqual(Object.keys(payload), ['type', 'created_at', 'data']);
      assert.equal(payload.created_at, event.created_at.toISOString());
      assert.deepEqual(payload.data, event.data);
    }
    const sent = received.find((p) => p.type === 'email.sent' && p.data.email_id === ids[0])!;
    assert.deepEqual(sent.data.tags, { order: '42', kind: 'receipt' }, 'tags are an object in webhooks');
    assert.equal(sent.data.from, `Postline Tests <hello@${SENDER_DOMAIN}>`);
    assert.deepEqual(sent.data.to, ['ok@inbox.test']);
    assert.match(sent.data.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const bounced = received.find((p) => p.type === 'email.bounced' && p.data.email_id === ids[1])!;
    assert.equal(bounced.data.bounce.type, 'Permanent');
    assert.deepEqual(bounced.data.bounce.diagnosticCode, ['550 5.1.1 No such user']);
  });

  it('signs with svix-* and webhook-* headers alike, as JSON', async () => {
    const webhook = receiver.requests.at(-1)!;
    const h = webhook.headers;
    assert.match(String(h['svix-id']), /^msg_[A-Za-z0-9]+$/);
    assert.equal(h['webhook-id'], h['svix-id']);
    assert.equal(h['webhook-timestamp'], h['svix-timestamp']);
    assert.equal(h['webhook-signature'], h['svix-signature']);
    assert.match(String(h['svix-signature']), /^v1,[A-Za-z0-9+/]+=*$/);
    assert.ok(Math.abs(Number(h['svix-timestamp']) - Date.now() / 1000) < 60, 'timestamp in Unix seconds');
    assert.match(String(h['content-type']), /^application\/json/);
  });

  it('reports domain events with the domain payload', async () => {
    await t.resend.domains.create({ name: 'second.test' });
    await receiver.waitUntil(() => receiver.payloads('domain.created').some((p) => p.data.name === 'second.test'));
    const payload = receiver.payloads('domain.created').find((p) => p.data.name === 'second.test')!;
    assert.deepEqual(Object.keys(payload.data).sort(), ['created_at', 'id', 'name', 'records', 'region', 'status']);
    assert.equal(payload.data.status, 'not_started');
    assert.ok(payload.data.records.some((r: any) => r.record === 'DKIM'));
  });

  it('sends only the subscribed types, and nothing to a disabled endpoint', async () => {
    // domain.deleted is not subscribed: produce one and wait until the fan-out has read past it.
    const { data: domains } = await t.resend.domains.list();
    const second = domains!.data.find((d) => d.name === 'second.test')!;
    await t.resend.domains.remove(second.id);
    const [deleted] = await t.sql(`SELECT id FROM events WHERE type = 'domain.deleted' AND data->>'id' = $1`, [second.id]);
    assert.ok(deleted, 'the deletion recorded a domain.deleted event');
    await fannedOut(t, deleted.id);
    const messages = await t.sql(`SELECT count(*)::int AS n FROM webhook_messages WHERE event_id = $1`, [deleted.id]);
    assert.equal(messages[0].n, 0, 'no message for an unsubscribed type');
    assert.deepEqual(receiver.payloads('domain.deleted'), []);
    assert.ok(receiver.payloads().every((p) => [...EMAIL_EVENTS, 'domain.created', 'domain.updated'].includes(p.type)));

    await t.resend.webhooks.update(webhookId, { status: 'disabled' });
    const before = receiver.requests.length;
    const id = await send(t, { to: 'ok3@inbox.test' });
    const delivered = await eventually(async () => (await recordedEvents(t, [id])).find((e) => e.type === 'email.delivered'));
    await fannedOut(t, delivered.id);
    const fannedToIt = await t.sql(`SELECT count(*)::int AS n FROM webhook_messages m JOIN events e ON e.id = m.event_id WHERE e.email_id = $1`, [id]);
    assert.equal(fannedToIt[0].n, 0, 'events of a disabled endpoint are not fanned out to it');
    assert.equal(receiver.requests.length, before);
  });
});

/** Until the fan-out's cursor has passed this event: whatever messages it makes exist by then. */
async function fannedOut(t: TestPostline, eventId: number): Promise<void> {
  await eventually(
    async () => {
      const [row] = await t.sql(`SELECT (c.last_txid, c.last_id) >= (e.txid, e.id) AS passed FROM webhook_cursor c, events e WHERE e.id = $1`, [eventId]);
      return row.passed;
    },
    15_000,
    `the fan-out to pass event ${eventId}`,
  );
}
