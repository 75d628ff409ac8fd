// A broadcast end to end: created and sent with the SDK, fanned out to the segment's contacts
// (merge tags from contact fields and properties, topic scoping, unsubscribed contacts left
// out, suppressed addresses recorded but never attempted), received by the MX sink with
// RFC 8058 headers under DKIM; then a one-click unsubscribe through the List-Unsubscribe
// header, after which that contact gets no more broadcasts.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { verifyDkim } from '../delivery/support.js';
import type { TestPostline } from '../support/postline.js';
import {
  createContacts,
  createSegment,
  eventually,
  FROM,
  messagesTo,
  parsed,
  PUBLIC_URL,
  startBroadcastTest,
  untilBroadcastMailDone,
  visit,
  waitForStatus,
} from './support.js';

describe('broadcasts: sending to a segment', () => {
  let t: TestPostline;
  let segmentId: string;
  let topicId: string;
  let ids: Record<string, string>;
  before(async () => {
    t = await startBroadcastTest();
    const company = await t.resend.contactProperties.create({ key: 'company', type: 'string', fallbackValue: 'your company' });
    assert.equal(company.error, null, JSON.stringify(company.error));
    const topic = await t.resend.topics.create({ name: 'Product updates', defaultSubscription: 'opt_in' });
    assert.equal(topic.error, null, JSON.stringify(topic.error));
    topicId = topic.data!.id;
    segmentId = await createSegment(t);
    const list = await createContacts(t, segmentId, [
      { email: 'ann@example.org', firstName: 'Ann', properties: { company: 'Acme & Co' } },
      { email: 'bob@example.org' },
      { email: 'carol@example.org', firstName: 'Carol', unsubscribed: true },
      { email: 'dave@example.org', firstName: 'Dave' },
      { email: 'erin@example.org', firstName: 'Erin', topics: [{ id: topicId, subscription: 'opt_out' }] },
    ]);
    ids = Object.fromEntries(['ann', 'bob', 'carol', 'dave', 'erin'].map((name, i) => [name, list[i]!]));
    const suppressed = await t.resend.suppressions.add({ email: 'dave@example.org' });
    assert.equal(suppressed.error, null, JSON.stringify(suppressed.error));
    // Someone outside the segment gets nothing.
    await t.resend.contacts.create({ email: 'outsider@example.org' });
  });
  after(() => t.stop());

  let broadcastId: string;

  it('sends one email per subscribed contact, merge tags filled from the contact, escaped in html', async () => {
    const created = await t.resend.broadcasts.create({
      name: 'Launch',
      segmentId,
      topicId,
      from: FROM,
      subject: 'Hello {{{FIRST_NAME|friend}}}',
      previewText: 'What is new at {{{company}}}',
      html: '<html><body><p>Hi {{{FIRST_NAME|there}}} from {{{company}}}</p><a href="{{{RESEND_UNSUBSCRIBE_URL}}}">Unsubscribe</a></body></html>',
      send: true,
    });
    assert.equal(created.error, null, JSON.stringify(created.error));
    broadcastId = created.data!.id;
    await waitForStatus(t, broadcastId, 'sent');
    await t.sink.waitFor(2);

    const ann = await parsed(t, 'ann@example.org');
    assert.equal(ann.mail.subject, 'Hello Ann');
    assert.match(ann.mail.html!, /<p>Hi Ann from Acme &amp; Co<\/p>/);
    assert.match(ann.mail.html!, /<body><div style="display:none[^"]*">What is new at Acme &amp; Co<\/div>/);
    assert.deepEqual(ann.mail.from, { address: 'news@news.test', name: 'News' });
    const bob = await parsed(t, 'bob@example.org');
    assert.equal(bob.mail.subject, 'Hello friend');
    assert.match(bob.mail.html!, /<p>Hi there from your company<\/p>/, 'inline fallback, then the property fallback');

    await untilBroadcastMailDone(t, broadcastId);
    for (const name of ['carol', 'dave', 'erin', 'outsider']) assert.equal(messagesTo(t, `${name}@example.org`).length, 0, name);
    const { data } = await t.resend.broadcasts.get(broadcastId);
    assert.equal(data!.status, 'sent');
    assert.ok(data!.sent_at);
  });

  it('stores each email with its broadcast and contact; a suppressed address is recorded, never attempted', async () => {
    const rows = await t.sql(
      `SELECT e.contact_id, e.to_addresses, e.source, d.status, d.priority FROM emails e JOIN deliveries d ON d.email_id = e.id
        WHERE e.broadcast_id = $1 ORDER BY e.to_addresses[1]`,
      [broadcastId],
    );
    assert.deepEqual(
      rows.map((r) => [r.to_addresses[0], r.contact_id, r.source, r.status === 'suppressed' ? 'suppressed' : 'queued', r.priority]),
      [
        ['ann@example.org', ids.ann, 'broadcast', 'queued', 1],
        ['bob@example.org', ids.bob, 'broadcast', 'queued', 1],
        ['dave@example.org', ids.dave, 'broadcast', 'suppressed', 1],
      ],
    );
    const sent = await t.resend.broadcasts.recipients(broadcastId, { type: 'sent' });
    assert.equal(sent.error, null, JSON.stringify(sent.error));
    assert.deepEqual(sent.data!.data.map((r) => r.email).sort(), ['ann@example.org', 'bob@example.org']);
    const suppressed = await t.resend.broadcasts.recipients(broadcastId, { type: 'suppressed' });
    assert.deepEqual(
      suppressed.data!.data.map((r) => [r.email, r.contact_id]),
      [['dave@example.org', ids.dave]],
    );
    await eventually(async () => (await t.resend.broadcasts.recipients(broadcastId, { type: 'delivered' })).data!.data.length === 2);
  });

  let unsubscribeUrl: string;

  it('carries List-Unsubscribe with one-click (RFC 8058) under the DKIM signature, the same link as in the html', async () => {
    const { message, mail } = await parsed(t, 'ann@example.org');
    const header = (name: string) => mail.headers.find((h) => h.key === name)?.value;
    const listUnsubscribe = header('list-unsubscribe')!;
    const match = /^<(https:\/\/[^>]+)>$/.exec(listUnsubscribe);
    assert.ok(match, listUnsubscribe);
    unsubscribeUrl = match[1]!;
    assert.ok(unsubscribeUrl.startsWith(`${PUBLIC_URL}/unsubscribe/${ids.ann}/${broadcastId}/`), unsubscribeUrl);
    assert.equal(header('list-unsubscribe-post'), 'List-Unsubscribe=One-Click');
    assert.ok(mail.html!.includes(`href="${unsubscribeUrl}"`), 'RESEND_UNSUBSCRIBE_URL is the same link');
    assert.deepEqual(await verifyDkim(t, message.raw), [{ result: 'pass', domain: 'news.test' }]);
    const signed = /^DKIM-Signature:[\s\S]*?\bh=([^;]+);/im.exec(message.raw.toString('latin1'))![1]!.replace(/\s+/g, '').toLowerCase().split(':');
    assert.ok(signed.includes('list-unsubscribe') && signed.includes('list-unsubscribe-post'), signed.join(':'));
    const bobLink = (await parsed(t, 'bob@example.org')).mail.headers.find((h) => h.key === 'list-unsubscribe')!.value;
    assert.notEqual(bobLink, listUnsubscribe, 'each contact has a link of its own');
  });

  it('unsubscribes the contact on a one-click POST, without a page, recording contact.updated', async () => {
    const res = await visit(t, unsubscribeUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'List-Unsubscribe=One-Click',
    });
    assert.equal(res.status, 200);
    await res.text();
    const contact = await t.resend.contacts.get(ids.ann!);
    assert.equal(contact.data!.unsubscribed, true);
    const events = await t.sql(`SELECT data FROM events WHERE type = 'contact.updated' AND data->>'id' = $1`, [ids.ann]);
    assert.equal(events.length, 1);
    assert.equal(events[0].data.unsubscribed, true);
    const unsubscribed = await t.resend.broadcasts.recipients(broadcastId, { type: 'unsubscribed' });
    assert.deepEqual(
      unsubscribed.data!.data.map((r) => [r.email, r.contact_id]),
      [['ann@example.org', ids.ann]],
    );
  });

  it('never sends an unsubscribed contact another broadcast; without a topic the topic opt-out does not apply', async () => {
    const before = t.sink.messages.length;
    const second = await t.resend.broadcasts.create({ segmentId, from: FROM, subject: 'Second', text: 'Hello {{{EMAIL}}}', send: true });
    assert.equal(second.error, null, JSON.stringify(second.error));
    await waitForStatus(t, second.data!.id, 'sent');
    await t.sink.waitFor(before + 2);
    await untilBroadcastMailDone(t, second.data!.id);
    const got = t.sink.messages
      .slice(before)
      .flatMap((m) => m.to)
      .sort();
    assert.deepEqual(got, ['bob@example.org', 'erin@example.org']);
    const erin = t.sink.messages.slice(before).find((m) => m.to.includes('erin@example.org'))!;
    assert.match(erin.raw.toString(), /Hello erin@example\.org/);
  });

  it('refuses to delete or change a sent broadcast (403 naming its state)', async () => {
    const removed = await t.resend.broadcasts.remove(broadcastId);
    assert.equal(removed.error?.statusCode, 403);
    assert.equal(removed.error?.name, 'validation_error');
    assert.match(removed.error!.message, /`sent`/);
    const updated = await t.resend.broadcasts.update(broadcastId, { subject: 'Changed' });
    assert.equal(updated.error?.statusCode, 403);
    const sentAgain = await t.resend.broadcasts.send(broadcastId);
    assert.equal(sentAgain.error?.statusCode, 403);
    const canceled = await t.resend.broadcasts.cancel(broadcastId);
    assert.equal(canceled.error?.statusCode, 403);
    assert.equal((await t.resend.broadcasts.get(broadcastId)).data!.status, 'sent');
  });
});
