// Warm-up never delays a password reset: by default a warming-up domain's caps hold bulk mail
// only (broadcasts, an API email with List-Unsubscribe, an SMTP email with Precedence: bulk);
// transactional mail over the day's cap goes at once, and counts. `warmup.cap_transactional`
// holds transactional mail too. An email held by warm-up gets one email.delivery_delayed with
// the reason (GET /emails/:id, its events, a webhook, the queue view), not one per re-check.
// POSTLINE_PROVIDERS_FILE rolls bigmail.test's MX hosts up to the provider `bigmail`.
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createVerifiedDomain } from '../support/domains.js';
import type { TestPostline } from '../support/postline.js';
import { eventually, eventsOf, FROM, publishMx, SENDER_DOMAIN, send, startDeliveryTest, waitForLastEvent } from '../delivery/support.js';
import { queuedId, transport } from '../smtp/support.js';
import { LOOPBACK_ENDPOINTS, subscribe, WebhookReceiver } from '../webhooks/support.js';

const HELD = `status = 'queued' AND last_response LIKE '451 4.4.5 Held by the sending domain''s warm-up%'`;
const DAY_MS = 24 * 60 * 60_000;

describe('warm-up holds bulk mail, never transactional mail unless asked', () => {
  let t: TestPostline;
  let providersFile: string;
  let receiver: WebhookReceiver;
  let senderId: string;

  before(async () => {
    providersFile = path.join(await fs.mkdtemp(path.join(os.tmpdir(), 'postline-providers-')), 'providers.json');
    await fs.writeFile(providersFile, JSON.stringify([{ name: 'bigmail', mx: ['.bigmail.test'] }]));
    t = await startDeliveryTest({ POSTLINE_PROVIDERS_FILE: providersFile, ...LOOPBACK_ENDPOINTS });
    publishMx(t, 'big.test', [{ name: 'mx.bigmail.test', priority: 10, address: '127.0.0.1' }]);
    senderId = (await t.sql('SELECT id FROM domains WHERE name = $1', [SENDER_DOMAIN]))[0].id;
    receiver = await new WebhookReceiver(t.resend).start();
    await subscribe(t, receiver, ['email.delivery_delayed']);
  });
  after(async () => {
    await receiver?.stop();
    await t?.stop();
    await fs.rm(path.dirname(providersFile), { recursive: true, force: true });
  });

  it("sends transactional mail over the day's cap at once and holds bulk mail, saying why once per email", async () => {
    // Day 1 of the default schedule: 50 a provider. 52 password resets all go, and count.
    await sendBatch(t, FROM, 52, 'reset');
    await eventually(async () => (await countDelivered(t, 'reset%')) === 52, 30_000, 'every transactional email, at once');
    assert.equal((await t.sql(`SELECT 1 FROM deliveries WHERE recipient LIKE 'reset%' AND ${HELD}`)).length, 0);
    const warmup = (await getJson(t, `/domains/${senderId}`)).warmup;
    assert.deepEqual(
      [warmup.day, warmup.per_provider_daily, warmup.cap_transactional, warmup.today],
      [1, 50, false, [{ provider: 'bigmail', sent: 52, remaining: 0 }]],
    );

    // Bulk mail: an API email with List-Unsubscribe, an SMTP email with Precedence: bulk, a broadcast. All wait.
    const api = await send(t, { to: 'news@big.test', headers: { 'List-Unsubscribe': '<https://sender.test/unsubscribe/news>' } });
    const info = await transport(t).sendMail({ from: FROM, to: 'digest@big.test', subject: 'Digest', text: 'This week', headers: { Precedence: 'bulk' } });
    const smtp = queuedId(info.response);
    const segment = await t.resend.segments.create({ name: 'Readers' });
    await t.resend.contacts.create({ email: 'reader@big.test', segments: [{ id: segment.data!.id }] } as any);
    const broadcast = await t.resend.broadcasts.create({ segmentId: segment.data!.id, from: FROM, subject: 'News', html: '<p>News</p>', send: true } as any);
    assert.equal(broadcast.error, null, JSON.stringify(broadcast.error));
    const held = await eventually(async () => {
      const rows = await t.sql(
        `SELECT email_id, recipient, last_response, next_attempt_at, attempts FROM deliveries WHERE domain = 'big.test' AND ${HELD} ORDER BY recipient`,
      );
      return rows.length === 3 && rows;
    }, 20_000);
    assert.deepEqual(
      held.map((r) => r.recipient),
      ['digest@big.test', 'news@big.test', 'reader@big.test'],
    );
    const [domain] = await t.sql('SELECT warmup_started_at FROM domains WHERE id = $1', [senderId]);
    const nextTry = new Date(domain.warmup_started_at.getTime() + DAY_MS + 5 * 60_000);
    const reason = `451 4.4.5 Held by the sending domain's warm-up: 52 of 50 messages to bigmail today (sender.test, day 1 of 14); next try at ${nextTry.toISOString()}`;
    for (const row of held) {
      assert.equal(row.last_response, reason);
      assert.equal(row.next_attempt_at.getTime(), nextTry.getTime(), 'bulk mail waits for day 2');
      assert.equal(row.attempts, 0, 'no attempt counted');
    }
    assert.equal(t.sink.messages.filter((m) => m.to[0]!.endsWith('@big.test')).length, 52, 'no bulk mail reached the provider');

    // Said on the email (last_event, its events), in a webhook and in the queue view.
    await waitForLastEvent(t, api, 'delivery_delayed');
    for (const row of held) assert.deepEqual(await delayedOf(t, row.email_id), [{ to: [row.recipient], response: reason }], row.recipient);
    await receiver.waitUntil(() => receiver.payloads('email.delivery_delayed').length === 3, 15_000, 'a webhook for each held email');
    const hook = receiver.payloads('email.delivery_delayed').find((p) => p.data.email_id === api);
    assert.deepEqual([hook?.data.to, hook?.data.delay], [['news@big.test'], { response: reason }]);
    const queued = (await getJson(t, '/queue/destinations/big.test?state=deferred')).data;
    assert.deepEqual(
      queued.map((m: any) => [m.recipient, m.waiting_reason, m.last_attempt]).sort(),
      held.map((r) => [r.recipient, reason, null]),
    );
    assert.equal((await t.sql(`SELECT 1 FROM events WHERE type = 'email.delivery_delayed' AND email_id = ANY($1)`, [[smtp]])).length, 1);

    // A re-check holds them again (a settings change makes the waiting mail due now): no second event.
    const [{ now: changed }] = await t.sql('SELECT now()');
    assert.equal((await patchDomain(t, senderId, { warmup: { cap_transactional: false } })).status, 200);
    await eventually(
      async () =>
        (await t.sql(`SELECT 1 FROM deliveries WHERE domain = 'big.test' AND ${HELD} AND next_attempt_at > now() AND updated_at > $1`, [changed])).length === 3,
      20_000,
      'held again after the re-check',
    );
    for (const row of held) assert.equal((await delayedOf(t, row.email_id)).length, 1, `one delivery_delayed for ${row.recipient}`);
  });

  it('holds transactional mail too with cap_transactional, and lets it go at once when that is turned off', async () => {
    const strict = await createVerifiedDomain(t, 'strict.test');
    const set = await patchDomain(t, strict.id, { warmup: { schedule: [{ day: 1, per_provider_daily: 2 }], cap_transactional: true } });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    assert.equal((await getJson(t, `/domains/${strict.id}`)).warmup.cap_transactional, true);

    await sendBatch(t, 'Strict <hi@strict.test>', 3, 'strict');
    await eventually(async () => (await countDelivered(t, 'strict%')) === 2, 20_000);
    const [held] = await eventually(async () => {
      const rows = await t.sql(`SELECT email_id, recipient, last_response, next_attempt_at FROM deliveries WHERE recipient LIKE 'strict%' AND ${HELD}`);
      return rows.length === 1 && rows;
    }, 20_000);
    const [domain] = await t.sql('SELECT warmup_started_at FROM domains WHERE id = $1', [strict.id]);
    const nextTry = new Date(domain.warmup_started_at.getTime() + DAY_MS);
    const reason = `451 4.4.5 Held by the sending domain's warm-up: 2 of 2 messages to bigmail today (strict.test, day 1 of 1); next try at ${nextTry.toISOString()}`;
    assert.equal(held.last_response, reason);
    assert.equal(held.next_attempt_at.getTime(), nextTry.getTime(), 'transactional mail is due as day 2 begins');
    await waitForLastEvent(t, held.email_id, 'delivery_delayed');
    assert.deepEqual(await delayedOf(t, held.email_id), [{ to: [held.recipient], response: reason }]);

    const off = await patchDomain(t, strict.id, { warmup: { cap_transactional: false } });
    assert.equal(off.status, 200, JSON.stringify(off.body));
    await eventually(async () => (await countDelivered(t, 'strict%')) === 3, 20_000, 'delivered today, not tomorrow');
    await waitForLastEvent(t, held.email_id, 'delivered');
    assert.equal((await getJson(t, `/domains/${strict.id}`)).warmup.cap_transactional, false);
  });
});

