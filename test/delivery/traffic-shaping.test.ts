// Traffic shaping against MX hosts that behave like providers (POSTLINE_PROVIDERS_FILE rolls
// each test domain up to a provider of its own): one that answers 421 4.7.0 when more than a
// few messages arrive within a second, one that blocks the sending IP (554 5.7.1, Spamhaus), and
// one with a configured rate. Postline converges under the throttling provider's limit and
// delivers everything without a failed email, and once the provider stops throttling it
// recovers its speed (POSTLINE_SHAPING_QUIET short, so that takes seconds, not minutes); a blocklisting answer (to one of the account's two
// sending domains) pauses the provider for that sending domain only, with the reply as the
// reason, while the other domain's mail to it still goes; mail waiting for its rate waits without an attempt
// or an event; the queue view shows each provider's state.
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ProviderTable } from '../../src/providers/providers.js';
import { createVerifiedDomain } from '../support/domains.js';
import { runQueueCommand } from '../../src/queue/cli.js';
import type { TestPostline } from '../support/postline.js';
import { deliveriesOf, eventsOf, eventually, publishMx, send, startDeliveryTest, waitForLastEvent } from './support.js';

const THROTTLE_AFTER = 4; // messages within a second, then 421
/** The account's second sending domain, which the blocking provider does not block. */
const SECOND_SENDER = 'second-sender.test';

