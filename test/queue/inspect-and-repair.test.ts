// The queue as an operator sees it through the API: what waits where and why (per domain, per
// provider, per state, with the last reply), one destination's messages page by page, and the
// repairs: retry now, fail with email.failed, pause and resume a domain or a provider. Real
// MX sink (deferring with 451 until told otherwise, in words that ask for no slowing down: throttling replies are delivery/shaping.ts's), real DNS, the official SDK for sending.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createAccount } from '../../src/accounts/accounts.js';
import { rawRequest, type TestPostline } from '../support/postline.js';
import { eventsOf, eventually, FROM, publishMx, send, startDeliveryTest, waitForLastEvent } from '../delivery/support.js';

describe('queue: inspect and repair', () => {
  let t: TestPostline;
  let busy = true;
  const api = (method: string, path: string, body?: object) => rawRequest(t, method, path, { body });

  before(async () => {
    // Retries an hour apart: whatever is deferred stays deferred unless someone acts.
    t = await startDeliveryTest({ POSTLINE_RETRY_DELAYS: '1h' });
    publishMx(t, 'busy.test', [{ name: 'mx.busy.test', priority: 10, address: '127.0.0.1' }]);
    publishMx(t, 'gmail.com', [{ name: 'gmail-smtp-in.l.google.com', priority: 5, address: '127.0.0.1' }]);
    publishMx(t, 'workspace.test', [{ name: 'aspmx.l.google.com', priority: 1, address: '127.0.0.1' }]);
    publishMx(t, 'later.test', [{ name: 'mx.later.test', priority: 10, address: '127.0.0.1' }]);
    t.sink.onRecipient = (address) =>
      busy && !address.endsWith('@later.test') ? { code: 451, message: '4.3.0 Mail server temporarily rejected message' } : undefined;
  });
  after(() => t.stop());

  it('summarises what waits per destination, state and provider, with the last reply seen there', async () => {
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push(await send(t, { to: `user${i}@busy.test` }));
    ids.push(await send(t, { to: 'someone@gmail.com' }), await send(t, { to: 'team@workspace.test' }));
    const scheduled = await t.resend.emails.send({ from: FROM, to: 'soon@later.test', subject: 'Later', html: '<p>x</p>', scheduledAt: 'in 1 hour' });
    assert.equal(scheduled.error, null);
    for (const id of ids) await waitForLastEvent(t, id, 'delivery_delayed');

    const { status, body } = await api('GET', '/queue');
    assert.equal(status, 200, JSON.stringify(body));
    assert.equal(body.object, 'queue_summary');
    assert.equal(body.total, 6);
    assert.deepEqual(body.counts, { due: 0, in_flight: 0, deferred: 5, scheduled: 1, paused: 0 });
    const byDomain = Object.fromEntries(body.destinations.map((d: any) => [d.domain, d]));
    assert.deepEqual(Object.keys(byDomain).sort(), ['busy.test', 'gmail.com', 'later.test', 'workspace.test']);
    assert.equal(body.destinations[0].domain, 'busy.test', 'the largest destination first');
    assert.deepEqual(byDomain['busy.test'].counts, { due: 0, in_flight: 0, deferred: 3, scheduled: 0, paused: 0 });
    assert.equal(byDomain['busy.test'].provider, null);
    assert.equal(byDomain['busy.test'].last_reply.mx_host, 'mx.busy.test');
    assert.equal(byDomain['busy.test'].last_reply.code, 451);
    assert.match(byDomain['busy.test'].last_reply.reply, /^451 4\.3\.0 Mail server temporarily rejected message/);
    assert.ok(byDomain['busy.test'].oldest_age_seconds >= 0);
    // Both Google domains roll up to the provider: gmail.com by name and MX, workspace.test by its MX host.
    assert.equal(byDomain['gmail.com'].provider, 'google');
    assert.equal(byDomain['workspace.test'].provider, 'google');
    // Each names its own MX host, although all of them share one address (and pooled sessions).
    assert.equal(byDomain['gmail.com'].last_reply.mx_host, 'gmail-smtp-in.l.google.com');
    assert.equal(byDomain['workspace.test'].last_reply.mx_host, 'aspmx.l.google.com');
    assert.equal(byDomain['later.test'].counts.scheduled, 1);
    assert.equal(byDomain['later.test'].last_reply, null, 'never tried');
    // Mail scheduled for later is not late: the summary's oldest is of mail waiting to go.
    const backdate = (age: string) => t.sql(`UPDATE deliveries SET created_at = now() - $2::interval WHERE email_id = $1`, [scheduled.data!.id, age]);
    await backdate('2 days');
    const withOldScheduled = (await api('GET', '/queue')).body;
    assert.ok(withOldScheduled.oldest_age_seconds < 3600, `oldest ${withOldScheduled.oldest_age_seconds} s`);
    assert.ok(withOldScheduled.destinations.find((d: any) => d.domain === 'later.test').oldest_age_seconds >= 2 * 86_400);
    await backdate('0 s');
    const google = body.providers.find((p: any) => p.provider === 'google');
    assert.deepEqual({ domains: google.domains, total: google.total, deferred: google.counts.deferred }, { domains: 2, total: 2, deferred: 2 });

    const onlyGoogle = await api('GET', '/queue?provider=google&limit=1');
    assert.equal(onlyGoogle.body.destinations.length, 1);
    assert.equal(onlyGoogle.body.destinations_total, 2);
    assert.equal(onlyGoogle.body.has_more, true);

    // Another account sees none of it, and cannot touch it.
    const stranger = await createAccount(t.postline.db, 'stranger');
    const theirs = await rawRequest({ url: t.url, apiKey: stranger.token }, 'GET', '/queue');
    assert.equal(theirs.body.total, 0);
    assert.deepEqual(theirs.body.destinations, []);
    const theirRetry = await rawRequest({ url: t.url, apiKey: stranger.token }, 'POST', `/queue/emails/${ids[0]}/retry`);
    assert.equal(theirRetry.status, 404);
    const theirFail = await rawRequest({ url: t.url, apiKey: stranger.token }, 'POST', '/queue/destinations/busy.test/fail', { body: { reason: 'x' } });
    assert.deepEqual(theirFail.body, { object: 'queue_fail', destination: 'busy.test', failed: 0 });
    assert.equal((await api('GET', '/queue')).body.total, 6);
  });

  it("lists one destination's messages oldest first, page by page, with the last attempt and next try", async () => {
    const first = await api('GET', '/queue/destinations/busy.test?limit=2');
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.equal(first.body.data.length, 2);
    assert.equal(first.body.has_more, true);
    const second = await api('GET', `/queue/destinations/busy.test?limit=2&after=${first.body.data[1].id}`);
    assert.equal(second.body.data.length, 1);
    assert.equal(second.body.has_more, false);
    const all = [...first.body.data, ...second.body.data];
    assert.deepEqual(
      all.map((m: any) => m.recipient),
      ['user0@busy.test', 'user1@busy.test', 'user2@busy.test'],
    );
    for (const m of all) {
      assert.equal(m.state, 'deferred');
      assert.equal(m.attempts, 1);
      assert.equal(m.last_attempt.mx_host, 'mx.busy.test');
      assert.equal(m.last_attempt.code, 451);
      const next = Date.parse(m.next_attempt_at) - Date.now();
      assert.ok(next > 50 * 60_000 && next <= 60 * 60_000, `next attempt in ${next} ms`);
    }
    const deferredOnly = await api('GET', '/queue/destinations/google?state=deferred');
    assert.deepEqual(deferredOnly.body.data.map((m: any) => m.recipient).sort(), ['someone@gmail.com', 'team@workspace.test']);
    assert.deepEqual((await api('GET', '/queue/destinations/busy.test?state=scheduled')).body.data, []);
  });

  it('retries one email now, then a whole destination, and they are delivered once the host accepts', async () => {
    busy = false;
    const [one] = (await api('GET', '/queue/destinations/busy.test?limit=1')).body.data;
    const retried = await api('POST', `/queue/emails/${one.email_id}/retry`);
    assert.deepEqual(retried.body, { object: 'queue_retry', email_id: one.email_id, retried: 1 });
    await waitForLastEvent(t, one.email_id, 'delivered');
    const rest = await api('POST', '/queue/destinations/busy.test/retry');
    assert.deepEqual(rest.body, { object: 'queue_retry', destination: 'busy.test', retried: 2 });
    await eventually(async () => (await api('GET', '/queue/destinations/busy.test')).body.data.length === 0, 15_000, 'busy.test drained');
    const summary = (await api('GET', '/queue')).body;
    assert.equal(
      summary.destinations.find((d: any) => d.domain === 'busy.test'),
      undefined,
    );
    busy = true;
  });

  it('fails an email on request: email.failed with the reason, and nothing more is tried', async () => {
    const [m] = (await api('GET', '/queue/destinations/gmail.com')).body.data;
    const failed = await api('POST', `/queue/emails/${m.email_id}/fail`, { reason: 'Customer asked us to stop' });
    assert.deepEqual(failed.body, { object: 'queue_fail', email_id: m.email_id, failed: 1 });
    await waitForLastEvent(t, m.email_id, 'failed');
    const last = (await eventsOf(t, m.email_id)).at(-1)!;
    assert.equal(last.type, 'email.failed');
    assert.equal(last.data.failed.reason, 'Customer asked us to stop');
    assert.match(last.data.failed.response, /^4\d\d /, 'with the last reply it had');
    assert.deepEqual(last.data.to, ['someone@gmail.com']);
    const again = await api('POST', `/queue/emails/${m.email_id}/fail`, { reason: 'twice' });
    assert.equal(again.body.failed, 0, 'a final email has nothing left to fail');
  });

  it('pauses a provider: its mail waits visibly with the reason, new mail too, and resuming delivers it', async () => {
    busy = false;
    const paused = await api('POST', '/queue/destinations/google/pause', { reason: 'Google is throttling us' });
    assert.equal(paused.status, 200, JSON.stringify(paused.body));
    assert.deepEqual(
      { ...paused.body, since: undefined },
      {
        object: 'queue_pause',
        destination: 'google',
        kind: 'provider',
        sending_domain: null,
        reason: 'Google is throttling us',
        since: undefined,
        parked: 1,
      },
    );
    const connections = t.sink.connections;
    const fresh = await send(t, { to: 'new@gmail.com' });
    const waiting = await eventually(
      async () => {
        const list = (await api('GET', '/queue/destinations/gmail.com?state=paused')).body.data;
        return list.length === 1 && list;
      },
      10_000,
      'new gmail mail paused',
    );
    assert.equal(waiting[0].email_id, fresh);
    assert.equal(waiting[0].paused_reason, 'Google is throttling us');
    assert.equal(waiting[0].next_attempt_at, null);
    assert.equal(t.sink.connections, connections, 'nothing was sent to a paused provider');
    const summary = (await api('GET', '/queue')).body;
    assert.equal(summary.counts.paused, 2);
    assert.equal(summary.providers.find((p: any) => p.provider === 'google').paused.reason, 'Google is throttling us');
    assert.deepEqual(
      summary.pauses.map((p: any) => [p.destination, p.kind]),
      [['google', 'provider']],
    );

    const resumed = await api('POST', '/queue/destinations/google/resume');
    assert.deepEqual(resumed.body, { object: 'queue_resume', destination: 'google', resumed: 2 });
    await waitForLastEvent(t, fresh, 'delivered');
    assert.equal((await api('POST', '/queue/destinations/google/resume')).status, 404, 'no longer paused');
    busy = true;
  });

  it('answers malformed requests with Resend-shaped errors', async () => {
    const cases: [string, string, object | undefined, number, RegExp][] = [
      ['GET', '/queue?limit=0', undefined, 422, /limit/],
      ['GET', '/queue?limit=abc', undefined, 422, /limit/],
      ['GET', '/queue/destinations/not a domain', undefined, 422, /destination/],
      ['GET', '/queue/destinations/busy.test?after=x', undefined, 422, /after/],
      ['GET', '/queue/destinations/busy.test?state=stuck', undefined, 422, /state/],
      ['POST', '/queue/destinations/busy.test/pause', {}, 422, /reason/],
      ['POST', '/queue/destinations/busy.test/pause', { reason: 'a\r\nBcc: x' }, 422, /reason/],
      ['POST', '/queue/destinations/busy.test/pause', { reason: 'ok', extra: 1 }, 422, /extra/],
      ['POST', '/queue/destinations/busy.test/fail', { reason: 'x'.repeat(501) }, 422, /reason/],
      ['POST', '/queue/emails/not-a-uuid/fail', { reason: 'x' }, 422, /The `id` must be a valid UUID/],
      ['POST', '/queue/emails/00000000-0000-4000-8000-000000000000/retry', undefined, 404, /Email/],
    ];
    for (const [method, path, body, status, message] of cases) {
      const res = await api(method, path.replace(' ', '%20'), body);
      assert.equal(res.status, status, `${method} ${path}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.statusCode, status);
      assert.equal(typeof res.body.name, 'string');
      assert.match(res.body.message, message, `${method} ${path}`);
    }
    // A sending-only key may not look into the queue.
    const { data } = await t.resend.apiKeys.create({ name: 'sender', permission: 'sending_access' });
    const refused = await rawRequest({ url: t.url, apiKey: data!.token }, 'GET', '/queue');
    assert.equal(refused.status, 401);
  });
});

describe('queue: the max queue age holds in every state', () => {
  let t: TestPostline;
  before(async () => {
    t = await startDeliveryTest({ POSTLINE_MAX_QUEUE_AGE: '3s', POSTLINE_RETRY_DELAYS: '1h' });
    publishMx(t, 'held.test', [{ name: 'mx.held.test', priority: 10, address: '127.0.0.1' }]);
  });
  after(() => t.stop());

  it('fails paused mail once it is older than POSTLINE_MAX_QUEUE_AGE, with email.failed', async () => {
    const paused = await rawRequest(t, 'POST', '/queue/destinations/held.test/pause', { body: { reason: 'maintenance' } });
    assert.equal(paused.status, 200);
    const id = await send(t, { to: 'someone@held.test' });
    await eventually(async () => (await rawRequest(t, 'GET', '/queue/destinations/held.test?state=paused')).body.data.length === 1, 10_000, 'paused');
    await waitForLastEvent(t, id, 'failed', 15_000);
    const last = (await eventsOf(t, id)).at(-1)!;
    assert.deepEqual(last.data.failed, { reason: 'max_queue_age_exceeded' });
    assert.equal(t.sink.messages.length, 0);
    assert.equal((await rawRequest(t, 'GET', '/queue')).body.total, 0);
  });
});
