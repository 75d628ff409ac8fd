import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import PostalMime from 'postal-mime';
import { type EmailMetric, type GetEmailsMetricsResponseSuccess, Resend } from 'resend';
import { createAccount } from '../../src/accounts/accounts.js';
import { foldEmailMetricShards } from '../../src/events/email-metrics.js';
import { eventually, eventsOf, send, startDeliveryTest, waitForLastEvent } from '../delivery/support.js';
import { rawRequest, type TestPostline } from '../support/postline.js';

const ALL: EmailMetric[] = [
  'received',
  'delivered',
  'complained',
  'suppressed',
  'bounced',
  'bounced_transient',
  'bounced_permanent',
  'bounced_undetermined',
  'opened',
  'clicked',
  'unsubscribed',
  'delivery_delayed',
  'failed',
  'sent',
  'unique_opened',
  'unique_clicked',
  'delivery_rate',
  'open_rate',
  'click_rate',
  'bounce_rate',
  'complaint_rate',
  'unsubscribe_rate',
];

describe('GET /emails/metrics (emails.metrics): counts and rates over a period, kept by the event writer', () => {
  let t: TestPostline;
  before(async () => {
    t = await startDeliveryTest();
  });
  after(() => t.stop());

  it('answers zeros for an account that sent nothing, over the last 7 days by default', async () => {
    const { data, error } = await t.resend.emails.metrics();
    assert.equal(error, null);
    const metrics: GetEmailsMetricsResponseSuccess = data!;
    assert.equal(metrics.object, 'metrics');
    assert.deepEqual(metrics.metrics, ALL);
    assert.deepEqual(metrics.dimensions, []);
    assert.equal(metrics.granularity, 'daily');
    assert.equal(metrics.data, undefined);
    assert.deepEqual(metrics.totals, Object.fromEntries(ALL.map((m) => [m, 0])));
    const span = Date.parse(metrics.end_date) - Date.parse(metrics.start_date);
    assert.equal(span, 6 * 24 * 3600_000);
    assert.ok(Math.abs(Date.parse(metrics.end_date) - Date.now()) < 60_000);
  });

  it("counts what was sent to resend.dev's test addresses and a real MX, opens and clicks, as totals and per hour", async () => {
    const { data: domains } = await t.resend.domains.list();
    await t.resend.domains.update({ id: domains!.data[0]!.id, openTracking: true, clickTracking: true });
    t.dns.set('example.org', { MX: [{ exchange: 'mx.example.org', priority: 10 }] });
    t.dns.set('mx.example.org', { A: ['127.0.0.1'] });
    const outcomes: [string, string][] = [
      ['delivered@resend.dev', 'delivered'],
      ['delivered+2@resend.dev', 'delivered'],
      ['bounced@resend.dev', 'bounced'],
      ['complained@resend.dev', 'complained'],
      ['ann@example.org', 'delivered'],
    ];
    const ids: string[] = [];
    for (const [to] of outcomes) ids.push(await send(t, { to, html: '<p><a href="https://acme.test/pricing">Pricing</a></p>' }));
    for (const [i, [, last]] of outcomes.entries()) await waitForLastEvent(t, ids[i]!, last);
    // Two opens and a click of the email the sink received: one unique open, one unique click.
    const html = (await PostalMime.parse(t.sink.messages.find((m) => m.to.includes('ann@example.org'))!.raw)).html!;
    const pixel = /<img src="([^"]+)"/.exec(html)![1]!.replace(/&amp;/g, '&');
    const link = /href="([^"]+)"/.exec(html)![1]!.replace(/&amp;/g, '&');
    const visit = (url: string) => fetch(t.url + new URL(url).pathname + new URL(url).search, { redirect: 'manual' });
    for (const url of [pixel, pixel, link]) assert.ok([200, 302].includes((await visit(url)).status));
    await eventually(async () => (await eventsOf(t, ids[4]!)).some((e) => e.type === 'email.clicked'), 5000, 'the click');

    const { data, error } = await t.resend.emails.metrics({
      startDate: new Date(Date.now() - 24 * 3600_000).toISOString(),
      dimensions: ['period'],
      granularity: 'hourly',
    });
    assert.equal(error, null);
    const expected = {
      sent: 5,
      delivered: 4,
      bounced: 1,
      bounced_permanent: 1,
      bounced_transient: 0,
      bounced_undetermined: 0,
      complained: 1,
      opened: 2,
      unique_opened: 1,
      clicked: 1,
      unique_clicked: 1,
      suppressed: 0,
      failed: 0,
      delivery_delayed: 0,
      received: 0,
      unsubscribed: 0,
      delivery_rate: 80,
      bounce_rate: 20,
      open_rate: 25,
      click_rate: 25,
      complaint_rate: 25,
      unsubscribe_rate: 0,
    };
    assert.deepEqual(data!.totals, expected);
    assert.deepEqual(data!.dimensions, ['period']);
    assert.equal(data!.granularity, 'hourly');
    // Every hour of the range, oldest first, named by its UTC instant; the figures sum to the totals.
    const rows = data!.data!;
    assert.ok(rows.length === 24 || rows.length === 25, `${rows.length} hours`);
    for (const [i, row] of rows.entries()) {
      assert.match(row.period!, /^\d{4}-\d{2}-\d{2}T\d{2}:00:00\.000Z$/);
      if (i > 0) assert.equal(Date.parse(row.period!) - Date.parse(rows[i - 1]!.period!), 3600_000);
    }
    assert.equal(
      rows.reduce((n, row) => n + row.sent!, 0),
      5,
    );
    assert.equal(rows.at(-1)!.period, `${new Date().toISOString().slice(0, 13)}:00:00.000Z`);

    // Only the metrics asked for; daily periods in a time zone, named by their local date.
    const daily = await t.resend.emails.metrics({ metrics: ['sent', 'open_rate'], dimensions: ['period'], timezone: 'Pacific/Auckland' });
    assert.deepEqual(daily.data!.metrics, ['sent', 'open_rate']);
    assert.deepEqual(daily.data!.totals, { sent: 5, open_rate: 25 });
    assert.equal(daily.data!.data!.length, 7);
    const today = new Intl.DateTimeFormat('en-CA', { timeZone: 'Pacific/Auckland' }).format(new Date());
    assert.deepEqual(daily.data!.data!.at(-1), { period: today, sent: 5, open_rate: 25 });
    for (const row of daily.data!.data!.slice(0, -1)) assert.deepEqual({ sent: row.sent, open_rate: row.open_rate }, { sent: 0, open_rate: 0 });

    // Lists may also be given by repeating the parameter.
    const repeated = await rawRequest(t, 'GET', '/emails/metrics?metrics=sent&metrics=delivered,bounced');
    assert.deepEqual(repeated.body.totals, { sent: 5, delivered: 4, bounced: 1 });

    // A range that ended before anything was sent.
    const before = await t.resend.emails.metrics({ startDate: '2026-01-01', endDate: '2026-01-31', metrics: ['sent'] });
    assert.deepEqual(before.data!.totals, { sent: 0 });
    assert.equal(before.data!.start_date, '2026-01-01T00:00:00.000Z');
    assert.equal(before.data!.end_date, '2026-02-01T00:00:00.000Z');

    // Another account's figures are its own.
    const stranger = await createAccount(t.postline.db, 'stranger');
    const theirs = await new Resend(stranger.token, { baseUrl: t.url }).emails.metrics({ metrics: ['sent', 'delivered'] });
    assert.deepEqual(theirs.data!.totals, { sent: 0, delivered: 0 });
  });

  it("answers the same after housekeeping folds past hours' shards into one row per hour and metric", async () => {
    // Past hours as several connections would have left them (the writer only adds to the
    // current hour, so these are written here, for another account).
    const past = await createAccount(t.postline.db, 'past');
    await t.postline.db.query(
      `INSERT INTO email_metrics (account_id, hour, metric, domain_id, shard, count)
       SELECT $1, date_trunc('hour', now()) - h * interval '1 hour', m, ('00000000-0000-4000-8000-00000000000' || s % 2)::uuid, s, 1
         FROM generate_series(2, 5) h, unnest(ARRAY['sent', 'delivered']) m, generate_series(0, 3) s`,
      [past.accountId],
    );
    const client = new Resend(past.token, { baseUrl: t.url });
    // Two (unknown) sending domains: the folding keeps them apart.
    const ask = () => client.emails.metrics({ metrics: ['sent', 'delivery_rate'], dimensions: ['period', 'domain'], granularity: 'hourly' });
    const before = (await ask()).data!;
    assert.deepEqual(before.totals, { sent: 16, delivery_rate: 100 });
    assert.ok((await foldEmailMetricShards(t.postline.db)) >= 24);
    const afterFold = (await ask()).data!;
    assert.deepEqual([afterFold.totals, afterFold.data], [before.totals, before.data]);
    const rows = await t.sql(`SELECT shard, count FROM email_metrics WHERE account_id = $1`, [past.accountId]);
    assert.equal(rows.length, 16);
    assert.ok(rows.every((r) => r.shard === 0 && Number(r.count) === 2));
    assert.equal(new Set(before.data!.map((r) => r.domain_id)).size, 2);
  });

  it('refuses bad query values with 422 in the shape of Resend errors', async () => {
    const cases: [string, RegExp][] = [
      ['granularity=yearly', /granularity/],
      ['metrics=sent,bogus', /bogus/],
      ['metrics=', /at least one/],
      ['dimensions=period,color', /color/],
      ['timezone=Mars/Olympus_Mons', /time zone/],
      ['start_date=yesterday', /start_date/],
      ['end_date=2026-02-30', /end_date/],
      ['start_date=2026-03-02&end_date=2026-03-01', /before/],
      ['dimensions=email,broadcast', /cannot be combined/],
      ['dimensions=period&email_id=nope', /email_id/],
      ['domain_id=nope', /domain_id/],
      ['dimensions=period&granularity=hourly&start_date=2020-01-01', /10000 hourly periods/],
    ];
    for (const [query, message] of cases) {
      const res = await rawRequest(t, 'GET', `/emails/metrics?${query}`);
      assert.equal(res.status, 422, query);
      assert.equal(res.body.statusCode, 422, query);
      assert.equal(res.body.name, 'validation_error', query);
      assert.match(res.body.message, message, query);
    }
    // A parameter that is no list, given twice: refused for every route alike (src/api/query.ts).
    const twice = await rawRequest(t, 'GET', '/emails/metrics?granularity=daily&granularity=hourly');
    assert.deepEqual(twice.body, { statusCode: 422, name: 'invalid_parameter', message: 'The `granularity` query parameter must be given once.' });
    // The SDK's own error for one of them.
    const { error } = await t.resend.emails.metrics({ granularity: 'yearly' as 'daily' });
    assert.equal(error?.statusCode, 422);
  });

  it('is read with an API key of full access only', async () => {
    const key = await t.resend.apiKeys.create({ name: 'sending', permission: 'sending_access' });
    const res = await rawRequest(t, 'GET', '/emails/metrics', { auth: key.data!.token });
    assert.equal(res.status, 401);
    assert.equal(res.body.name, 'restricted_api_key');
  });
});
