// GET /broadcasts/:id/stats: a broadcast's figures, each the count of recipients that
// GET /broadcasts/:id/recipients lists for the same type (delivered, bounced, suppressed,
// opened, clicked, unsubscribed through its link); another account's broadcast and bad ids
// are not found.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Resend } from 'resend';
import { createAccount } from '../../src/accounts/accounts.js';
import { rawRequest, type TestPostline } from '../support/postline.js';
import { createContacts, createSegment, eventually, FROM, parsed, PUBLIC_URL, startBroadcastTest, visit, waitForStatus } from './support.js';

const TYPES = ['sent', 'delivered', 'opened', 'clicked', 'bounced', 'complained', 'unsubscribed', 'suppressed'] as const;

describe('broadcast stats', () => {
  let t: TestPostline;
  let broadcastId: string;
  let segmentId: string;
  before(async () => {
    t = await startBroadcastTest();
    const domain = (await t.resend.domains.list()).data!.data.find((d) => d.name === 'news.test')!;
    assert.equal((await t.resend.domains.update({ id: domain.id, openTracking: true, clickTracking: true })).error, null);
    t.sink.onRecipient = (address) => (address === 'gone@example.org' ? { code: 550, message: '5.1.1 No such user' } : undefined);
    assert.equal((await rawRequest(t, 'POST', '/suppressions', { body: { email: 'blocked@example.org' } })).status, 201);
    segmentId = await createSegment(t);
    await createContacts(
      t,
      segmentId,
      ['ann', 'bob', 'carol', 'gone', 'blocked'].map((name) => ({ email: `${name}@example.org` })),
    );
  });
  after(() => t.stop());

  const stats = async (id: string, key = t.apiKey) => rawRequest(t, 'GET', `/broadcasts/${id}/stats`, { auth: key });

  it('counts nothing for a draft', async () => {
    const { data } = await t.resend.broadcasts.create({ segmentId, from: FROM, subject: 'Draft', html: '<p>Hi</p>' });
    const res = await stats(data!.id);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, {
      object: 'broadcast_stats',
      id: data!.id,
      recipients: 0,
      sent: 0,
      delivered: 0,
      opened: 0,
      clicked: 0,
      bounced: 0,
      complained: 0,
      unsubscribed: 0,
      suppressed: 0,
    });
  });

  it('counts each outcome once per recipient, as /recipients lists them', async () => {
    const { data, error } = await t.resend.broadcasts.create({
      segmentId,
      from: FROM,
      subject: 'Figures',
      html: '<p><a href="https://news.test/pricing">Pricing</a> <a href="{{{RESEND_UNSUBSCRIBE_URL}}}">Unsubscribe</a></p>',
      send: true,
    });
    assert.equal(error, null, JSON.stringify(error));
    broadcastId = data!.id;
    await waitForStatus(t, broadcastId, 'sent');
    await t.sink.waitFor(3);
    await eventually(async () => (await stats(broadcastId)).body.bounced === 1, 15_000, 'the bounce recorded');

    const html = async (address: string) => (await parsed(t, address)).mail.html!;
    const urls = (text: string) => [...text.matchAll(/(?:href|src)="([^"]+)"/g)].map((m) => m[1]!.replace(/&amp;/g, '&'));
    const get = async (url: string) => (await visit(t, url)).arrayBuffer();
    // ann opens twice and clicks twice, bob opens once, carol unsubscribes through the link.
    const ann = urls(await html('ann@example.org'));
    const pixel = ann.find((u) => u.startsWith(`${PUBLIC_URL}/t/o/`))!;
    const click = ann.find((u) => u.startsWith(`${PUBLIC_URL}/t/c/`) && new URL(u).searchParams.get('url') === 'https://news.test/pricing')!;
    for (const url of [pixel, pixel, click, click]) await get(url);
    await get(urls(await html('bob@example.org')).find((u) => u.startsWith(`${PUBLIC_URL}/t/o/`))!);
    // The List-Unsubscribe header's link (the one in the body goes through click tracking).
    const header = (await parsed(t, 'carol@example.org')).mail.headers.find((h) => h.key === 'list-unsubscribe')!.value;
    const unsubscribe = /<(https:[^>]+)>/.exec(header)![1]!;
    const body = new URLSearchParams([['List-Unsubscribe', 'One-Click']]).toString();
    await (await visit(t, unsubscribe, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body })).text();

    const figures = (await stats(broadcastId)).body;
    assert.deepEqual(figures, {
      object: 'broadcast_stats',
      id: broadcastId,
      recipients: 5,
      sent: 4,
      delivered: 3,
      opened: 2,
      clicked: 1,
      bounced: 1,
      complained: 0,
      unsubscribed: 1,
      suppressed: 1,
    });
    for (const type of TYPES) {
      const listed = await t.resend.broadcasts.recipients(broadcastId, { type, limit: 100 });
      assert.equal(listed.data!.data.length, figures[type], `${type}: the figure is the length of the list`);
    }
  });

  it("answers 404 for another account's broadcast and an unknown id, 422 for a malformed one", async () => {
    const stranger = await createAccount(t.postline.db, 'stranger');
    const notFound = { statusCode: 404, message: 'Broadcast not found', name: 'not_found' };
    const theirs = await stats(broadcastId, stranger.token);
    assert.equal(theirs.status, 404);
    assert.deepEqual(theirs.body, notFound);
    assert.deepEqual((await stats(crypto.randomUUID())).body, notFound);
    assert.deepEqual((await stats('not-an-id')).body, { statusCode: 422, message: 'The `id` must be a valid UUID.', name: 'validation_error' });
    // Their own key sees their own (empty) broadcast's figures, not ours.
    const mine = new Resend(stranger.token, { baseUrl: t.url });
    const segment = await mine.segments.create({ name: 'Theirs' });
    const draft = await mine.broadcasts.create({ segmentId: segment.data!.id, from: FROM, subject: 'Theirs', html: '<p>x</p>' });
    assert.equal((await stats(draft.data!.id, stranger.token)).body.recipients, 0);
  });
});
