// Warm-up of sending domains: a domain created now sends at most its day's cap of bulk mail (a
// List-Unsubscribe header here; transactional mail too with `cap_transactional`) to each mailbox
// provider (POSTLINE_PROVIDERS_FILE rolls bigmail.test's MX hosts up to the provider `bigmail`),
// the rest waits for the next day with the reason, transactional mail ahead of broadcasts; days
// pass by moving the domain's warmup_started_at (and the waiting rows' due time) back in the
// database, as the clock would. A custom schedule set through the API, a domain not warming up,
// and the progress in GET /domains/:id.
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createVerifiedDomain } from '../support/domains.js';
import type { TestPostline } from '../support/postline.js';
import { eventually, FROM, publishMx, SENDER_DOMAIN, startDeliveryTest } from '../delivery/support.js';

const WAITING = `status = 'queued' AND last_response LIKE '451 4.4.5 Held by the sending domain''s warm-up%'`;
/** What marks an API email as bulk mail, which warm-up holds by default. */
const BULK = { 'List-Unsubscribe': '<https://sender.test/unsubscribe>' };

describe('warm-up of new sending domains', () => {
  let t: TestPostline;
  let providersFile: string;
  let senderId: string;

  before(async () => {
    providersFile = path.join(await fs.mkdtemp(path.join(os.tmpdir(), 'postline-providers-')), 'providers.json');
    await fs.writeFile(providersFile, JSON.stringify([{ name: 'bigmail', mx: ['.bigmail.test'] }]));
    t = await startDeliveryTest({ POSTLINE_PROVIDERS_FILE: providersFile });
    publishMx(t, 'big.test', [{ name: 'mx.bigmail.test', priority: 10, address: '127.0.0.1' }]);
    publishMx(t, 'small.test', [{ name: 'mx.small.test', priority: 10, address: '127.0.0.1' }]);
    senderId = (await t.sql('SELECT id FROM domains WHERE name = $1', [SENDER_DOMAIN]))[0].id;
  });
  after(async () => {
    await t.stop();
    await fs.rm(path.dirname(providersFile), { recursive: true, force: true });
  });

  it("holds a new domain's bulk mail to its first day's cap per provider; the rest waits for day 2 with the reason", async () => {
    await sendBatch(t, FROM, 53, 'big.test', 'user', BULK);
    await sendBatch(t, FROM, 5, 'small.test', 'user', BULK);
    const waiting = await eventually(async () => {
      const rows = await t.sql(`SELECT d.last_response, d.next_attempt_at, d.attempts FROM deliveries d WHERE domain = 'big.test' AND ${WAITING}`);
      return rows.length === 3 && rows;
    }, 20_000);
    await eventually(async () => (await countDelivered(t, 'big.test')) === 50 && (await countDelivered(t, 'small.test')) === 5, 20_000);
    const [domain] = await t.sql('SELECT warmup_started_at FROM domains WHERE id = $1', [senderId]);
    const due = domain.warmup_started_at.getTime() + DAY_MS + BULK_LAG_MS;
    assert.equal(
      waiting[0].last_response,
      `451 4.4.5 Held by the sending domain's warm-up: 50 of 50 messages to bigmail today (sender.test, day 1 of 14); next try at ${new Date(due).toISOString()}`,
    );
    assert.equal(waiting[0].attempts, 0, 'no attempt counted');
    for (const row of waiting) assert.equal(row.next_attempt_at.getTime(), due, 'bulk mail is due a few minutes after day 2 begins');
    assert.equal(t.sink.messages.filter((m) => m.to[0]!.endsWith('@big.test')).length, 50, 'the sink got exactly the cap');

    const warmup = (await getDomain(t, senderId)).warmup;
    assert.deepEqual(
      { status: warmup.status, day: warmup.day, days: warmup.days, cap: warmup.per_provider_daily, today: warmup.today },
      { status: 'warming_up', day: 1, days: 14, cap: 50, today: [{ provider: 'bigmail', sent: 50, remaining: 0 }] },
    );
    assert.equal(warmup.next_day_at, new Date(domain.warmup_started_at.getTime() + DAY_MS).toISOString());
    assert.equal(warmup.schedule[0].per_provider_daily, 50);
    assert.equal(warmup.cap_transactional, false, 'the default: transactional mail is not held');
  });

  it('with cap_transactional, puts transactional mail ahead of bulk mail that waits, and releases the next portion when a day has passed', async () => {
    assert.equal((await patchDomain(t, senderId, { warmup: { cap_transactional: true } })).status, 200);
    await sendBatch(t, FROM, 2, 'big.test', 'later');
    const segment = await t.resend.segments.create({ name: 'Readers' });
    for (const n of [1, 2, 3]) await t.resend.contacts.create({ email: `reader${n}@big.test`, segments: [{ id: segment.data!.id }] } as any);
    const broadcast = await t.resend.broadcasts.create({ segmentId: segment.data!.id, from: FROM, subject: 'News', html: '<p>News</p>', send: true } as any);
    assert.equal(broadcast.error, null, JSON.stringify(broadcast.error));
    const waiting = await eventually(async () => {
      const rows = await t.sql(`SELECT recipient, priority, next_attempt_at FROM deliveries WHERE domain = 'big.test' AND ${WAITING} ORDER BY priority`);
      return rows.length === 8 && rows;
    }, 20_000);
    const transactional = waiting.filter((r) => r.recipient.startsWith('later')).map((r) => r.next_attempt_at.getTime());
    const bulk = waiting.filter((r) => !r.recipient.startsWith('later')).map((r) => r.next_attempt_at.getTime());
    assert.equal(waiting.filter((r) => r.priority === 1).length, 3, 'the broadcast');
    assert.equal(transactional.length, 2);
    assert.ok(Math.min(...bulk) > Math.max(...transactional), 'broadcasts and bulk mail are due after the transactional mail');

    // A day passes: day 2 allows 100 a provider; the transactional mail goes at once, the bulk mail a few minutes later.
    await passDays(t, senderId, 1);
    await eventually(async () => (await countDelivered(t, 'big.test')) === 52, 20_000, 'the transactional mail that waited');
    const still = await t.sql(`SELECT priority FROM deliveries WHERE domain = 'big.test' AND ${WAITING} ORDER BY priority`);
    assert.deepEqual(
      still.map((r) => r.priority),
      [0, 0, 0, 1, 1, 1],
      'the bulk mail and the broadcasts still wait',
    );
    await t.sql(`UPDATE deliveries SET next_attempt_at = now() WHERE domain = 'big.test' AND ${WAITING}`);
    await eventually(async () => (await countDelivered(t, 'big.test')) === 58, 20_000, 'the broadcasts');
    const warmup = (await getDomain(t, senderId)).warmup;
    assert.deepEqual([warmup.day, warmup.per_provider_daily, warmup.today], [2, 100, [{ provider: 'bigmail', sent: 8, remaining: 92 }]]);
  });

  it('follows a custom schedule set through the API, and ends after its last day', async () => {
    const custom = await createVerifiedDomain(t, 'custom.test');
    const refused = await patchDomain(t, custom.id, { warmup: { schedule: [{ day: 2, per_provider_daily: 5 }] } });
    assert.equal(refused.status, 422);
    assert.deepEqual(Object.keys(refused.body).sort(), ['message', 'name', 'statusCode']);
    const set = await patchDomain(t, custom.id, {
      warmup: {
        cap_transactional: true,
        schedule: [
          { day: 1, per_provider_daily: 2 },
          { day: 3, per_provider_daily: 5 },
        ],
      },
    });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    const from = 'Custom <hi@custom.test>';
    await sendBatch(t, from, 4, 'big.test', 'custom');
    await eventually(async () => (await t.sql(`SELECT 1 FROM deliveries WHERE recipient LIKE 'custom%' AND ${WAITING}`)).length === 2, 20_000);
    await eventually(async () => (await countDelivered(t, 'big.test', 'custom%')) === 2, 20_000);
    const warmup = (await getDomain(t, custom.id)).warmup;
    assert.deepEqual(
      [warmup.day, warmup.days, warmup.per_provider_daily, warmup.custom_schedule, warmup.cap_transactional, warmup.today],
      [1, 3, 2, true, true, [{ provider: 'bigmail', sent: 2, remaining: 0 }]],
    );

    // Three days on the schedule has ended: no cap.
    await passDays(t, custom.id, 3);
    await eventually(async () => (await countDelivered(t, 'big.test', 'custom%')) === 4, 20_000);
    const ended = (await getDomain(t, custom.id)).warmup;
    assert.deepEqual([ended.status, ended.day, ended.per_provider_daily], ['ended', 4, null]);
  });

  it('releases the mail waiting for the next day at once when the cap is raised or the warm-up turned off', async () => {
    const domain = await createVerifiedDomain(t, 'raise.test');
    assert.equal((await patchDomain(t, domain.id, { warmup: { schedule: [{ day: 1, per_provider_daily: 1 }], cap_transactional: true } })).status, 200);
    const from = 'Raise <hi@raise.test>';
    await sendBatch(t, from, 3, 'big.test', 'raise');
    await eventually(async () => (await t.sql(`SELECT 1 FROM deliveries WHERE recipient LIKE 'raise%' AND ${WAITING}`)).length === 2, 20_000);
    await eventually(async () => (await countDelivered(t, 'big.test', 'raise%')) === 1, 20_000);

    const raised = await patchDomain(t, domain.id, { warmup: { schedule: [{ day: 1, per_provider_daily: 10 }] } });
    assert.equal(raised.status, 200, JSON.stringify(raised.body));
    await eventually(async () => (await countDelivered(t, 'big.test', 'raise%')) === 3, 20_000, 'delivered today, not tomorrow');

    await sendBatch(t, from, 8, 'big.test', 'more');
    await eventually(async () => (await t.sql(`SELECT 1 FROM deliveries WHERE recipient LIKE 'more%' AND ${WAITING}`)).length === 1, 20_000);
    assert.equal((await patchDomain(t, domain.id, { warmup: { enabled: false } })).status, 200);
    await eventually(async () => (await countDelivered(t, 'big.test', 'more%')) === 8, 20_000, 'no cap once the warm-up is off');
  });

  it('gives back what the provider deferred: retries do not use up the day', async () => {
    const domain = await createVerifiedDomain(t, 'defer.test');
    assert.equal((await patchDomain(t, domain.id, { warmup: { schedule: [{ day: 1, per_provider_daily: 1 }], cap_transactional: true } })).status, 200);
    t.sink.onRecipient = (address) => (address === 'busy0@big.test' ? { code: 452, message: '4.2.2 Mailbox busy, try again' } : undefined);
    await sendBatch(t, 'Defer <hi@defer.test>', 1, 'big.test', 'busy');
    await eventually(async () => (await t.sql(`SELECT 1 FROM deliveries WHERE recipient = 'busy0@big.test' AND attempts = 1`)).length === 1, 20_000);
    await eventually(async () => (await getDomain(t, domain.id)).warmup.today[0]?.sent === 0, 10_000, 'the deferred message given back');
    await sendBatch(t, 'Defer <hi@defer.test>', 1, 'big.test', 'fine');
    await eventually(async () => (await countDelivered(t, 'big.test', 'fine%')) === 1, 20_000, 'the cap was still free');
  });

  it('does not limit a domain that is not warming up (as every domain created before warm-up existed)', async () => {
    const old = await createVerifiedDomain(t, 'old.test');
    assert.equal((await patchDomain(t, old.id, { warmup: { enabled: false } })).status, 200);
    assert.equal((await t.sql('SELECT warmup_started_at FROM domains WHERE id = $1', [old.id]))[0].warmup_started_at, null);
    assert.equal((await getDomain(t, old.id)).warmup, null);
    await sendBatch(t, 'Old <hi@old.test>', 60, 'big.test', 'old');
    await eventually(async () => (await countDelivered(t, 'big.test', 'old%')) === 60, 30_000);
    assert.equal((await t.sql('SELECT count(*)::int AS n FROM warmup_sent WHERE domain_id = $1', [old.id]))[0].n, 0);
  });
});

