// GET /emails's filters (Postline additions to Resend's list): last_event, from, to, subject,
// tag, created_after/created_before, combined with AND and with Resend's paging; bad values
// are 422s naming the parameter; another account sees none of it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Resend } from 'resend';
import { createAccount } from '../../src/accounts/accounts.js';
import { publishMx, send, startDeliveryTest, waitForLastEvent } from '../delivery/support.js';
import { rawRequest, type TestPostline } from '../support/postline.js';

describe('listing emails with filters', () => {
  let t: TestPostline;
  const ids: Record<string, string> = {};
  const list = async (query: string) => {
    const res = await rawRequest(t, 'GET', `/emails?${query}`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body as { has_more: boolean; data: { id: string; subject: string; last_event: string }[] };
  };
  const subjects = async (query: string) => (await list(query)).data.map((e) => e.subject);

  before(async () => {
    t = await startDeliveryTest();
    publishMx(t, 'inbox.test', [{ name: 'mx.inbox.test', priority: 10, address: '127.0.0.1' }]);
    publishMx(t, 'strict.test', [{ name: 'mx.strict.test', priority: 10, address: '127.0.0.1' }]);
    t.sink.onRecipient = (address) => (address === 'ghost@strict.test' ? { code: 550, message: '5.1.1 No such user' } : undefined);
    ids.invoice = await send(t, { to: 'Alice@Inbox.test', subject: 'Your Invoice 100%', tags: [{ name: 'kind', value: 'invoice' }] });
    ids.welcome = await send(t, { to: 'bob@inbox.test', cc: 'carol@inbox.test', subject: 'Welcome_aboard', tags: [{ name: 'kind', value: 'welcome' }] });
    ids.bounce = await send(t, { to: 'ghost@strict.test', subject: 'Lost mail', from: 'Billing <billing@sender.test>' });
    await waitForLastEvent(t, ids.invoice, 'delivered');
    await waitForLastEvent(t, ids.welcome, 'delivered');
    await waitForLastEvent(t, ids.bounce, 'bounced');
  });
  after(() => t?.stop());

  it('keeps Resend paging as it was, through the SDK', async () => {
    const first = await t.resend.emails.list({ limit: 2 });
    assert.equal(first.error, null);
    assert.deepEqual(
      first.data!.data.map((e) => e.id),
      [ids.bounce, ids.welcome],
    );
    assert.equal(first.data!.has_more, true);
    const rest = await t.resend.emails.list({ limit: 2, after: ids.welcome });
    assert.deepEqual(
      rest.data!.data.map((e) => e.id),
      [ids.invoice],
    );
  });

  it('filters by last event, from, to (any recipient, any case), subject and tag', async () => {
    assert.deepEqual(await subjects('last_event=bounced'), ['Lost mail']);
    assert.deepEqual(await subjects('last_event=delivered'), ['Welcome_aboard', 'Your Invoice 100%']);
    assert.deepEqual(await subjects('last_event=opened'), []);
    assert.deepEqual(await subjects('from=BILLING'), ['Lost mail']);
    assert.deepEqual(await subjects('from=hello%40sender'), ['Welcome_aboard', 'Your Invoice 100%']);
    assert.deepEqual(await subjects('to=alice%40inbox.test'), ['Your Invoice 100%']);
    assert.deepEqual(await subjects('to=CAROL%40inbox.test'), ['Welcome_aboard']);
    assert.deepEqual(await subjects('to=nobody%40inbox.test'), []);
    assert.deepEqual(await subjects('subject=invoice'), ['Your Invoice 100%']);
    // LIKE's wildcards are text: % and _ match only themselves.
    assert.deepEqual(await subjects('subject=100%25'), ['Your Invoice 100%']);
    assert.deepEqual(await subjects('subject=e_a'), ['Welcome_aboard']);
    assert.deepEqual(await subjects('subject=%25'), ['Your Invoice 100%']);
    assert.deepEqual(await subjects('tag=kind'), ['Welcome_aboard', 'Your Invoice 100%']);
    assert.deepEqual(await subjects('tag=kind%3Awelcome'), ['Welcome_aboard']);
    assert.deepEqual(await subjects('tag=kind%3Anone'), []);
    assert.deepEqual(await subjects('last_event=delivered&subject=welcome&to=bob%40inbox.test'), ['Welcome_aboard']);
  });

  it('filters by creation time, a date or a date and time', async () => {
    const [row] = await t.sql('SELECT created_at FROM emails WHERE id = $1', [ids.welcome]);
    const at = (row.created_at as Date).toISOString();
    assert.deepEqual(await subjects(`created_after=${encodeURIComponent(at)}`), ['Lost mail', 'Welcome_aboard']);
    assert.deepEqual(await subjects(`created_before=${encodeURIComponent(at)}`), ['Your Invoice 100%']);
    assert.deepEqual(await subjects('created_after=2000-01-01&created_before=2000-01-02'), []);
    assert.equal((await subjects('created_after=2000-01-01')).length, 3);
  });

  it('pages a filtered list, a cursor that stopped matching still marking the place', async () => {
    const page = await list('last_event=delivered&limit=1');
    assert.deepEqual(
      page.data.map((e) => e.id),
      [ids.welcome],
    );
    assert.equal(page.has_more, true);
    const next = await list(`last_event=delivered&limit=1&after=${ids.welcome}`);
    assert.deepEqual(
      next.data.map((e) => e.id),
      [ids.invoice],
    );
    assert.equal(next.has_more, false);
    // The bounced email as a cursor of the delivered list: the page starts after it all the same.
    const fromBounce = await list(`last_event=delivered&after=${ids.bounce}`);
    assert.deepEqual(
      fromBounce.data.map((e) => e.id),
      [ids.welcome, ids.invoice],
    );
    const back = await list(`last_event=delivered&before=${ids.invoice}`);
    assert.deepEqual(
      back.data.map((e) => e.id),
      [ids.welcome],
    );
  });

  it('answers a bad filter with 422 naming the parameter', async () => {
    for (const [query, name] of [
      ['last_event=arrived', 'last_event'],
      ['to=not-an-address', 'to'],
      ['to=', 'to'],
      ['from=', 'from'],
      ['subject=%20', 'subject'],
      [`subject=${'x'.repeat(999)}`, 'subject'],
      ['tag=%3Avalue', 'tag'],
      ['created_after=yesterday', 'created_after'],
      ['created_before=2026-13-45', 'created_before'],
      ['created_before=1700000000', 'created_before'],
    ]) {
      const res = await rawRequest(t, 'GET', `/emails?${query}`);
      assert.equal(res.status, 422, query);
      assert.equal(res.body.statusCode, 422);
      assert.equal(res.body.name, 'invalid_parameter');
      assert.match(res.body.message, new RegExp(`\`${name}\``), query);
    }
  });

  it('shows another account none of it, and none of its cursors', async () => {
    const stranger = await createAccount(t.postline.db, 'stranger');
    const other = new Resend(stranger.token, { baseUrl: t.url });
    assert.deepEqual((await other.emails.list()).data!.data, []);
    const res = await rawRequest(t, 'GET', `/emails?last_event=delivered&after=${ids.bounce}`, { auth: stranger.token });
    assert.deepEqual(res.body.data, []);
  });
});
