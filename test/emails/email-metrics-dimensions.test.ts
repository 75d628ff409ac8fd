// GET /emails/metrics broken down and filtered by sending domain, broadcast and email (the
// SDK's `domain` / `broadcast` / `email` dimensions and domainId / broadcastId / emailId),
// alone and with `period`: figures checked against what was sent, delivered and bounced from
// two domains, as transactional mail and as a broadcast.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type EmailMetricsDataRow, Resend } from 'resend';
import { createAccount } from '../../src/accounts/accounts.js';
import { createContacts, createSegment, FROM as NEWS_FROM, startBroadcastTest, waitForStatus } from '../broadcasts/support.js';
import { FROM as SENDER_FROM, send, waitForLastEvent } from '../delivery/support.js';
import { createVerifiedDomain } from '../support/domains.js';
import { eventually } from '../support/eventually.js';
import { rawRequest, type TestPostline } from '../support/postline.js';

const FIGURES = ['sent', 'delivered', 'bounced', 'delivery_rate', 'bounce_rate'] as const;
const figures = (sent: number, delivered: number, bounced: number) => ({
  sent,
  delivered,
  bounced,
  delivery_rate: sent ? Math.round((delivered / sent) * 10_000) / 100 : 0,
  bounce_rate: sent ? Math.round((bounced / sent) * 10_000) / 100 : 0,
});
/** A row's figures without its dimension fields. */
const only = (row: EmailMetricsDataRow) => Object.fromEntries(FIGURES.map((m) => [m, row[m]]));

