// Warm-up of outbound IPs: with POSTLINE_OUTBOUND_IPS=127.0.0.2,127.0.0.3 each address sends at
// most its day's cap to each mailbox provider (50 on day 1 of the default schedule; the sink
// sees which address each message came from). Mail whose address is full goes from the other
// one; with both full bulk mail waits for the next day with the reason, while transactional mail
// goes anyway unless the domain caps it (`warmup.cap_transactional`); a day passes by moving the
// addresses' started_at (and the waiting rows' due time) back in the database, as the clock
// would. The sending domain's own warm-up is off, so only the addresses' caps hold.
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ProviderTable } from '../../src/providers/providers.js';
import { runQueueCommand } from '../../src/queue/cli.js';
import { BROADCAST_LAG_MS } from '../../src/warmup/warmup-gate.js';
import type { TestPostline } from '../support/postline.js';
import { eventually, FROM, publishMx, SENDER_DOMAIN, startDeliveryTest } from '../delivery/support.js';

const WAITING = `status = 'queued' AND last_response LIKE '451 4.4.5 Held by the outbound IPs'' warm-up%'`;

describe('warm-up of outbound IPs', () => {
  let t: TestPostline;
  let providersFile: string;
  let senderId: string;

  before(async () => {
    providersFile = path.join(await fs.mkdtemp(path.join(os.tmpdir(), 'postline-providers-')), 'providers.json');
    await fs.writeFile(providersFile, JSON.stringify([{ name: 'bigmail', mx: ['.bigmail.test'] }]));
    t = await startDeliveryTest({ POSTLINE_PROVIDERS_FILE: providersFile, POSTLINE_OUTBOUND_IPS: '127.0.0.2,127.0.0.3' });
    publishMx(t, 'big.test', [{ name: 'mx.bigmail.test', priority: 10, address: '127.0.0.1' }]);
    senderId = (await t.sql('SELECT id FROM domains WHERE name = $1', [SENDER_DOMAIN]))[0].id;
    assert.equal((await patchDomain(t, senderId, { warmup: { enabled: false } })).status, 200);
  });
  after(async () => {
    await t.stop();
    await fs.rm(path.dirname(providersFile), { recursive: true, force: true });
  });

  const fromEach = (prefix: string) => {
    const counts: Record<string, number> = {};
    for (const m of t.sink.messages.filter((m) => m.to[0]!.startsWith(prefix))) {
      const ip = m.remoteAddress.replace(/^::ffff:/, '');
      counts[ip] = (counts[ip] ?? 0) + 1;
    }
    return counts;
  };

  it("sends from another address once one has sent its day's cap, and holds the rest of the bulk mail for the next day when both have", async () => {
    // Pinned to 127.0.0.2: its 50 for the day, all from it.
    assert.equal((await patchDomain(t, senderId, { outbound_ips: ['127.0.0.2'] })).status, 200);
    await sendBatch(t, 50, 'pinned', { bulk: true });
    await eventually(async () => (await countDelivered(t, 'pinned%')) === 50, 30_000);
    assert.deepEqual(fromEach('pinned'), { '127.0.0.2': 50 });

    // Unpinned: 127.0.0.2 is full, so its turns go from 127.0.0.3 (50 a day), and what is over waits.
    assert.equal((await patchDomain(t, senderId, { outbound_ips: null })).status, 200);
    await sendBatch(t, 60, 'pool', { bulk: true });
    const waiting = await eventually(async () => {
      const rows = await t.sql(`SELECT last_response, next_attempt_at, attempts FROM deliveries WHERE recipient LIKE 'pool%' AND ${WAITING}`);
      return rows.length === 10 && rows;
    }, 30_000);
    await eventually(async () => (await countDelivered(t, 'pool%')) === 50, 30_000);
    assert.deepEqual(fromEach('pool'), { '127.0.0.3': 50 });
    assert.match(
      waiting[0].last_response,
      /^451 4\.4\.5 Held by the outbound IPs' warm-up: 127\.0\.0\.2 \(day 1 of 14: 50\), 127\.0\.0\.3 \(day 1 of 14: 50\) sent all they may to bigmail today; next try at \S+Z \(127\.0\.0\.\d's next day\)$/,
    );
    assert.equal(waiting[0].attempts, 0, 'no attempt counted');
    const ips = await t.sql('SELECT ip, started_at FROM outbound_ip_warmup ORDER BY ip');
    assert.deepEqual(
      ips.map((r) => r.ip),
      ['127.0.0.2', '127.0.0.3'],
    );
    const firstNextDay = Math.min(...ips.map((r) => r.started_at.getTime() + DAY_MS));
    for (const row of waiting)
      assert.equal(row.next_attempt_at.getTime(), firstNextDay + BROADCAST_LAG_MS, "bulk mail: due just after the first address's day 2 begins");

    // Operators see each address's progress.
    const { body } = await get(t, '/queue');
    assert.deepEqual(
      body.outbound_ips.map((w: any) => [w.ip, w.status, w.day, w.per_provider_daily, w.today]),
      [
        ['127.0.0.2', 'warming_up', 1, 50, [{ provider: 'bigmail', sent: 50, remaining: 0 }]],
        ['127.0.0.3', 'warming_up', 1, 50, [{ provider: 'bigmail', sent: 50, remaining: 0 }]],
      ],
    );
    let printed = '';
    await runQueueCommand(t.postline.db, new ProviderTable(t.postline.config.providers), [], (text) => (printed += text));
    assert.match(printed, /^OUTBOUND IP +WARM-UP +DAY +CAP\/PROVIDER +NEXT DAY +SENT TODAY$/m);
    assert.match(printed, /^127\.0\.0\.3 +warming up +1 of 14 +50 +\S+ +bigmail 50 \(0 left\)$/m);

    // Transactional mail is never held by default: it goes from an address over its cap, and counts.
    await sendBatch(t, 5, 'reset');
    await eventually(async () => (await countDelivered(t, 'reset%')) === 5, 30_000, 'transactional mail over the caps');
    const over = (await get(t, '/queue')).body.outbound_ips.map((w: any) => w.today[0].sent);
    assert.equal(over[0] + over[1], 105);
    // A domain that caps its transactional mail has it held by the addresses' warm-up too.
    assert.equal((await patchDomain(t, senderId, { warmup: { cap_transactional: true } })).status, 200);
    await sendBatch(t, 3, 'capped');
    await eventually(async () => (await t.sql(`SELECT 1 FROM deliveries WHERE recipient LIKE 'capped%' AND ${WAITING}`)).length === 3, 30_000);

    // A day passes: day 2 allows 100 an address; the waiting mail goes.
    await passDays(t, 1);
    await eventually(async () => (await countDelivered(t, 'pool%')) === 60, 30_000, 'the mail that waited');
    await eventually(async () => (await countDelivered(t, 'capped%')) === 3, 30_000, 'the capped transactional mail');
    const day2 = (await get(t, '/queue')).body.outbound_ips;
    assert.deepEqual(
      day2.map((w: any) => w.day),
      [2, 2],
    );
    assert.equal(
      day2.reduce((n: number, w: any) => n + (w.today[0]?.sent ?? 0), 0),
      10 + 3,
    );
  });
});

