// What a sent broadcast reports: its recipients by outcome (delivered, opened and clicked with
// counts and links, bounced with its type) with Resend's opaque offset cursors, and its
// clicked links with total and unique clicks, from open and click tracking of the sending
// domain.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestPostline } from '../support/postline.js';
import { createContacts, createSegment, eventually, FROM, parsed, PUBLIC_URL, startBroadcastTest, visit, waitForStatus } from './support.js';

describe('broadcast recipients and clicked links', () => {
  let t: TestPostline;
  let broadcastId: string;
  let ids: string[];
  before(async () => {
    t = await startBroadcastTest();
    const domain = (await t.resend.domains.list()).data!.data.find((d) => d.name === 'news.test')!;
    assert.equal((await t.resend.domains.update({ id: domain.id, openTracking: true, clickTracking: true })).error, null);
    t.sink.onRecipient = (address) => (address === 'gone@example.org' ? { code: 550, message: '5.1.1 No such user' } : undefined);
    const segmentId = await createSegment(t);
    ids = await createContacts(
      t,
      segmentId,
      ['ann', 'bob', 'carol', 'gone'].map((name) => ({ email: `${name}@example.org` })),
    );
    const { data, error } = await t.resend.broadcasts.create({
      segmentId,
      from: FROM,
      subject: 'Links',
      html: '<html><body><a href="https://news.test/pricing">Pricing</a> <a href="https://news.test/blog">Blog</a></body></html>',
      send: true,
    });
    assert.equal(error, null, JSON.stringify(error));
    broadcastId = data!.id;
    await waitForStatus(t, broadcastId, 'sent');
    await t.sink.waitFor(3);
  });
  after(() => t.stop());

  async function tracked(address: string) {
    const html = (await parsed(t, address)).mail.html!;
    const urls = [...html.matchAll(/(?:href|src)="([^"]+)"/g)].map((m) => m[1]!.replace(/&amp;/g, '&'));
    return {
      pixel: urls.find((u) => u.startsWith(`${PUBLIC_URL}/t/o/`))!,
      link: (to: string) => urls.find((u) => u.startsWith(`${PUBLIC_URL}/t/c/`) && new URL(u).searchParams.get('url') === to)!,
    };
  }

  async function follow(url: string) {
    const res = await visit(t, url);
    assert.ok(res.status === 200 || res.status === 302, `${res.status} ${url}`);
    await res.arrayBuffer();
  }

  it('lists delivered and bounced recipients, the bounce with its type', async () => {
    const delivered = await eventually(async () => {
      const { data } = await t.resend.broadcasts.recipients(broadcastId, { type: 'delivered' });
      return data!.data.length === 3 && data!.data;
    });
    assert.deepEqual(delivered.map((r) => r.email).sort(), ['ann@example.org', 'bob@example.org', 'carol@example.org']);
    const bounced = await eventually(async () => {
      const { data } = await t.resend.broadcasts.recipients(broadcastId, { type: 'bounced' });
      return data!.data.length === 1 && data!.data;
    });
    assert.deepEqual(
      bounced.map(({ contact_id, email, bounce_type }) => ({ contact_id, email, bounce_type })),
      [{ contact_id: ids[3], email: 'gone@example.org', bounce_type: 'permanent' }],
    );
    assert.equal((await t.resend.broadcasts.recipients(broadcastId, { type: 'bounced', bounceType: 'transient' })).data!.data.length, 0);
    assert.equal((await t.resend.broadcasts.recipients(broadcastId, { type: 'bounced', bounceType: 'permanent' })).data!.data.length, 1);
    const one = await t.resend.broadcasts.recipients(broadcastId, { type: 'sent', email: 'BOB@example.org' });
    assert.deepEqual(
      one.data!.data.map((r) => [r.email, r.contact_id]),
      [['bob@example.org', ids[1]]],
    );
  });

  it('counts opens and clicks per recipient, with the links each clicked', async () => {
    const ann = await tracked('ann@example.org');
    const bob = await tracked('bob@example.org');
    await follow(ann.pixel);
    await follow(ann.pixel);
    await follow(bob.pixel);
    await follow(ann.link('https://news.test/pricing'));
    await follow(ann.link('https://news.test/pricing'));
    await follow(ann.link('https://news.test/blog'));
    await follow(bob.link('https://news.test/pricing'));

    const opened = (await t.resend.broadcasts.recipients(broadcastId, { type: 'opened' })).data!.data;
    assert.deepEqual(opened.map((r) => [r.email, r.count]).sort(), [
      ['ann@example.org', 2],
      ['bob@example.org', 1],
    ]);
    const clicked = (await t.resend.broadcasts.recipients(broadcastId, { type: 'clicked' })).data!.data;
    const annClicks = clicked.find((r) => r.email === 'ann@example.org')!;
    assert.equal(annClicks.count, 3);
    assert.deepEqual(annClicks.clicked_links, [
      { url: 'https://news.test/pricing', clicks: 2 },
      { url: 'https://news.test/blog', clicks: 1 },
    ]);
    assert.equal(annClicks.contact_id, ids[0]);
  });

  it('lists clicked links, most clicked first, with unique clicks', async () => {
    const { data, error } = await t.resend.broadcasts.clickedLinks(broadcastId);
    assert.equal(error, null, JSON.stringify(error));
    assert.deepEqual(
      data!.data.map(({ url, clicks, unique_clicks }) => ({ url, clicks, unique_clicks })),
      [
        { url: 'https://news.test/pricing', clicks: 3, unique_clicks: 2 },
        { url: 'https://news.test/blog', clicks: 1, unique_clicks: 1 },
      ],
    );
    assert.equal(data!.has_more, false);
    assert.ok(data!.data.every((r) => typeof r.id === 'string' && r.id.length > 0));
  });

  it('pages with opaque cursors, forwards and back', async () => {
    const all = (await t.resend.broadcasts.recipients(broadcastId, { type: 'sent' })).data!.data.map((r) => r.email);
    assert.equal(all.length, 4);
    const first = (await t.resend.broadcasts.recipients(broadcastId, { type: 'sent', limit: 2 })).data!;
    assert.equal(first.has_more, true);
    assert.deepEqual(
      first.data.map((r) => r.email),
      all.slice(0, 2),
    );
    const second = (await t.resend.broadcasts.recipients(broadcastId, { type: 'sent', limit: 2, after: first.data[1]!.id })).data!;
    assert.equal(second.has_more, false);
    assert.deepEqual(
      second.data.map((r) => r.email),
      all.slice(2),
    );
    const back = (await t.resend.broadcasts.recipients(broadcastId, { type: 'sent', limit: 1, before: second.data[0]!.id })).data!;
    assert.deepEqual(
      back.data.map((r) => r.email),
      [all[1]],
    );
    assert.equal(back.has_more, true);
    const links = (await t.resend.broadcasts.clickedLinks(broadcastId, { limit: 1 })).data!;
    assert.equal(links.has_more, true);
    const next = (await t.resend.broadcasts.clickedLinks(broadcastId, { limit: 1, after: links.data[0]!.id })).data!;
    assert.deepEqual(
      next.data.map((r) => r.url),
      ['https://news.test/blog'],
    );
  });
});