const DAY_MS = 24 * 60 * 60_000;
/** Bulk mail that waited is due this long after the next day begins, after the transactional mail (warmup-gate.ts). */
const BULK_LAG_MS = 5 * 60_000;

/** `count` emails, one recipient each (`<prefix><i>@<domain>`), through the batch route. */
async function sendBatch(t: TestPostline, from: string, count: number, domain: string, prefix = 'user', headers?: Record<string, string>): Promise<void> {
  const emails = Array.from({ length: count }, (_, i) => ({ from, to: `${prefix}${i}@${domain}`, subject: 'Hello', html: '<p>Hello</p>', headers }));
  const { error } = await t.resend.batch.send(emails);
  assert.equal(error, null, JSON.stringify(error));
}

async function countDelivered(t: TestPostline, domain: string, recipients = '%'): Promise<number> {
  const [row] = await t.sql(`SELECT count(*)::int AS n FROM deliveries WHERE domain = $1 AND recipient LIKE $2 AND status = 'delivered'`, [domain, recipients]);
  return row.n;
}

/** What `days` days passing looks like to Postline: the warm-up began that much earlier, and the mail waiting for a later day is due that much sooner. */
async function passDays(t: TestPostline, domainId: string, days: number): Promise<void> {
  await t.sql(`UPDATE domains SET warmup_started_at = warmup_started_at - $2 * interval '1 day' WHERE id = $1`, [domainId, days]);
  await t.sql(
    `UPDATE deliveries d SET next_attempt_at = next_attempt_at - $2 * interval '1 day' FROM emails e
      WHERE e.id = d.email_id AND e.domain_id = $1 AND d.status = 'queued' AND d.last_response LIKE '451 4.4.5 Held by%'`,
    [domainId, days],
  );
}

async function getDomain(t: TestPostline, id: string): Promise<any> {
  const res = await fetch(`${t.url}/domains/${id}`, { headers: { authorization: `Bearer ${t.apiKey}` } });
  assert.equal(res.status, 200);
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
