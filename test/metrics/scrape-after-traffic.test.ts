// /metrics as Prometheus reads it, after real traffic: emails sent with the resend SDK (single,
// batch, a broadcast), submitted over SMTP with nodemailer, delivered to the MX sink (one
// recipient refused for good), their webhooks sent to a loopback receiver. The page is read by
// a Prometheus text-format parser, and the figures the worker thread records (delivery,
// webhooks) must be there beside the main thread's (accept, SMTP, the queue).
// The parser has no types of its own: ours are beside the test's other support files.
/// <reference path="../support/parse-prometheus-text-format.d.ts" />
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { eventually } from '../support/eventually.js';
import type { TestPostline } from '../support/postline.js';
import { transport } from '../smtp/support.js';
import { FROM, LOOPBACK_ENDPOINTS, publishMx, send, startWebhookTest, subscribe, WebhookReceiver } from '../webhooks/support.js';

type Families = ReturnType<typeof parsePrometheusTextFormat>;

async function scrape(t: TestPostline): Promise<Families> {
  const res = await fetch(`${t.url}/metrics`);
  assert.equal(res.status, 200, await res.clone().text());
  assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  return parsePrometheusTextFormat(await res.text());
}

function family(families: Families, name: string) {
  const found = families.find((f) => f.name === name);
  assert.ok(found, `${name} is not on /metrics`);
  return found;
}

/** The value of the sample of `name` whose labels include `labels`; undefined when there is none. */
function value(families: Families, name: string, labels: Record<string, string> = {}): number | undefined {
  const sample = family(families, name).metrics.find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));
  return sample?.value === undefined ? undefined : Number(sample.value);
}

