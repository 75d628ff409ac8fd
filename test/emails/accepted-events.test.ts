// The accepting write (src/emails/persist-and-enqueue.ts): emails, their queue rows and their
// email.sent events go in one statement, committed alone when nothing else must be written
// (group-commit.ts), or inside a transaction with the idempotent response or the rows of
// suppressed recipients. Either way each email gets exactly one email.sent, in submission
// order, whose data carries the email's own created_at, the one GET /emails shows.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createVerifiedDomain } from '../support/domains.js';
import { rawRequest, startTestPostline, type TestPostline } from '../support/postline.js';

const FROM = 'Acme <hello@acme.test>';

describe('emails: the events written with accepted emails', () => {
  let t: TestPostline;
  before(async () => {
    t = await startTestPostline({ roles: ['api'] }); // no worker: the events are only the accepting ones
    await createVerifiedDomain(t, 'acme.test');
  });
  after(() => t.stop());

  /** email.sent of each id, in event order, with the email's created_at. */
  const sentEvents = (ids: string[]) =>
    t.sql(
      `SELECT ev.email_id, ev.data, e.created_at FROM events ev JOIN emails e ON e.id = ev.email_id
        WHERE ev.type = 'email.sent' AND ev.email_id = ANY($1::uuid[]) ORDER BY ev.id`,
      [ids],
    );

  const checkSent = async (ids: string[]) => {
    const events = await sentEvents(ids);
    assert.deepEqual(
      events.map((e) => e.email_id),
      ids,
      'one email.sent per email, in submission order',
    );
    for (const event of events) {
      assert.equal(event.data.created_at, event.created_at.toISOString(), "the email's created_at, as the database set it");
      assert.equal(event.data.email_id, event.email_id);
      const { data } = await t.resend.emails.get(event.email_id);
      assert.equal(new Date(data!.created_at).toISOString(), event.data.created_at);
    }
  };

  it('writes a batch and its events with one statement', async () => {
    const { data, error } = await t.resend.batch.send(
      Array.from({ length: 5 }, (_, i) => ({
        from: FROM,
        to: `user${i}@example.org`,
        subject: `n${i}`,
        html: `<p>${i}</p>`,
        tags: [{ name: 'n', value: String(i) }],
      })),
    );
    assert.equal(error, null, JSON.stringify(error));
    const ids = data!.data.map((d) => d.id);
    await checkSent(ids);
    const [event] = await sentEvents([ids[2]!]);
    assert.deepEqual(event.data.tags, { n: '2' });
    assert.deepEqual(event.data.to, ['user2@example.org']);
  });

  it('writes an email with an Idempotency-Key in one transaction with its response, and replays it', async () => {
    const body = { from: FROM, to: 'once@example.org', subject: 'Once', html: '<p>once</p>' };
    const headers = { 'idempotency-key': `key-${Date.now()}` };
    const first = await rawRequest(t, 'POST', '/emails', { body, headers });
    assert.equal(first.status, 200, JSON.stringify(first.body));
    const again = await rawRequest(t, 'POST', '/emails', { body, headers });
    assert.deepEqual(again.body, first.body);
    await checkSent([first.body.id]);
  });

  it('keeps each email its own message when emails with and without one are written together', async () => {
    // Sent at once, these share transactions (group-commit.ts): their messages travel packed in
    // one parameter (persist-and-enqueue.ts packed()), emails composed at delivery as none.
    const sends = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        t.resend.emails.send({
          from: FROM,
          to: `mixed${i}@example.org`,
          subject: `Mixed ${i}`,
          html: `<p>${i}</p>`,
          ...(i % 2 ? { attachments: [{ filename: `file-${i}.txt`, content: Buffer.from(`attachment of email ${i}`) }] } : {}),
        }),
      ),
    );
    for (const [i, { data, error }] of sends.entries()) {
      assert.equal(error, null, JSON.stringify(error));
      const [row] = await t.sql(`SELECT mime, unsigned_mime FROM emails WHERE id = $1`, [data!.id]);
      assert.equal(row.unsigned_mime, null);
      if (i % 2 === 0) {
        assert.equal(row.mime, null, `email ${i} is composed at delivery`);
        continue;
      }
      const message = (row.mime as Buffer).toString();
      assert.match(message, new RegExp(`^Subject: Mixed ${i}\\r$`, 'm'), `email ${i} holds its own message`);
      assert.ok(message.includes(Buffer.from(`attachment of email ${i}`).toString('base64')), `email ${i} holds its own attachment`);
      assert.ok(message.trimEnd().endsWith('--'), `email ${i}'s message is whole`);
    }
    const ids = sends.map((s) => s.data!.id);
    assert.deepEqual((await sentEvents(ids)).map((e) => e.email_id).sort(), [...ids].sort(), 'one email.sent each');
  });

  it('writes suppressed recipients beside the email in one transaction: email.sent, then email.suppressed', async () => {
    const topic = (await t.resend.topics.create({ name: 'Offers', defaultSubscription: 'opt_out' })).data!.id;
    const { data, error } = await t.resend.emails.send({
      from: FROM,
      to: 'stranger@example.org',
      subject: 'Offer',
      html: '<p>50% off</p>',
      topicId: topic,
    } as any);
    assert.equal(error, null, JSON.stringify(error));
    await checkSent([data!.id]);
    const types = (await t.sql(`SELECT type FROM events WHERE email_id = $1 ORDER BY id`, [data!.id])).map((r) => r.type);
    assert.deepEqual(types, ['email.sent', 'email.suppressed']);
  });
});
