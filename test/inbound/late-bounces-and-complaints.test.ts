import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createVerifiedDomain } from '../support/domains.js';
import type { TestPostline } from '../support/postline.js';
import { LOOPBACK_ENDPOINTS, publishMx, recordedEvents, subscribe, WebhookReceiver } from '../webhooks/support.js';
import { deliverInbound, eventually, startInboundTest } from './support.js';

const FROM = 'Postline Tests <hello@sender.test>';

/** A DSN (RFC 3464) as a remote MTA writes it, one block per recipient. */
function dsn(returnPath: string, recipients: { address: string; action: string; status: string; diagnostic?: string }[]): string {
  return [
    'From: Mail Delivery System <MAILER-DAEMON@mx.example.net>',
    `To: ${returnPath}`,
    'Subject: Undelivered Mail Returned to Sender',
    'Date: Mon, 1 Jan 2024 00:00:00 +0000',
    'Message-ID: <dsn-1@mx.example.net>',
    'MIME-Version: 1.0',
    'Content-Type: multipart/report; report-type=delivery-status; boundary="DSN-BOUNDARY"',
    '',
    '--DSN-BOUNDARY',
    'Content-Type: text/plain; charset=us-ascii',
    '',
    "I'm sorry to have to inform you that your message could not be delivered.",
    '',
    '--DSN-BOUNDARY',
    'Content-Type: message/delivery-status',
    '',
    'Reporting-MTA: dns; mx.example.net',
    'Arrival-Date: Mon, 1 Jan 2024 00:00:00 +0000',
    ...recipients.flatMap((r) => [
      '',
      `Final-Recipient: rfc822; ${r.address}`,
      `Original-Recipient: rfc822;${r.address}`,
      `Action: ${r.action}`,
      `Status: ${r.status}`,
      // Folded at the last space before column 40, as MTAs fold long fields.
      ...(r.diagnostic
        ? [
            `Diagnostic-Code: smtp; ${r.diagnostic.slice(0, r.diagnostic.lastIndexOf(' ', 40))}`,
            `    ${r.diagnostic.slice(r.diagnostic.lastIndexOf(' ', 40) + 1)}`,
          ]
        : []),
    ]),
    '',
    '--DSN-BOUNDARY',
    'Content-Type: text/rfc822-headers',
    '',
    'From: hello@sender.test',
    'Subject: Hello',
    '',
    '--DSN-BOUNDARY--',
    '',
  ].join('\r\n');
}

/** An ARF feedback report (RFC 5965) as a mailbox provider's feedback loop sends it. */
function arf(returnPath: string, options: { feedbackType?: string; rcptTo?: string } = {}): string {
  return [
    'From: Feedback Loop <fbl@isp.example>',
    `To: ${returnPath}`,
    'Subject: FW: Hello',
    'MIME-Version: 1.0',
    'Content-Type: multipart/report; report-type=feedback-report; boundary="ARF"',
    '',
    '--ARF',
    'Content-Type: text/plain',
    '',
    'This is an email abuse report.',
    '',
    '--ARF',
    'Content-Type: message/feedback-report',
    '',
    `Feedback-Type: ${options.feedbackType ?? 'abuse'}`,
    'User-Agent: SomeFBL/1.0',
    'Version: 1',
    ...(options.rcptTo ? [`Original-Rcpt-To: <${options.rcptTo}>`] : []),
    'Source-IP: 127.0.0.1',
    '',
    '--ARF',
    'Content-Type: message/rfc822',
    '',
    'From: hello@sender.test',
    'To: redacted@isp.example',
    'Subject: Hello',
    '',
    'Hello there',
    '--ARF--',
    '',
  ].join('\r\n');
}