describe('delivery: traffic shaping per provider', () => {
  let t: TestPostline;
  let providersFile: string;
  const arrivals: number[] = [];
  let refusals = 0;
  /** The throttling provider throttles until the test lets it recover. */
  let throttling = true;

  before(async () => {
    providersFile = path.join(await fs.mkdtemp(path.join(os.tmpdir(), 'postline-providers-')), 'providers.json');
    await fs.writeFile(
      providersFile,
      JSON.stringify([
        // 600 a minute (10 a second): more than the throttling host takes.
        { name: 'throttler', mx: ['.throttle.test'], shaping: { connections: 2, messages_per_connection: 100, messages_per_minute: 600 } },
        { name: 'blocker', mx: ['.block.test'] },
        { name: 'slowpoke', mx: ['.slow.test'], shaping: { messages_per_minute: 60 } },
      ]),
    );
    t = await startDeliveryTest({ POSTLINE_PROVIDERS_FILE: providersFile, POSTLINE_RETRY_DELAYS: '1s', POSTLINE_SHAPING_QUIET: '5s' });
    publishMx(t, 'throttled.test', [{ name: 'mx.throttle.test', priority: 10, address: '127.0.0.1' }]);
    publishMx(t, 'blocked.test', [{ name: 'mx.block.test', priority: 10, address: '127.0.0.1' }]);
    publishMx(t, 'waiting.test', [{ name: 'mx.slow.test', priority: 10, address: '127.0.0.1' }]);
    await createVerifiedDomain(t, SECOND_SENDER);
    // Shaping alone: the new domain's warm-up (50 a provider on day 1) would hold the 80 messages to the throttler.
    const res = await fetch(`${t.url}/domains/${(await t.sql(`SELECT id FROM domains WHERE name = 'sender.test'`))[0].id}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${t.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ warmup: { enabled: false } }),
    });
    assert.equal(res.status, 200);
    t.sink.onRecipient = (address, mailFrom) => {
      // The blocklist lists sender.test (its bounce addresses), not the second domain.
      if (address.endsWith('@blocked.test') && /[@.]sender\.test$/.test(mailFrom))
        return { code: 554, message: '5.7.1 Service unavailable; Client host [127.0.0.1] blocked using zen.spamhaus.org' };
      if (!address.endsWith('@throttled.test') || !throttling) return undefined;
      const now = Date.now();
      while (arrivals.length > 0 && arrivals[0]! <= now - 1000) arrivals.shift();
      if (arrivals.length >= THROTTLE_AFTER) {
        refusals++;
        return { code: 421, message: '4.7.0 Too many messages, slow down' };
      }
      arrivals.push(now);
      return undefined;
    };
  });
  after(async () => {
    await t.stop();
    await fs.rm(path.dirname(providersFile), { recursive: true, force: true });
  });

  it('slows down for a provider that answers 421, delivers every message without a failure, and recovers its speed', async () => {
    const firstSpan = await sendAndTime('user', 40);
    assert.ok(refusals > 0, 'the host did throttle');
    const delivered = t.sink.messages.filter((m) => m.to[0]!.endsWith('@throttled.test'));
    assert.equal(delivered.length, 40, 'each message once');
    const failed = await t.sql(`SELECT count(*)::int AS n FROM deliveries WHERE domain = 'throttled.test' AND status <> 'delivered'`);
    assert.equal(failed[0].n, 0);
    // Slowed, as the queue view shows: the state comes from the shaper of the node that sent.
    const queue = await shapingOf('throttler', (s) => s?.state === 'throttled');
    assert.ok(queue.rate_per_minute < 600, `rate ${queue.rate_per_minute}`);
    assert.equal(queue.limit_per_minute, 600);
    assert.match(queue.last_signal.reply, /^421 4\.7\.0 Too many messages/);
    // `postline queue` says the same.
    let printed = '';
    await runQueueCommand(t.postline.db, new ProviderTable(t.postline.config.providers), [], (text) => (printed += text));
    assert.match(printed, /^SHAPING +STATE +RATE\/MIN +LIMIT\/MIN/m);
    assert.match(printed, /^throttler +throttled +\d+ +600 +\d+ +\S+ 421 4\.7\.0 Too many messages/m);

    // The provider takes mail again: after probe periods without a 421 the rate is back at its limit,
    // and the next 40 messages go faster than the first 40 did.
    throttling = false;
    const recovered = await shapingOf('throttler', (s) => s?.state === 'limited');
    assert.equal(recovered.rate_per_minute, 600);
    assert.match(recovered.last_signal.reply, /^421 4\.7\.0/, 'the last slow-down stays on show');
    const refusalsBefore = refusals;
    const secondSpan = await sendAndTime('again', 40);
    assert.equal(refusals, refusalsBefore);
    assert.ok(secondSpan < firstSpan, `40 messages in ${secondSpan} ms at full speed, ${firstSpan} ms while throttled`);
  });

  /** Sends `count` messages to throttled.test and waits for them; ms from the first arrival at the sink to the last. */
  async function sendAndTime(prefix: string, count: number): Promise<number> {
    const ids = await Promise.all(Array.from({ length: count }, (_, i) => send(t, { to: `${prefix}${i}@throttled.test` })));
    for (const id of ids) await waitForLastEvent(t, id, 'delivered', 60_000);
    const times = t.sink.messages.filter((m) => m.to[0]!.startsWith(prefix) && m.to[0]!.endsWith('@throttled.test')).map((m) => m.receivedAt.getTime());
    return Math.max(...times) - Math.min(...times);
  }

  /** The destination's shaping in the queue view once `ready`; with no mail going, the rate doubles each probe period, moved on every 5 s (worker.ts). */
  async function shapingOf(destination: string, ready: (s: any) => boolean): Promise<any> {
    return eventually(async () => {
      const { body } = await get(t, '/queue');
      const state = body.shaping.find((s: any) => s.destination === destination);
      return ready(state) && state;
    }, 75_000);
  }

  it('pauses a provider that says the sender is blocklisted for that sending domain only, with the reply as the reason', async () => {
    const first = await send(t, { to: 'someone@blocked.test' });
    await waitForLastEvent(t, first, 'bounced');
    const bounce = (await eventsOf(t, first)).at(-1)!.data.bounce;
    assert.deepEqual([bounce.type, bounce.subType], ['Transient', 'General']);
    assert.equal((await t.resend.suppressions.get('someone@blocked.test')).data, null, 'the address is fine: not suppressed');
    const { body } = await get(t, '/queue');
    const pause = body.pauses.find((p: any) => p.destination === 'blocker');
    assert.equal(pause.kind, 'provider');
    assert.equal(pause.sending_domain, 'sender.test');
    assert.match(pause.reason, /^Blocked by blocker for mail from sender\.test: 554 5\.7\.1 .*spamhaus/);
    let printed = '';
    await runQueueCommand(t.postline.db, new ProviderTable(t.postline.config.providers), [], (text) => (printed += text));
    assert.match(printed, /^blocker +provider +sender\.test +\S+ +Blocked by blocker for mail from sender\.test/m);

    const held = await send(t, { to: 'other@blocked.test' });
    const fromSecond = await send(t, { to: 'other@blocked.test', from: `Second <hello@${SECOND_SENDER}>` });
    await waitForLastEvent(t, fromSecond, 'delivered');
    await eventually(async () => (await deliveriesOf(t, held))[0]?.status === 'paused', 10_000, 'held by the pause');
    const received = t.sink.messages.filter((m) => m.to[0] === 'other@blocked.test');
    assert.equal(received.length, 1, 'only the second domain’s message reached the blocking provider');
    assert.match(received[0]!.from, /[@.]second-sender\.test$/);
  });

  it('holds mail over a provider’s configured rate without an attempt or an event, then delivers it at that rate', async () => {
    const ids = await Promise.all(Array.from({ length: 5 }, (_, i) => send(t, { to: `w${i}@waiting.test` })));
    const waiting = await eventually(async () => {
      const rows = await t.sql(
        `SELECT last_response, attempts FROM deliveries WHERE domain = 'waiting.test' AND status = 'queued' AND last_response LIKE '451 4.4.5%'`,
      );
      return rows.length > 0 && rows;
    }, 10_000);
    assert.match(waiting[0].last_response, /^451 4\.4\.5 Waiting for slowpoke's sending rate: 60 messages a minute/);
    assert.equal(waiting[0].attempts, 0, 'no attempt counted');
    for (const id of ids) await waitForLastEvent(t, id, 'delivered', 20_000);
    for (const id of ids)
      assert.deepEqual(
        (await eventsOf(t, id)).map((e) => e.type),
        ['email.sent', 'email.delivered'],
        'no delivery_delayed',
      );
    const times = t.sink.messages.filter((m) => m.to[0]!.endsWith('@waiting.test')).map((m) => m.receivedAt.getTime());
    assert.ok(Math.max(...times) - Math.min(...times) >= 2_000, 'spread over seconds, not sent at once');
  });
});

async function get(t: TestPostline, pathname: string): Promise<{ status: number; body: any }> {
  const res = await fetch(`${t.url}${pathname}`, { headers: { authorization: `Bearer ${t.apiKey}` } });
  return { status: res.status, body: await res.json() };
}
