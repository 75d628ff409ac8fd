// The events the delivery tests do not produce reach a real receiver, signed (the receiver
// checks every request with standardwebhooks and the SDK): opened and clicked from a client
// following the tracked links, scheduled and canceled, suppressed, failed at an operator's
// request, and domain.deleted.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import PostalMime from 'postal-mime';
import { createVerifiedDomain } from '../support/domains.js';
import { rawRequest, type TestPostline } from '../support/postline.js';
import { eventually, publishMx, SENDER_DOMAIN, send, startWebhookTest, subscribe, WebhookReceiver } from './support.js';

const PUBLIC_URL = 'https://mail.postline.test';
const EVENTS = ['email.opened', 'email.clicked', 'email.scheduled', 'email.canceled', 'email.suppressed', 'email.failed', 'domain.deleted'];

describe('webhooks: opened, clicked, scheduled, canceled, suppressed, failed and domain.deleted reach the receiver', () => {
  let t: TestPostline;
  let receiver: WebhookReceiver;
  before(async () => {
    t = await startWebhookTest({ POSTLINE_PUBLIC_URL: PUBLIC_URL });
    receiver = await new WebhookReceiver(t.resend).start();
    await subscribe(t, receiver, EVENTS);
    publishMx(t, 'inbox.test');
    // stuck@ is deferred for ever: it stays queued until an operator fails it.
    t.sink.onRecipient = (address) => (address.startsWith('stuck@') ? { code: 451, message: '4.3.0 Try later' } : undefined);
  });
  after(async () => {
    await t.stop();
    await receiver.stop();
  });

  /** The one verified payload of `type` about `emailId` (or matching `match`). */
  async function webhookOf(type: string, match: (payload: any) => boolean): Promise<any> {
    await receiver.waitUntil(() => receiver.payloads(type).some(match), 15_000, type);
    const found = receiver.payloads(type).filter(match);
    assert.equal(found.length, 1, `one ${type}`);
    assert.deepEqual(receiver.rejected, [], 'every request verified');
    return found[0];
  }
  const about = (emailId: string) => (payload: any) => payload.data.email_id === emailId;

  it('email.opened and email.clicked when a client loads the pixel and follows a link', async () => {
    const domain = (await t.resend.domains.list()).data!.data.find((d) => d.name === SENDER_DOMAIN)!;
    assert.equal((await t.resend.domains.update({ id: domain.id, openTracking: true, clickTracking: true })).error, null);
    const id = await send(t, { to: 'reader@inbox.test', html: '<p><a href="https://acme.test/pricing">Pricing</a></p>' });
    await t.sink.waitFor(1);
    const html = (await PostalMime.parse(t.sink.messages.find((m) => m.to.includes('reader@inbox.test'))!.raw)).html!;
    const pixel = /<img src="([^"]+)"/.exec(html)![1]!.replace(/&amp;/g, '&');
    const link = /href="([^"]+\/t\/c\/[^"]+)"/.exec(html)![1]!.replace(/&amp;/g, '&');
    // The links name POSTLINE_PUBLIC_URL; a mail client would reach this Postline through it.
    const visit = (url: string) => fetch(t.url + url.slice(PUBLIC_URL.length), { redirect: 'manual', headers: { 'user-agent': 'MailClient/1.0' } });
    assert.equal((await visit(pixel)).status, 200);
    const click = await visit(link);
    assert.equal(click.headers.get('location'), 'https://acme.test/pricing');

    const opened = await webhookOf('email.opened', about(id));
    assert.equal(opened.data.subject, 'Hello');
    assert.deepEqual(opened.data.to, ['reader@inbox.test']);
    const clicked = await webhookOf('email.clicked', about(id));
    assert.equal(clicked.data.click.link, 'https://acme.test/pricing');
    assert.equal(clicked.data.click.userAgent, 'MailClient/1.0');
  });

  it('email.scheduled when an email is scheduled, and email.canceled when it is canceled', async () => {
    const scheduledAt = new Date(Date.now() + 3_600_000).toISOString();
    const id = await send(t, { to: 'later@inbox.test', scheduledAt });
    const scheduled = await webhookOf('email.scheduled', about(id));
    assert.deepEqual(scheduled.data.to, ['later@inbox.test']);
    assert.equal((await t.resend.emails.cancel(id)).error, null);
    const canceled = await webhookOf('email.canceled', about(id));
    assert.equal(canceled.data.email_id, id);
  });

  it('email.suppressed when an email goes to an address on the suppression list', async () => {
    const added = await rawRequest(t, 'POST', '/suppressions', { body: { email: 'gone@inbox.test' } });
    assert.ok(added.status < 300, JSON.stringify(added.body));
    const id = await send(t, { to: 'gone@inbox.test' });
    const suppressed = await webhookOf('email.suppressed', about(id));
    assert.equal(suppressed.data.suppressed.type, 'OnAccountSuppressionList');
  });

  it('email.failed when an operator fails an email stuck in the queue', async () => {
    const id = await send(t, { to: 'stuck@inbox.test' });
    await eventually(
      async () => (await t.sql(`SELECT attempts FROM deliveries WHERE email_id = $1`, [id]))[0]?.attempts >= 1,
      15_000,
      'a first attempt deferred',
    );
    const failed = await rawRequest(t, 'POST', `/queue/emails/${id}/fail`, { body: { reason: 'Customer asked us to stop' } });
    assert.deepEqual(failed.body, { object: 'queue_fail', email_id: id, failed: 1 });
    const webhook = await webhookOf('email.failed', about(id));
    assert.equal(webhook.data.failed.reason, 'Customer asked us to stop');
    assert.match(webhook.data.failed.response, /^4\d\d /, 'with the last reply it had');
  });

  it('domain.deleted when a domain is removed', async () => {
    const { id } = await createVerifiedDomain(t, 'short-lived.test');
    assert.equal((await t.resend.domains.remove(id)).error, null);
    const deleted = await webhookOf('domain.deleted', (payload) => payload.data.id === id);
    assert.equal(deleted.data.name, 'short-lived.test');
    // Only subscribed types arrive: nothing of email.sent or domain.created came.
    assert.deepEqual(
      [...new Set(receiver.payloads().map((p) => p.type))].filter((type) => !EVENTS.includes(type)),
      [],
    );
  });
});
