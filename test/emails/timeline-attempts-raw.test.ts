// An email's page reads: its events for a timeline (GET /emails/:id/events), every delivery
// attempt with the MX host and reply (GET /emails/:id/attempts, delivery_attempts written with
// the outcomes), and its message as stored (GET /emails/:id/raw). A real MX sink that answers
// 451 once then 250, and one that answers 550; the sandbox's catcher records attempts alike.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Resend } from 'resend';
import { createAccount } from '../../src/accounts/accounts.js';
import { eventually, publishMx, send, startDeliveryTest, waitForLastEvent } from '../delivery/support.js';
import { rawRequest, startTestPostline, type TestPostline } from '../support/postline.js';

describe("an email's events, delivery attempts and raw message", () => {
  let t: TestPostline;
  let retried: string;
  let bounced: string;
  const refusedOnce = new Set<string>();

  before(async () => {
    t = await startDeliveryTest({ POSTLINE_RETRY_DELAYS: '1s' });
    publishMx(t, 'slow.test', [{ name: 'mx.slow.test', priority: 10, address: '127.0.0.1' }]);
    publishMx(t, 'strict.test', [{ name: 'mx.strict.test', priority: 10, address: '127.0.0.1' }]);
    t.sink.onRecipient = (address) => {
      if (address === 'ghost@strict.test') return { code: 550, message: '5.1.1 No such user here' };
      if (address === 'late@slow.test' && !refusedOnce.has(address)) {
        refusedOnce.add(address);
        return { code: 451, message: '4.3.2 Mailbox temporarily unavailable' };
      }
      return undefined;
    };
    retried = await send(t, { to: 'late@slow.test', cc: 'copy@slow.test', subject: 'Retried' });
    bounced = await send(t, { to: 'ghost@strict.test', subject: 'Bounced' });
    // last_event is delivered as soon as copy@ is; late@ is delivered at its retry.
    await eventually(
      async () => (await t.sql(`SELECT 1 FROM deliveries WHERE email_id = $1 AND status <> 'delivered'`, [retried])).length === 0,
      30_000,
      'both recipients delivered',
    );
    await waitForLastEvent(t, retried, 'delivered');
    await waitForLastEvent(t, bounced, 'bounced');
  });
  after(() => t?.stop());

  it('lists every attempt, oldest first: recipient, MX host, reply code and text, outcome', async () => {
    const res = await rawRequest(t, 'GET', `/emails/${retried}/attempts`);
    assert.equal(res.status, 200);
    assert.equal(res.body.object, 'list');
    assert.equal(res.body.has_more, false);
    const attempts = res.body.data as any[];
    const late = attempts.filter((a) => a.recipient === 'late@slow.test');
    assert.deepEqual(
      late.map((a) => [a.mx_host, a.code, a.outcome]),
      [
        ['mx.slow.test', 451, 'deferred'],
        ['mx.slow.test', 250, 'delivered'],
      ],
    );
    assert.match(late[0].response, /^451 4\.3\.2 Mailbox temporarily unavailable/);
    assert.ok(Date.parse(late[0].attempted_at) <= Date.parse(late[1].attempted_at));
    assert.deepEqual(
      attempts.filter((a) => a.recipient === 'copy@slow.test').map((a) => [a.code, a.outcome]),
      [[250, 'delivered']],
    );
    const bounce = await rawRequest(t, 'GET', `/emails/${bounced}/attempts`);
    assert.deepEqual(
      bounce.body.data.map((a: any) => [a.recipient, a.mx_host, a.code, a.outcome]),
      [['ghost@strict.test', 'mx.strict.test', 550, 'bounced']],
    );
    assert.match(bounce.body.data[0].response, /^550 5\.1\.1 No such user here/);
  });

  it("gives the events for a timeline, oldest first, with each event's data", async () => {
    const res = await rawRequest(t, 'GET', `/emails/${retried}/events`);
    assert.equal(res.status, 200);
    const types = res.body.data.map((e: any) => e.type);
    assert.equal(types[0], 'email.sent');
    assert.ok(types.includes('email.delivery_delayed'));
    assert.equal(types.at(-1), 'email.delivered');
    for (const e of res.body.data) {
      assert.equal(typeof e.id, 'number');
      assert.ok(!Number.isNaN(Date.parse(e.created_at)));
      assert.equal(e.data.email_id, retried);
    }
    const bounce = await rawRequest(t, 'GET', `/emails/${bounced}/events`);
    assert.deepEqual(
      bounce.body.data.map((e: any) => e.type),
      ['email.sent', 'email.bounced'],
    );
    assert.equal(bounce.body.data[1].data.bounce.type, 'Permanent');
  });

  it('downloads the message as sent: signed, as message/rfc822', async () => {
    const res = await fetch(`${t.url}/emails/${retried}/raw`, { headers: { authorization: `Bearer ${t.apiKey}` } });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'message/rfc822');
    assert.equal(res.headers.get('content-disposition'), `attachment; filename="${retried}.eml"`);
    const raw = await res.text();
    assert.match(raw, /^DKIM-Signature: /m);
    assert.match(raw, /^Subject: Retried/m);
    // The very bytes the sink received.
    const got = t.sink.messages.find((m) => m.to.includes('late@slow.test'));
    assert.equal(got?.raw.toString(), raw);
  });

  it('says a scheduled email has no message yet', async () => {
    const scheduled = await send(t, { to: 'later@slow.test', scheduledAt: new Date(Date.now() + 86_400_000).toISOString() });
    const res = await rawRequest(t, 'GET', `/emails/${scheduled}/raw`);
    assert.equal(res.status, 404);
    assert.match(res.body.message, /composed at its first delivery attempt/);
    const attempts = await rawRequest(t, 'GET', `/emails/${scheduled}/attempts`);
    assert.deepEqual(attempts.body.data, []);
    const events = await rawRequest(t, 'GET', `/emails/${scheduled}/events`);
    assert.deepEqual(
      events.body.data.map((e: any) => e.type),
      ['email.scheduled'],
    );
  });

  it('pages the events and the attempts as the other lists page: limit, after, before, has_more', async () => {
    for (const list of ['events', 'attempts']) {
      const path = `/emails/${retried}/${list}`;
      const all = (await rawRequest(t, 'GET', path)).body.data as { id: number }[];
      assert.ok(all.length >= 3, `${list}: enough for two pages`);
      const walked: unknown[] = [];
      let pages = 0;
      for (let after: number | undefined; pages < 10; pages++) {
        const res = await rawRequest(t, 'GET', `${path}?limit=2${after ? `&after=${after}` : ''}`);
        assert.equal(res.status, 200);
        walked.push(...res.body.data);
        if (!res.body.has_more) break;
        after = res.body.data.at(-1).id;
      }
      assert.deepEqual(walked, all, `${list}: the pages, in order, are the whole list`);
      assert.equal(pages + 1, Math.ceil(all.length / 2));

      const back = await rawRequest(t, 'GET', `${path}?limit=2&before=${all.at(-1)!.id}`);
      assert.deepEqual(back.body.data, all.slice(-3, -1), `${list}: before the last, the two before it, oldest first`);
      assert.equal(back.body.has_more, all.length > 3);

      // Another email's row is no cursor here; a cursor that is no id is refused.
      const foreign = (await rawRequest(t, 'GET', `/emails/${bounced}/${list}`)).body.data[0].id;
      assert.deepEqual((await rawRequest(t, 'GET', `${path}?after=${foreign}`)).body.data, []);
      for (const query of ['after=abc', 'before=0', 'after=1&before=2', 'limit=101']) {
        const bad = await rawRequest(t, 'GET', `${path}?${query}`);
        assert.equal(bad.status, 422, `${list}?${query}`);
        assert.deepEqual(Object.keys(bad.body).sort(), ['message', 'name', 'statusCode']);
      }
    }
  });

  it("answers 404 for another account's email and an unknown id, 422 for a malformed one", async () => {
    const stranger = await createAccount(t.postline.db, 'stranger');
    for (const suffix of ['events', 'attempts', 'raw']) {
      for (const [id, auth] of [
        [retried, stranger.token],
        ['00000000-0000-4000-8000-000000000000', t.apiKey],
      ] as const) {
        const res = await rawRequest(t, 'GET', `/emails/${id}/${suffix}`, { auth });
        assert.equal(res.status, 404, `${suffix} ${id}`);
        assert.deepEqual(res.body, { statusCode: 404, message: 'Email not found', name: 'not_found' });
      }
      const malformed = await rawRequest(t, 'GET', `/emails/not-a-uuid/${suffix}`);
      assert.deepEqual(malformed.body, { statusCode: 422, message: 'The `id` must be a valid UUID.', name: 'validation_error' }, suffix);
    }
  });

  it('removes the attempts with their email (the cascade when the account goes)', async () => {
    const [before] = await t.sql('SELECT count(*)::int AS n FROM delivery_attempts WHERE email_id = $1', [retried]);
    assert.ok(before.n >= 3);
    const [{ account_id }] = await t.sql('SELECT account_id FROM emails WHERE id = $1', [retried]);
    await t.postline.db.query('DELETE FROM accounts WHERE id = $1', [account_id]);
    const [left] = await t.sql('SELECT count(*)::int AS n FROM delivery_attempts WHERE email_id = ANY($1::uuid[])', [[retried, bounced]]);
    assert.equal(left.n, 0);
  });
});

describe('sandbox mode: attempts at the catcher are recorded too', () => {
  let t: TestPostline;
  before(async () => {
    t = await startTestPostline({ env: { POSTLINE_SANDBOX: 'true' } });
  });
  after(() => t?.stop());

  it('shows the attempt that handed the message to the catcher', async () => {
    const sent = await t.resend.emails.send({ from: 'dev@anything.test', to: 'someone@example.org', subject: 'Caught', html: '<p>hi</p>' });
    assert.equal(sent.error, null);
    const id = sent.data!.id;
    let attempts: any[] = [];
    for (let i = 0; i < 100 && attempts.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 100));
      attempts = (await rawRequest(t, 'GET', `/emails/${id}/attempts`)).body.data;
    }
    assert.equal(attempts.length, 1);
    assert.equal(attempts[0].recipient, 'someone@example.org');
    assert.equal(attempts[0].outcome, 'delivered');
    assert.equal(attempts[0].code, 250);
    assert.ok(attempts[0].mx_host, 'the catcher is named as the host reached');
    const other = new Resend((await createAccount(t.postline.db, 'other')).token, { baseUrl: t.url });
    assert.equal((await other.emails.get(id)).error?.statusCode, 404);
  });
});