const DAY_MS = 24 * 60 * 60_000;

/** A batch to big.test; `bulk`: marked as bulk mail the way warm-up reads it (a List-Unsubscribe header), else transactional. */
async function sendBatch(t: TestPostline, count: number, prefix: string, { bulk = false } = {}): Promise<void> {
  const headers = bulk ? { 'List-Unsubscribe': '<mailto:leave@example.test>' } : undefined;
  const emails = Array.from({ length: count }, (_, i) => ({ from: FROM, to: `${prefix}${i}@big.test`, subject: 'Hello', html: '<p>Hello</p>', headers }));
  const { error } = await t.resend.batch.send(emails);
  assert.equal(error, null, JSON.stringify(error));
}

async function countDelivered(t: TestPostline, recipients: string): Promise<number> {
  const [row] = await t.sql(`SELECT count(*)::int AS n FROM deliveries WHERE recipient LIKE $1 AND status = 'delivered'`, [recipients]);
  return row.n;
}

/** `days` days passing for the addresses: their warm-up began that much earlier, and the mail waiting for a later day is due that much sooner (bulk mail's lag passed too). */
async function passDays(t: TestPostline, days: number): Promise<void> {
  await t.sql(`UPDATE outbound_ip_warmup SET started_at = started_at - $1 * interval '1 day'`, [days]);
  await t.sql(`UPDATE deliveries SET next_attempt_at = next_attempt_at - $1 * interval '1 day' - $2 * interval '1 millisecond' WHERE ${WAITING}`, [
    days,
    BROADCAST_LAG_MS,
  ]);
}

async function get(t: TestPostline, pathname: string): Promise<{ status: number; body: any }> {
  const res = await fetch(`${t.url}${pathname}`, { headers: { authorization: `Bearer ${t.apiKey}` } });
  return { status: res.status, body: await res.json() };
}

async function patchDomain(t: TestPostline, id: string, body: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${t.url}/domains/${id}`, {
    method: 'PATCH',
    headers: { authorization: `Bearer ${t.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}