describe('GET /emails/metrics by domain, broadcast and email', () => {
  let t: TestPostline;
  let sender: { id: string; name: string };
  let news: { id: string; name: string };
  let broadcastId: string;
  /** Every email sent, with its outcome. */
  const outcomes = new Map<string, 'delivered' | 'bounced'>();
  const fromSender: string[] = [];

  before(async () => {
    t = await startBroadcastTest();
    news = (await t.resend.domains.list()).data!.data.find((d) => d.name === 'news.test')!;
    sender = await createVerifiedDomain(t, 'sender.test');
    t.sink.onRecipient = (address) => (address === 'gone@example.org' ? { code: 550, message: '5.1.1 No such user' } : undefined);
    // From sender.test: 2 delivered, 1 bounced; from news.test: 1 delivered, and a broadcast to 3 (2 delivered, 1 bounced).
    for (const [to, outcome] of [
      ['delivered@resend.dev', 'delivered'],
      ['delivered+2@resend.dev', 'delivered'],
      ['bounced@resend.dev', 'bounced'],
    ] as const) {
      const id = await send(t, { from: SENDER_FROM, to });
      outcomes.set(id, outcome);
      fromSender.push(id);
    }
    outcomes.set(await send(t, { from: NEWS_FROM, to: 'delivered+3@resend.dev' }), 'delivered');
    const segmentId = await createSegment(t);
    await createContacts(t, segmentId, [{ email: 'ann@example.org' }, { email: 'bob@example.org' }, { email: 'gone@example.org' }]);
    const created = await t.resend.broadcasts.create({ segmentId, name: 'Autumn news', from: NEWS_FROM, subject: 'News', html: '<p>News</p>', send: true });
    assert.equal(created.error, null, JSON.stringify(created.error));
    broadcastId = created.data!.id;
    await waitForStatus(t, broadcastId, 'sent');
    const broadcastEmails = await t.sql(`SELECT e.id, d.recipient FROM emails e JOIN deliveries d ON d.email_id = e.id WHERE e.broadcast_id = $1`, [
      broadcastId,
    ]);
    assert.equal(broadcastEmails.length, 3);
    for (const e of broadcastEmails) outcomes.set(e.id, e.recipient === 'gone@example.org' ? 'bounced' : 'delivered');
    for (const [id, outcome] of outcomes) await waitForLastEvent(t, id, outcome, 30_000);
    // The bounce of the broadcast's email is counted with the event that records it.
    await eventually(async () => (await t.resend.emails.metrics({ metrics: ['bounced'] })).data?.totals.bounced === 2, 10_000, 'both bounces counted');
  });
  after(() => t.stop());

  it('breaks the figures down by sending domain, with its id and name, and filters by domain', async () => {
    const { data, error } = await t.resend.emails.metrics({ metrics: [...FIGURES], dimensions: ['domain'] });
    assert.equal(error, null);
    assert.deepEqual(data!.dimensions, ['domain']);
    assert.deepEqual(data!.totals, figures(7, 5, 2));
    assert.deepEqual(
      data!.data,
      [news, sender].map((d) => ({ domain_id: d.id, domain_name: d.name, ...(d === news ? figures(4, 3, 1) : figures(3, 2, 1)) })),
    );
    const filtered = await t.resend.emails.metrics({ metrics: [...FIGURES], domainId: [sender.id] });
    assert.deepEqual(filtered.data!.totals, figures(3, 2, 1));
    assert.equal(filtered.data!.data, undefined);
    const both = await rawRequest(t, 'GET', `/emails/metrics?metrics=sent&domain_id=${sender.id}&domain_id=${news.id}`);
    assert.deepEqual(both.body.totals, { sent: 7 });
  });

  it('breaks the figures down by broadcast, mail of no broadcast in a row without broadcast_id, and filters by broadcast', async () => {
    const { data } = await t.resend.emails.metrics({ metrics: [...FIGURES], dimensions: ['broadcast'] });
    assert.deepEqual(data!.totals, figures(7, 5, 2));
    const rows = data!.data!;
    assert.equal(rows.length, 2);
    assert.deepEqual(rows[0], { broadcast_id: broadcastId, broadcast_name: 'Autumn news', ...figures(3, 2, 1) });
    assert.deepEqual(rows[1], figures(4, 3, 1));
    const filtered = await t.resend.emails.metrics({ metrics: [...FIGURES], broadcastId: [broadcastId] });
    assert.deepEqual(filtered.data!.totals, figures(3, 2, 1));
    // Filters combine: the broadcast went from news.test only.
    const fromSenderDomain = await t.resend.emails.metrics({ metrics: [...FIGURES], broadcastId: [broadcastId], domainId: [sender.id] });
    assert.deepEqual(fromSenderDomain.data!.totals, figures(0, 0, 0));
    // Domain and broadcast together: one row per pair seen.
    const pairs = await t.resend.emails.metrics({ metrics: ['sent'], dimensions: ['domain', 'broadcast'] });
    assert.deepEqual(
      pairs.data!.data!.map((r) => [r.domain_name, r.broadcast_name ?? null, r.sent]),
      [
        ['news.test', 'Autumn news', 3],
        ['news.test', null, 1],
        ['sender.test', null, 3],
      ],
    );
  });

  it('breaks the figures down per email, counted from its events, and filters by email', async () => {
    const { data } = await t.resend.emails.metrics({ metrics: [...FIGURES, 'bounced_permanent'], dimensions: ['email'] });
    assert.deepEqual(data!.totals, { ...figures(7, 5, 2), bounced_permanent: 2 });
    const rows = data!.data!;
    assert.deepEqual(new Set(rows.map((r) => r.email_id)), new Set(outcomes.keys()));
    for (const row of rows) {
      const outcome = outcomes.get(row.email_id!);
      assert.deepEqual(
        { ...only(row), bounced_permanent: row.bounced_permanent },
        {
          ...(outcome === 'delivered' ? figures(1, 1, 0) : figures(1, 0, 1)),
          bounced_permanent: outcome === 'bounced' ? 1 : 0,
        },
      );
    }
    const two = fromSender.slice(1);
    const filtered = await t.resend.emails.metrics({ metrics: [...FIGURES], emailId: two });
    assert.deepEqual(filtered.data!.totals, figures(2, 1, 1));
    // With the domain: each email's row names its domain too.
    const withDomain = await t.resend.emails.metrics({ metrics: ['sent'], dimensions: ['email', 'domain'], emailId: two });
    assert.deepEqual(
      new Set(withDomain.data!.data!.map((r) => JSON.stringify([r.email_id, r.domain_id, r.domain_name, r.sent]))),
      new Set(two.map((id) => JSON.stringify([id, sender.id, 'sender.test', 1]))),
    );
  });

  it('combines each with `period`: every period for every domain or broadcast, per email the periods it has figures in, summing to the totals', async () => {
    const hourly = await t.resend.emails.metrics({
      metrics: [...FIGURES],
      dimensions: ['period', 'domain'],
      granularity: 'hourly',
      startDate: new Date(Date.now() - 3 * 3600_000).toISOString(),
    });
    const rows = hourly.data!.data!;
    const hours = new Set(rows.map((r) => r.period));
    assert.ok(hours.size === 4 || hours.size === 5, `${hours.size} hours`);
    assert.equal(rows.length, hours.size * 2);
    for (const domain of [news, sender]) {
      const mine = rows.filter((r) => r.domain_id === domain.id);
      assert.equal(mine.length, hours.size);
      assert.equal(
        mine.reduce((n, r) => n + r.sent!, 0),
        domain === news ? 4 : 3,
      );
    }
    assert.deepEqual(hourly.data!.totals, figures(7, 5, 2));

    const daily = await t.resend.emails.metrics({ metrics: ['sent', 'delivered'], dimensions: ['period', 'broadcast'], broadcastId: [broadcastId] });
    assert.equal(daily.data!.data!.length, 7);
    assert.deepEqual(daily.data!.data!.at(-1), {
      period: new Date().toISOString().slice(0, 10),
      broadcast_id: broadcastId,
      broadcast_name: 'Autumn news',
      sent: 3,
      delivered: 2,
    });

    const perEmail = await t.resend.emails.metrics({ metrics: ['sent', 'bounce_rate'], dimensions: ['period', 'email'], emailId: [fromSender[2]!] });
    // Per email, only the periods it has figures in.
    assert.deepEqual(perEmail.data!.data, [{ period: new Date().toISOString().slice(0, 10), email_id: fromSender[2], sent: 1, bounce_rate: 100 }]);
    assert.deepEqual(perEmail.data!.totals, { sent: 1, bounce_rate: 100 });
  });

  it("counts nothing for another account's ids", async () => {
    const stranger = await createAccount(t.postline.db, 'stranger');
    const theirs = new Resend(stranger.token, { baseUrl: t.url });
    for (const options of [{ domainId: [sender.id] }, { broadcastId: [broadcastId] }, { emailId: [...outcomes.keys()].slice(0, 2) }]) {
      const { data, error } = await theirs.emails.metrics({ metrics: ['sent', 'delivered'], dimensions: ['domain'], ...options });
      assert.equal(error, null);
      assert.deepEqual([data!.totals, data!.data], [{ sent: 0, delivered: 0 }, []], JSON.stringify(options));
    }
  });

  it('refuses `email` with `broadcast`, and ids that are not ids, with 422 in the shape of Resend errors', async () => {
    const id = '00000000-0000-4000-8000-000000000000';
    const cases: [string, RegExp][] = [
      ['dimensions=email,broadcast', /`email` dimension cannot be combined with the `broadcast` dimension/],
      [`dimensions=broadcast&email_id=${id}`, /`email_id` cannot be combined with the `broadcast` dimension/],
      [`dimensions=email&broadcast_id=${id}`, /`email` dimension cannot be combined with the `broadcast_id`/],
      [`email_id=${id}&broadcast_id=${id}`, /`email_id` cannot be combined with the `broadcast_id`/],
      ['domain_id=sender.test', /domain_id/],
      ['email_id=1,2', /email_id/],
      [`broadcast_id=${Array.from({ length: 101 }, (_, i) => id.replace(/0{3}$/, String(i).padStart(3, '0'))).join(',')}`, /at most 100/],
    ];
    for (const [query, message] of cases) {
      const res = await rawRequest(t, 'GET', `/emails/metrics?${query}`);
      assert.equal(res.status, 422, query);
      assert.deepEqual(Object.keys(res.body).sort(), ['message', 'name', 'statusCode'], query);
      assert.equal(res.body.name, 'validation_error', query);
      assert.match(res.body.message, message, query);
    }
  });
});