describe('inbound: DSNs and feedback reports that come back to a return path', () => {
  let t: TestPostline;
  let receiver: WebhookReceiver;

  before(async () => {
    t = await startInboundTest(LOOPBACK_ENDPOINTS);
    await createVerifiedDomain(t, 'sender.test');
    publishMx(t, 'example.net');
    receiver = await new WebhookReceiver(t.resend).start();
    await subscribe(t, receiver, ['email.bounced', 'email.complained', 'email.delivery_delayed']);
  });
  after(async () => {
    await receiver?.stop();
    await t?.stop();
  });

  /** Sends through the API, waits until the MX took it; returns the id and the return path it went out with. */
  async function sendDelivered(to: string[]): Promise<{ id: string; returnPath: string }> {
    const { data, error } = await t.resend.emails.send({ from: FROM, to, subject: 'Hello', html: '<p>Hello there</p>' });
    assert.equal(error, null, JSON.stringify(error));
    const id = data!.id;
    await eventually(async () => (await t.resend.emails.get(id)).data?.last_event === 'delivered', 15_000, 'delivered');
    const message = t.sink.messages.find((m) => m.from.includes(id))!;
    assert.equal(message.from, `bounces+${id}@send.sender.test`);
    return { id, returnPath: message.from };
  }

  const deliveryRows = async (id: string) =>
    Object.fromEntries(
      (await t.sql(`SELECT recipient, status, last_response FROM deliveries WHERE email_id = $1`, [id])).map((r) => [r.recipient, [r.status, r.last_response]]),
    );

  it('a failed DSN bounces that recipient: last_event, email.bounced with the diagnostic code, suppression', async () => {
    const { id, returnPath } = await sendDelivered(['ghost@example.net', 'ok@example.net']);
    const diagnostic = '550 5.1.1 <ghost@example.net>: Recipient address rejected: User unknown';
    const report = dsn(returnPath, [{ address: 'ghost@example.net', action: 'failed', status: '5.1.1', diagnostic }]);
    await deliverInbound(t, report, { mailFrom: '', rcptTo: [returnPath], helo: 'mx.example.net' });

    assert.equal((await t.resend.emails.get(id)).data!.last_event, 'bounced');
    const rows = await deliveryRows(id);
    assert.deepEqual(rows['ghost@example.net'], ['bounced', `smtp; ${diagnostic}`]);
    assert.equal(rows['ok@example.net']![0], 'delivered');

    await receiver.waitUntil(() => receiver.payloads('email.bounced').some((p) => p.data.email_id === id));
    const bounced = receiver.payloads('email.bounced').find((p) => p.data.email_id === id).data;
    assert.deepEqual(bounced.to, ['ghost@example.net']);
    assert.equal(bounced.from, FROM);
    assert.deepEqual(bounced.bounce, {
      type: 'Permanent',
      subType: 'NoEmail',
      message: '<ghost@example.net>: Recipient address rejected: User unknown',
      diagnosticCode: [`smtp; ${diagnostic}`],
    });

    const suppression = await t.resend.suppressions.get('ghost@example.net');
    assert.equal(suppression.error, null, JSON.stringify(suppression.error));
    assert.equal(suppression.data!.origin, 'bounce');
    assert.equal(suppression.data!.source_id, id);
    assert.equal((await t.resend.suppressions.get('ok@example.net')).error?.statusCode, 404);

    // The same DSN again changes nothing.
    const events = (await recordedEvents(t, [id])).length;
    await deliverInbound(t, report, { mailFrom: '', rcptTo: [returnPath] });
    assert.equal((await recordedEvents(t, [id])).length, events);
  });

  it('a delayed DSN records email.delivery_delayed; a 4.x.x failure bounces as Transient without suppressing', async () => {
    const { id, returnPath } = await sendDelivered(['slow@example.net']);
    await deliverInbound(
      t,
      dsn(returnPath, [{ address: 'slow@example.net', action: 'delayed', status: '4.4.1', diagnostic: '451 4.4.1 No answer from host, still trying' }]),
      {
        mailFrom: '',
        rcptTo: [returnPath],
      },
    );
    assert.equal((await t.resend.emails.get(id)).data!.last_event, 'delivery_delayed');
    assert.equal((await deliveryRows(id))['slow@example.net']![0], 'delivered');

    await deliverInbound(
      t,
      dsn(returnPath, [{ address: 'slow@example.net', action: 'failed', status: '4.4.7', diagnostic: '451 4.4.7 Delivery time expired' }]),
      {
        mailFrom: '',
        rcptTo: [returnPath],
      },
    );
    assert.equal((await t.resend.emails.get(id)).data!.last_event, 'bounced');
    const types = (await recordedEvents(t, [id])).map((e) => e.type);
    assert.deepEqual(types, ['email.sent', 'email.delivered', 'email.delivery_delayed', 'email.bounced']);
    const bounce = (await recordedEvents(t, [id]))[3]!.data.bounce;
    assert.equal(bounce.type, 'Transient');
    assert.equal((await t.resend.suppressions.get('slow@example.net')).error?.statusCode, 404);
  });

  it('an ARF report marks the recipient complained and suppresses it', async () => {
    const { id, returnPath } = await sendDelivered(['reader@example.net', 'other@example.net']);
    await deliverInbound(t, arf(returnPath, { rcptTo: 'reader@example.net' }), { mailFrom: 'fbl@isp.example', rcptTo: [returnPath] });
    assert.equal((await t.resend.emails.get(id)).data!.last_event, 'complained');
    await receiver.waitUntil(() => receiver.payloads('email.complained').some((p) => p.data.email_id === id));
    const complained = receiver.payloads('email.complained').find((p) => p.data.email_id === id).data;
    assert.deepEqual(complained.to, ['reader@example.net']);
    const suppression = await t.resend.suppressions.get('reader@example.net');
    assert.equal(suppression.data?.origin, 'complaint');
    assert.equal(suppression.data?.source_id, id);
    assert.equal((await t.resend.suppressions.get('other@example.net')).error?.statusCode, 404);
    // A later email to the address is not attempted: suppressed as a previous complaint.
    const later = await t.resend.emails.send({ from: FROM, to: 'reader@example.net', subject: 'Again', html: '<p>Again</p>' });
    assert.equal(later.error, null, JSON.stringify(later.error));
    assert.equal((await t.resend.emails.get(later.data!.id)).data!.last_event, 'suppressed');
    const suppressed = (await recordedEvents(t, [later.data!.id])).find((e) => e.type === 'email.suppressed');
    assert.equal(suppressed?.data.suppressed.reason, 'previous_complaint');
    // Reported twice: one complaint.
    await deliverInbound(t, arf(returnPath, { rcptTo: 'reader@example.net' }), { mailFrom: 'fbl@isp.example', rcptTo: [returnPath] });
    assert.equal((await recordedEvents(t, [id])).filter((e) => e.type === 'email.complained').length, 1);
  });

  it('a report that names no recipient applies to a single-recipient email only; not-spam and non-reports change nothing', async () => {
    const single = await sendDelivered(['solo@example.net']);
    await deliverInbound(t, arf(single.returnPath), { mailFrom: 'fbl@isp.example', rcptTo: [single.returnPath] });
    assert.equal((await t.resend.emails.get(single.id)).data!.last_event, 'complained');

    const pair = await sendDelivered(['a@example.net', 'b@example.net']);
    await deliverInbound(t, arf(pair.returnPath), { mailFrom: 'fbl@isp.example', rcptTo: [pair.returnPath] });
    await deliverInbound(t, arf(pair.returnPath, { feedbackType: 'not-spam', rcptTo: 'a@example.net' }), {
      mailFrom: 'fbl@isp.example',
      rcptTo: [pair.returnPath],
    });
    const vacation = ['From: a@example.net', `To: ${pair.returnPath}`, 'Subject: Out of office', '', 'I am away.', ''].join('\r\n');
    await deliverInbound(t, vacation, { mailFrom: 'a@example.net', rcptTo: [pair.returnPath] });
    assert.equal((await t.resend.emails.get(pair.id)).data!.last_event, 'delivered');
    assert.deepEqual(
      (await recordedEvents(t, [pair.id])).map((e) => e.type),
      ['email.sent', 'email.delivered'],
    );
  });
});
