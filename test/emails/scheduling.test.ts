import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createVerifiedDomain } from '../support/domains.js';
import { eventually } from '../support/eventually.js';
import { rawRequest, startTestPostline, type TestPostline } from '../support/postline.js';

const inSeconds = (s: number) => new Date(Date.now() + s * 1000).toISOString();
const rest = (iso: string) => iso.replace('T', ' ').replace('Z', '+00');

describe('scheduled emails', () => {
  let t: TestPostline;
  before(async () => {
    t = await startTestPostline();
    await createVerifiedDomain(t, 'acme.test');
    t.dns.set('example.org', { MX: [{ exchange: 'mx.sink.test', priority: 10 }] });
    t.dns.set('mx.sink.test', { A: ['127.0.0.1'] });
  });
  after(() => t.stop());

  const schedule = (to: string, scheduledAt: string) =>
    t.resend.emails.send({ from: 'hello@acme.test', to, subject: `For ${to}`, html: '<p>Later</p>', scheduledAt });
  const received = (to: string) => t.sink.messages.filter((m) => m.to.includes(to));
  /** The time the sink received the first message to `to`, once one has come. */
  const arrival = (to: string, timeoutMs = 15_000): Promise<number> =>
    eventually(async () => received(to)[0]?.receivedAt.getTime(), timeoutMs, `a message to ${to}`);
  const eventTypes = async (id: string) => (await t.sql('SELECT type FROM events WHERE email_id = $1 ORDER BY id', [id])).map((r) => r.type as string);
  const deliveryStates = async (id: string) =>
    (await t.sql('SELECT status, next_attempt_at FROM deliveries WHERE email_id = $1', [id])) as { status: string; next_attempt_at: Date }[];
  const emailCount = async () => (await t.sql('SELECT count(*)::int AS n FROM emails'))[0].n as number;

  it('accepts a scheduled email as scheduled and delivers it at its time, not before', async () => {
    const due = inSeconds(2.5);
    const sent = await schedule('timed@example.org', due);
    assert.equal(sent.error, null, JSON.stringify(sent.error));
    const id = sent.data!.id;

    const email = (await t.resend.emails.get(id)).data!;
    assert.equal(email.last_event, 'scheduled');
    assert.equal(email.scheduled_at, rest(due));
    assert.deepEqual(await eventTypes(id), ['email.scheduled']);
    const [delivery] = await deliveryStates(id);
    assert.equal(delivery!.status, 'scheduled');
    assert.equal(delivery!.next_attempt_at.toISOString(), due);
    const [event] = await t.sql("SELECT data FROM events WHERE email_id = $1 AND type = 'email.scheduled'", [id]);
    assert.equal(event.data.email_id, id);
    assert.deepEqual(event.data.to, ['timed@example.org']);

    // Not before its time, by the sink's own clock of receipt. Late by at most 10 s: the
    // releaser polls every 250 ms; the rest is room for a loaded 2-core machine.
    const at = await arrival('timed@example.org');
    assert.ok(at >= Date.parse(due), `delivered ${Date.parse(due) - at} ms early`);
    assert.ok(at - Date.parse(due) < 10_000, `delivered ${at - Date.parse(due)} ms late`);

    // The delivered outcome is written just after the sink acknowledges.
    const expected = ['email.scheduled', 'email.sent', 'email.delivered'];
    await eventually(async () => (await eventTypes(id)).length >= expected.length, 15_000, 'the delivered outcome');
    assert.deepEqual(await eventTypes(id), expected);
    const later = (await t.resend.emails.get(id)).data!;
    assert.equal(later.last_event, 'delivered');
    assert.equal(later.scheduled_at, rest(due), 'scheduled_at stays on the record');
  });

  it('accepts natural language ("in 1 hour") and reports the time it means', async () => {
    const before0 = Date.now();
    const sent = await schedule('nl@example.org', 'in 1 hour');
    assert.equal(sent.error, null, JSON.stringify(sent.error));
    const email = (await t.resend.emails.get(sent.data!.id)).data!;
    const scheduledAt = Date.parse(email.scheduled_at!.replace(' ', 'T').replace('+00', 'Z'));
    assert.ok(Math.abs(scheduledAt - (before0 + 3_600_000)) < 5_000, email.scheduled_at!);
    assert.equal(email.last_event, 'scheduled');
  });

  it('refuses a past, a 31-days-ahead or an unparseable time, and scheduled_at in a batch, writing nothing', async () => {
    const n0 = await emailCount();
    const cases: [string, RegExp][] = [
      [inSeconds(-60), /must be in the future/],
      ['in 31 days', /at most 30 days in the future/],
      [new Date(Date.now() + 31 * 86_400_000).toISOString(), /at most 30 days in the future/],
      ['some day maybe', /must be an ISO 8601 date or a time such as "in 1 min"/],
    ];
    for (const [value, message] of cases) {
      const res = await schedule('never@example.org', value);
      assert.equal(res.error?.statusCode, 422, value);
      assert.equal(res.error?.name, 'validation_error');
      assert.match(res.error!.message, message);
    }
    const wrongType = await rawRequest(t, 'POST', '/emails', {
      body: { from: 'hello@acme.test', to: 'never@example.org', subject: 's', html: 'x', scheduled_at: 1700000000 },
    });
    assert.equal(wrongType.status, 422);
    const scheduledAt = inSeconds(60);
    const batch = await t.resend.batch.send([{ from: 'hello@acme.test', to: 'never@example.org', subject: 's', html: 'x', scheduledAt }]);
    assert.deepEqual(batch.error, {
      statusCode: 422,
      message: `The \`scheduled_at\` field must be left out of batch emails, not "${scheduledAt}".`,
      name: 'validation_error',
    });
    assert.equal(await emailCount(), n0);
  });

  it('cancels a scheduled email: canceled, email.canceled, never delivered; canceling again is harmless', async () => {
    const sent = await schedule('canceled@example.org', inSeconds(1.5));
    const id = sent.data!.id;
    const canceled = await t.resend.emails.cancel(id);
    assert.equal(canceled.error, null, JSON.stringify(canceled.error));
    assert.deepEqual(canceled.data, { object: 'email', id });
    assert.equal((await t.resend.emails.get(id)).data!.last_event, 'canceled');
    assert.deepEqual(
      (await deliveryStates(id)).map((d) => d.status),
      ['canceled'],
    );
    const again = await t.resend.emails.cancel(id);
    assert.deepEqual(again.data, { object: 'email', id });

    // Another email due just after it arrives: the releaser has passed the canceled one's time.
    const control = await schedule('after-canceled@example.org', inSeconds(2));
    assert.equal(control.error, null, JSON.stringify(control.error));
    await arrival('after-canceled@example.org');
    assert.equal(received('canceled@example.org').length, 0);
    assert.deepEqual(await eventTypes(id), ['email.scheduled', 'email.canceled']);
    assert.equal((await t.resend.emails.get(id)).data!.last_event, 'canceled');
  });

  it('reschedules a scheduled email, earlier or later, by ISO time or natural language', async () => {
    const sent = await schedule('moved@example.org', 'in 2 hours');
    const id = sent.data!.id;
    const later = await t.resend.emails.update({ id, scheduledAt: 'tomorrow at 9am' });
    assert.equal(later.error, null, JSON.stringify(later.error));
    assert.deepEqual(later.data, { object: 'email', id });
    assert.match((await t.resend.emails.get(id)).data!.scheduled_at!, / 09:00:00\.000\+00$/);

    const due = inSeconds(1.5);
    await t.resend.emails.update({ id, scheduledAt: due });
    const email = (await t.resend.emails.get(id)).data!;
    assert.equal(email.scheduled_at, rest(due));
    assert.equal(email.last_event, 'scheduled');
    assert.equal((await deliveryStates(id))[0]!.next_attempt_at.toISOString(), due);
    const at = await arrival('moved@example.org');
    assert.ok(at >= Date.parse(due));
  });

  it('refuses to cancel or reschedule an email that is not scheduled (403), unknown ids (404) and bad times (422)', async () => {
    const now = await t.resend.emails.send({ from: 'hello@acme.test', to: 'now@example.org', subject: 'Now', html: '<p>now</p>' });
    const id = now.data!.id;
    const cancel = await t.resend.emails.cancel(id);
    assert.deepEqual(cancel.error, { statusCode: 403, message: 'Only scheduled emails can be canceled.', name: 'validation_error' });
    const update = await t.resend.emails.update({ id, scheduledAt: 'in 1 hour' });
    assert.deepEqual(update.error, { statusCode: 403, message: 'Only scheduled emails can be rescheduled.', name: 'validation_error' });
    assert.notEqual((await t.resend.emails.get(id)).data!.last_event, 'canceled');

    const unknown = '00000000-0000-4000-8000-000000000000';
    assert.deepEqual((await t.resend.emails.cancel(unknown)).error, { statusCode: 404, message: 'Email not found', name: 'not_found' });
    assert.equal((await t.resend.emails.update({ id: unknown, scheduledAt: 'in 1 hour' })).error?.statusCode, 404);
    assert.equal((await rawRequest(t, 'POST', '/emails/not-an-id/cancel')).status, 422, 'a malformed id');

    const scheduled = (await schedule('bad-times@example.org', 'in 1 hour')).data!.id;
    const past = await t.resend.emails.update({ id: scheduled, scheduledAt: inSeconds(-5) });
    assert.equal(past.error?.statusCode, 422);
    assert.match(past.error!.message, /must be in the future/);
    const far = await t.resend.emails.update({ id: scheduled, scheduledAt: 'in 45 days' });
    assert.match(far.error!.message, /at most 30 days/);
    const missing = await rawRequest(t, 'PATCH', `/emails/${scheduled}`, { body: {} });
    assert.deepEqual(missing.body, { statusCode: 422, message: 'Missing `scheduled_at` field.', name: 'missing_required_field' });
    const extra = await rawRequest(t, 'PATCH', `/emails/${scheduled}`, { body: { scheduled_at: 'in 2 hours', subject: 'x' } });
    assert.equal(extra.body.message, 'Unknown field `subject`.');

    await t.resend.emails.cancel(scheduled);
    const afterCancel = await t.resend.emails.update({ id: scheduled, scheduledAt: 'in 2 hours' });
    assert.equal(afterCancel.error?.statusCode, 403, 'a canceled email cannot be rescheduled');
  });
});