/** `count` transactional emails from `from`, one recipient each (`<prefix><i>@big.test`), through the batch route. */
async function sendBatch(t: TestPostline, from: string, count: number, prefix: string): Promise<void> {
  const emails = Array.from({ length: count }, (_, i) => ({ from, to: `${prefix}${i}@big.test`, subject: 'Reset your password', html: '<p>Reset</p>' }));
  const { error } = await t.resend.batch.send(emails);
  assert.equal(error, null, JSON.stringify(error));
}

async function countDelivered(t: TestPostline, recipients: string): Promise<number> {
  const [row] = await t.sql(`SELECT count(*)::int AS n FROM deliveries WHERE recipient LIKE $1 AND status = 'delivered'`, [recipients]);
  return row.n;
}

/** The email's email.delivery_delayed events: to whom, and why. */
async function delayedOf(t: TestPostline, emailId: string): Promise<{ to: string[]; response: string }[]> {
  return (await eventsOf(t, emailId)).filter((e) => e.type === 'email.delivery_delayed').map((e) => ({ to: e.data.to, response: e.data.delay?.response }));
}

async function getJson(t: TestPostline, pathname: string): Promise<any> {
  const res = await fetch(`${t.url}${pathname}`, { headers: { authorization: `Bearer ${t.apiKey}` } });
  assert.equal(res.status, 200, pathname);
  return res.json();
}

async function patchDomain(t: TestPostline, id: string, body: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${t.url}/domains/${id}`, {
    method: 'PATCH',
    headers: { authorization: `Bearer ${t.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}