describe('metrics: /metrics after real traffic', () => {
  let t: TestPostline;
  let receiver: WebhookReceiver;
  let families: Families;
  const delivered = ['a@inbox.test', 'b@inbox.test', 'c@inbox.test', 'd@inbox.test', 'e@gmail-hosted.test', 'reader@inbox.test', 'smtp@inbox.test'];

  before(async () => {
    t = await startWebhookTest(LOOPBACK_ENDPOINTS);
    receiver = await new WebhookReceiver(t.resend).start();
    await subscribe(t, receiver, ['email.delivered']);
    publishMx(t, 'inbox.test');
    // A domain hosted by Google: its MX host names the provider (on loopback, like every host here).
    t.dns.set('gmail-hosted.test', { MX: [{ exchange: 'aspmx.l.google.com', priority: 1 }] });
    t.dns.set('aspmx.l.google.com', { A: ['127.0.0.1'] });
    t.sink.onRecipient = (address) => (address.startsWith('gone@') ? { code: 550, message: '5.1.1 No such user' } : undefined);

    await send(t, { to: 'a@inbox.test' });
    const batch = await t.resend.batch.send(['b', 'c', 'd'].map((n) => ({ from: FROM, to: `${n}@inbox.test`, subject: 'Batch', html: '<p>Hi</p>' })));
    assert.equal(batch.error, null, JSON.stringify(batch.error));
    await send(t, { to: 'e@gmail-hosted.test' });
    await send(t, { to: 'gone@inbox.test' });
    const segment = await t.resend.segments.create({ name: 'Readers' });
    await t.resend.contacts.create({ email: 'reader@inbox.test', segments: [{ id: segment.data!.id }] } as any);
    const broadcast = await t.resend.broadcasts.create({ segmentId: segment.data!.id, from: FROM, subject: 'News', html: '<p>News</p>', send: true } as any);
    assert.equal(broadcast.error, null, JSON.stringify(broadcast.error));
    const smtp = transport(t);
    await smtp.sendMail({ from: FROM, to: 'smtp@inbox.test', subject: 'Over SMTP', text: 'Hello' });
    smtp.close();

    await t.sink.waitFor(delivered.length);
    await receiver.waitUntil(() => receiver.payloads('email.delivered').length >= delivered.length);
    // Outcomes and webhook results are counted once committed, a moment after the sink and the receiver see them.
    families = await eventually(async () => {
      const scraped = await scrape(t);
      const outcomes = family(scraped, 'postline_delivery_outcomes_total').metrics.reduce((n, m) => n + Number(m.value), 0);
      const webhooks = value(scraped, 'postline_webhook_deliveries_total', { outcome: 'success' }) ?? 0;
      return outcomes >= delivered.length + 1 && webhooks >= delivered.length && scraped;
    });
  });
  after(async () => {
    await t?.stop();
    await receiver?.stop();
  });

  it('counts accepted emails by ingress, every ingress shown from zero', () => {
    assert.equal(family(families, 'postline_emails_accepted_total').type, 'COUNTER');
    assert.equal(value(families, 'postline_emails_accepted_total', { ingress: 'api' }), 6);
    assert.equal(value(families, 'postline_emails_accepted_total', { ingress: 'smtp' }), 1);
    assert.equal(value(families, 'postline_emails_accepted_total', { ingress: 'broadcast' }), 1);
    assert.equal(value(families, 'postline_emails_accepted_total', { ingress: 'automation' }), 0);
  });

  it('counts delivery outcomes by outcome and provider, from the worker thread when there is one', () => {
    assert.equal(value(families, 'postline_delivery_outcomes_total', { outcome: 'delivered', provider: 'other' }), delivered.length - 1);
    assert.equal(value(families, 'postline_delivery_outcomes_total', { outcome: 'delivered', provider: 'google' }), 1);
    assert.equal(value(families, 'postline_delivery_outcomes_total', { outcome: 'bounced', provider: 'other' }), 1);
    assert.equal(value(families, 'postline_delivery_outcomes_total', { outcome: 'deferred', provider: 'other' }), 0);
    const threads = family(families, 'postline_db_pool_connections').metrics.map((m) => m.labels?.thread);
    // Delivery runs in the worker thread on a machine with more than one core: its pool is there beside the main thread's.
    assert.deepEqual([...new Set(threads)].sort(), t.postline.config.workerThread ? ['main', 'worker'] : ['main']);
  });

  it('has the time from accept to delivered as a histogram of every delivery', () => {
    const histogram = family(families, 'postline_accept_to_delivered_seconds');
    assert.equal(histogram.type, 'HISTOGRAM');
    const [sample] = histogram.metrics;
    assert.equal(Number(sample!.count), delivered.length);
    assert.equal(Number(sample!.buckets!['+Inf']), delivered.length);
    assert.ok(Number(sample!.sum) > 0 && Number(sample!.sum) < 60 * delivered.length);
    assert.ok(Number(sample!.buckets!['60']) === delivered.length, 'every email here is delivered within a minute');
  });

  it('counts SMTP sessions and replies by class', () => {
    assert.ok(value(families, 'postline_smtp_sessions_total')! >= 1);
    assert.equal(value(families, 'postline_smtp_sessions_open'), 0);
    // 220 greeting, EHLO, STARTTLS, EHLO, AUTH, MAIL, RCPT, end of DATA; 354 for DATA.
    assert.ok(value(families, 'postline_smtp_replies_total', { class: '2xx' })! >= 7);
    assert.ok(value(families, 'postline_smtp_replies_total', { class: '3xx' })! >= 1);
    assert.equal(value(families, 'postline_smtp_replies_total', { class: '5xx' }), 0);
  });

  it('counts webhook deliveries and their lag', () => {
    assert.equal(value(families, 'postline_webhook_deliveries_total', { outcome: 'success' }), delivered.length);
    assert.equal(value(families, 'postline_webhook_deliveries_total', { outcome: 'failure' }), 0);
    assert.equal(Number(family(families, 'postline_webhook_lag_seconds').metrics[0]!.count), delivered.length);
  });

  it('shows the queue by state, the database pools and the event loops', async () => {
    const states = family(families, 'postline_queue_deliveries').metrics.map((m) => m.labels?.state);
    assert.deepEqual(states.sort(), ['deferred', 'due', 'in_flight', 'paused', 'scheduled']);
    // Scheduled mail waits in the queue: it shows once the cached count (5 s) is read again.
    const { error } = await t.resend.emails.send({ from: FROM, to: 'later@inbox.test', subject: 'Later', html: '<p>Later</p>', scheduledAt: 'in 1 hour' });
    assert.equal(error, null);
    await eventually(
      async () => value(await scrape(t), 'postline_queue_deliveries', { state: 'scheduled' }) === 1,
      10_000,
      'the scheduled email in the queue gauge',
    );
    const scraped = await scrape(t);
    assert.ok(value(scraped, 'postline_queue_oldest_age_seconds', { state: 'scheduled' })! >= 0);
    assert.ok(value(scraped, 'postline_db_pool_max_connections', { thread: 'main' })! > 0);
    assert.ok(value(scraped, 'postline_db_pool_connections', { thread: 'main', state: 'idle' })! >= 0);
    for (const thread of t.postline.config.workerThread ? ['main', 'worker'] : ['main']) {
      const lag = value(scraped, 'postline_event_loop_lag_seconds', { thread, stat: 'max' });
      assert.ok(lag !== undefined && lag >= 0 && lag < 5, `${thread}: ${lag}`);
    }
  });
});
