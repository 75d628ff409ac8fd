// GET /emails's filters (Postline additions to Resend's list): last_event, from, to (part of a
// recipient's address), subject, tag, created_after/created_before, search (an id, or text of
// the subject, sender or recipients), combined with AND and with Resend's paging; the count
// include_total adds, capped; bad values are 422s naming the parameter; another account sees
// none of it.
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
    return res.body as { has_more: boolean; data: { id: string; subject: string; last_event: string }[]; total?: number; total_capped?: boolean };
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

  it('filters by part of a recipient address: to, cc or bcc, any case, wildcards as text', async () => {
    assert.deepEqual(await subjects('to=ALICE'), ['Your Invoice 100%']);
    assert.deepEqual(await subjects('to=inbox.test'), ['Welcome_aboard', 'Your Invoice 100%']);
    assert.deepEqual(await subjects('to=rol%40inb'), ['Welcome_aboard'], 'a cc recipient');
    assert.deepEqual(await subjects('to=%40strict'), ['Lost mail']);
    assert.deepEqual(await subjects('to=%20bob'), ['Welcome_aboard'], 'the fragment is trimmed');
    assert.deepEqual(await subjects('to=not-an-address'), []);
    assert.deepEqual(await subjects('to=%25'), []);
    assert.deepEqual(await subjects('to=_'), []);
    // One recipient at a time: text never matches across two of them.
    assert.deepEqual(await subjects('to=test%20carol'), []);
  });

  it('searches by id, or by text of the subject, the sender or a recipient', async () => {
    assert.deepEqual(await subjects('search=WELCOME'), ['Welcome_aboard'], 'subject');
    assert.deepEqual(await subjects('search=billing'), ['Lost mail'], 'from');
    assert.deepEqual(await subjects('search=carol'), ['Welcome_aboard'], 'cc');
    assert.deepEqual(await subjects('search=inbox'), ['Welcome_aboard', 'Your Invoice 100%'], 'to');
    assert.deepEqual(await subjects('search=sender.test'), ['Lost mail', 'Welcome_aboard', 'Your Invoice 100%']);
    assert.deepEqual(await subjects(`search=${ids.bounce}`), ['Lost mail'], 'an id');
    assert.deepEqual(await subjects(`search=%20${ids.invoice!.toUpperCase()}%20`), ['Your Invoice 100%'], 'an id in capitals, with spaces');
    assert.deepEqual(await subjects(`search=${ids.bounce!.slice(0, 8)}`), [], 'only a whole id');
    assert.deepEqual(await subjects('search=00000000-0000-4000-8000-000000000000'), []);
    assert.deepEqual(await subjects('search=100%25'), ['Your Invoice 100%']);
    assert.deepEqual(await subjects('search=nothing%20like%20it'), []);
    assert.deepEqual(await subjects('search=inbox&last_event=delivered&subject=invoice'), ['Your Invoice 100%'], 'with the other filters');
    const firstOfTwo = await list('search=inbox&limit=1');
    assert.deepEqual(
      firstOfTwo.data.map((e) => e.id),
      [ids.welcome],
    );
    assert.equal(firstOfTwo.has_more, true);
    assert.deepEqual(
      (await list(`search=inbox&after=${ids.welcome}`)).data.map((e) => e.id),
      [ids.invoice],
    );
  });

  it('counts the emails the filters match with include_total, across pages, up to 1,000', async () => {
    const all = await list('include_total=true&limit=1');
    assert.equal(all.total, 3);
    assert.equal(all.total_capped, false);
    assert.equal(all.data.length, 1);
    const next = await list(`include_total=true&limit=1&after=${all.data[0]!.id}`);
    assert.equal(next.total, 3, 'the count is of every page');
    assert.equal((await list('include_total=true&last_event=delivered')).total, 2);
    assert.equal((await list('include_total=true&search=nothing')).total, 0);
    const plain = await list('limit=1');
    assert.equal('total' in plain, false, 'without include_total, the answer is as Resend gives it');
    assert.equal('total_capped' in plain, false);
    assert.equal('total' in (await list('include_total=false')), false);

    // Past the cap, the count stops: 1,000 and "capped".
    const bulk = await createAccount(t.postline.db, 'bulk');
    await t.sql(
      `INSERT INTO emails (id, account_id, from_address, to_addresses, subject, message_id, last_event)
       SELECT gen_random_uuid(), $1, 'bulk@sender.test', ARRAY['reader' || i || '@inbox.test'], 'Bulk ' || i, '<bulk' || i || '@sender.test>', 'delivered'
         FROM generate_series(1, 1001) i`,
      [bulk.accountId],
    );
    const count = async (query: string) => {
      const res = await rawRequest(t, 'GET', `/emails?include_total=true&${query}`, { auth: bulk.token });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return [res.body.total, res.body.total_capped];
    };
    assert.deepEqual(await count('limit=5'), [1000, true]);
    assert.deepEqual(await count('to=reader1000%40'), [1, false]);
    assert.deepEqual(await count('search=Bulk%201'), [113, false], 'Bulk 1, 10–19, 100–199, 1000, 1001');
    assert.deepEqual(await count('search=nobody'), [0, false]);
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
      ['to=', 'to'],
      ['to=%0Abob', 'to'],
      ['search=', 'search'],
      ['search=%20', 'search'],
      [`search=${'x'.repeat(999)}`, 'search'],
      ['include_total=yes', 'include_total'],
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
