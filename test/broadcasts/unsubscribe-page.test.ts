// The unsubscribe link of a broadcast as a person (a browser) and a mail client use it: the
// preference page with the account's public topics, choosing topics through its form, the
// RFC 8058 one-click POST as multipart/form-data, subscribing again, and forged links, which
// show a 404 page and change nothing.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createAccount } from '../../src/accounts/accounts.js';
import { rawRequest, type TestPostline } from '../support/postline.js';
import { alteredSignature } from '../support/altered-signature.js';
import {
  createContacts,
  createSegment,
  FROM,
  messagesTo,
  parsed,
  PUBLIC_URL,
  startBroadcastTest,
  untilBroadcastMailDone,
  visit,
  waitForStatus,
} from './support.js';

describe('unsubscribe page and one-click', () => {
  let t: TestPostline;
  let segmentId: string;
  let updates: string;
  let offers: string;
  let internal: string;
  let ann: string;
  let bob: string;
  let broadcastId: string;
  const links: Record<string, string> = {};

  before(async () => {
    t = await startBroadcastTest();
    const topic = async (name: string, defaultSubscription: 'opt_in' | 'opt_out', visibility: string) => {
      const { data, error } = await t.resend.topics.create({ name, defaultSubscription, description: `About ${name}`, visibility } as any);
      assert.equal(error, null, JSON.stringify(error));
      return data!.id;
    };
    updates = await topic('Product updates', 'opt_in', 'public');
    offers = await topic('Offers <&>', 'opt_out', 'public');
    internal = await topic('Internal', 'opt_in', 'private');
    segmentId = await createSegment(t);
    [ann, bob] = await createContacts(t, segmentId, [{ email: 'ann@example.org' }, { email: 'bob@example.org' }]);
    const { data, error } = await t.resend.broadcasts.create({
      segmentId,
      topicId: updates,
      from: FROM,
      subject: 'Updates',
      html: '<p>News</p><a href="{{{RESEND_UNSUBSCRIBE_URL}}}">Unsubscribe</a>',
      send: true,
    });
    assert.equal(error, null, JSON.stringify(error));
    broadcastId = data!.id;
    await waitForStatus(t, broadcastId, 'sent');
    await t.sink.waitFor(2);
    for (const address of ['ann@example.org', 'bob@example.org']) {
      const { mail } = await parsed(t, address);
      links[address] = /href="([^"]+)">Unsubscribe/.exec(mail.html!)![1]!;
    }
  });
  after(() => t.stop());

  const contactEvents = async (id: string) =>
    (await t.sql(`SELECT count(*)::int AS n FROM events WHERE type = 'contact.updated' AND data->>'id' = $1`, [id]))[0].n as number;
  const form = (fields: [string, string][]) => ({
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  });

  it('shows a preference page with the public topics and the broadcast’s, current choices ticked', async () => {
    const res = await visit(t, links['ann@example.org']!);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type')!, /^text\/html/);
    assert.match(res.headers.get('cache-control')!, /no-store/);
    const html = await res.text();
    assert.match(html, /ann@example\.org/);
    assert.match(html, /Unsubscribe from all emails/);
    assert.match(html, new RegExp(`value="${updates}" checked> Product updates`));
    assert.match(html, new RegExp(`value="${offers}"> Offers &lt;&amp;&gt;`), 'unticked by default, escaped');
    assert.doesNotMatch(html, /Internal/, 'a private topic is not shown');
    assert.doesNotMatch(html, new RegExp(internal));
  });

  it('shows a 404 page for a forged or altered link and changes nothing', async () => {
    const url = new URL(links['ann@example.org']!);
    const [, , contactId, broadcast, signature] = url.pathname.split('/');
    const bobSignature = new URL(links['bob@example.org']!).pathname.split('/')[4];
    const forged = [
      `${PUBLIC_URL}/unsubscribe/${contactId}/${broadcast}/${alteredSignature(signature!)}`, // altered, never the real one
      `${PUBLIC_URL}/unsubscribe/${bob}/${broadcast}/${signature}`,
      `${PUBLIC_URL}/unsubscribe/${contactId}/${crypto.randomUUID()}/${signature}`,
      `${PUBLIC_URL}/unsubscribe/${contactId}/${broadcast}/${bobSignature}`,
      `${PUBLIC_URL}/unsubscribe/not-a-uuid/${broadcast}/${signature}`,
    ];
    const before = await contactEvents(ann);
    for (const link of forged) {
      const page = await visit(t, link);
      assert.equal(page.status, 404, link);
      assert.match(await page.text(), /This link is not valid/);
      const post = await visit(t, link, form([['List-Unsubscribe', 'One-Click']]));
      assert.equal(post.status, 404, link);
      await post.text();
    }
    assert.equal(await contactEvents(ann), before);
    assert.equal((await t.resend.contacts.get(ann)).data!.unsubscribed, false);
  });

  it('saves topic choices from the form; opting out of the broadcast’s topic counts as unsubscribed from it', async () => {
    const before = await contactEvents(ann);
    const res = await visit(
      t,
      links['ann@example.org']!,
      form([
        ['action', 'topics'],
        ['topic', offers],
      ]),
    );
    assert.equal(res.status, 200);
    assert.match(await res.text(), /preferences have been saved/);
    const { data } = await t.resend.contacts.topics.list({ id: ann });
    const choice = Object.fromEntries(data!.data.map((topic: any) => [topic.id, topic.subscription]));
    assert.equal(choice[updates], 'opt_out');
    assert.equal(choice[offers], 'opt_in');
    assert.equal(await contactEvents(ann), before + 1);
    assert.equal((await t.resend.contacts.get(ann)).data!.unsubscribed, false, 'still receives other mail');
    const unsubscribed = await t.resend.broadcasts.recipients(broadcastId, { type: 'unsubscribed' });
    assert.deepEqual(
      unsubscribed.data!.data.map((r) => r.contact_id),
      [ann],
    );

    // The next broadcast on that topic skips her; one on the topic she chose reaches her.
    const count = t.sink.messages.length;
    const broadcasts: string[] = [];
    for (const topicId of [updates, offers]) {
      const { data: sent } = await t.resend.broadcasts.create({ segmentId, topicId, from: FROM, subject: `On ${topicId}`, text: 'x', send: true });
      await waitForStatus(t, sent!.id, 'sent');
      broadcasts.push(sent!.id);
    }
    await t.sink.waitFor(count + 2);
    await untilBroadcastMailDone(t, ...broadcasts);
    const got = t.sink.messages
      .slice(count)
      .map((m) => `${m.to[0]} ${/Subject: On (\S+)/.exec(m.raw.toString())![1]}`)
      .sort();
    assert.deepEqual(got, [`ann@example.org ${offers}`, `bob@example.org ${updates}`]);
  });

  it('unsubscribes on a one-click POST sent as multipart/form-data, and subscribes again from the page', async () => {
    const body = new FormData();
    body.set('List-Unsubscribe', 'One-Click');
    const res = await visit(t, links['bob@example.org']!, { method: 'POST', body });
    assert.equal(res.status, 200);
    await res.text();
    assert.equal((await t.resend.contacts.get(bob)).data!.unsubscribed, true);
    const page = await (await visit(t, links['bob@example.org']!)).text();
    assert.match(page, /is unsubscribed/);
    const again = await visit(t, links['bob@example.org']!, form([['action', 'resubscribe']]));
    assert.equal(again.status, 200);
    await again.text();
    assert.equal((await t.resend.contacts.get(bob)).data!.unsubscribed, false);
    assert.equal(messagesTo(t, 'bob@example.org').length, 2);
  });

  it('counts each unsubscribe from a broadcast once in the email metrics (Ann by topic, Bob by one click)', async () => {
    // Bob unsubscribes through the same link again: still one.
    const again = await visit(t, links['bob@example.org']!, form([['List-Unsubscribe', 'One-Click']]));
    assert.equal(again.status, 200);
    await again.text();
    const { data, error } = await t.resend.emails.metrics({ metrics: ['unsubscribed'] });
    assert.equal(error, null);
    assert.equal(data!.totals.unsubscribed, 2);
    // Counted for the broadcast and the domain its emails were sent from.
    const byBroadcast = await t.resend.emails.metrics({ metrics: ['unsubscribed'], dimensions: ['domain', 'broadcast'] });
    assert.deepEqual(
      byBroadcast.data!.data!.map((r) => [r.domain_name, r.broadcast_id, r.unsubscribed]),
      [['news.test', broadcastId, 2]],
    );
  });

  it("lists the broadcast's email and the unsubscribe in the contact's activity, by id or address", async () => {
    const byAddress = await rawRequest(t, 'GET', '/contacts/bob@example.org/activity');
    assert.equal(byAddress.status, 200, JSON.stringify(byAddress.body));
    assert.equal(byAddress.body.contact_id, bob);
    assert.deepEqual(
      byAddress.body.emails.filter((e: any) => e.broadcast_id === broadcastId).map((e: any) => e.subject),
      ['Updates'],
    );
    assert.deepEqual(
      byAddress.body.unsubscribes.map((u: any) => u.broadcast_id),
      [broadcastId],
    );
    assert.deepEqual((await rawRequest(t, 'GET', `/contacts/${bob}/activity`)).body, byAddress.body);
    // Another account's contact is not found.
    const stranger = await createAccount(t.postline.db, 'activity-stranger');
    assert.equal((await rawRequest({ url: t.url, apiKey: stranger.token }, 'GET', `/contacts/${bob}/activity`)).status, 404);
  });
});
