import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import PostalMime from 'postal-mime';
import { Resend } from 'resend';
import { createAccount } from '../../src/accounts/accounts.js';
import { createVerifiedDomain } from '../support/domains.js';
import { rawRequest, type TestPostline } from '../support/postline.js';
import { LOOPBACK_ENDPOINTS, publishMx, subscribe, WebhookReceiver } from '../webhooks/support.js';
import { composeMessage, deliverInbound, eventually, publishDkimKey, startInboundTest } from './support.js';

const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');
const PDF = Buffer.from('%PDF-1.4 a small file\n%%EOF\n');

describe('inbound: mail for a receiving domain is stored, reported and readable through the SDK', () => {
  let t: TestPostline;
  let receiver: WebhookReceiver;
  let raw: Buffer;
  let emailId: string;

  before(async () => {
    // Download links work for 10 s, so one can be seen to expire; other checks follow theirs at once.
    t = await startInboundTest({ ...LOOPBACK_ENDPOINTS, POSTLINE_DOWNLOAD_URL_TTL: '10s' });
    await createVerifiedDomain(t, 'inbox.test', { receiving: true });
    await createVerifiedDomain(t, 'sender.test');
    receiver = await new WebhookReceiver(t.resend).start();
    await subscribe(t, receiver, ['email.received']);
    // The remote sender: SPF authorises the loopback client, DKIM key and DMARC policy published.
    t.dns.set('remote.test', { TXT: ['v=spf1 ip4:127.0.0.1 -all'] });
    t.dns.set('_dmarc.remote.test', { TXT: ['v=DMARC1; p=reject'] });
    const privateKey = publishDkimKey(t, 'remote.test');
    raw = await composeMessage(
      {
        from: 'Alice Remote <alice@remote.test>',
        to: 'Support <support@inbox.test>',
        cc: 'team@inbox.test, someone@elsewhere.test',
        replyTo: 'replies@remote.test',
        subject: 'Order #42 — help',
        messageId: '<order-42@remote.test>',
        headers: { 'X-Ticket': 'T-42' },
        text: 'Hello, see the attached file.',
        html: '<p>Hello, see <img src="cid:logo@remote"> the attached file.</p>',
        attachments: [
          { filename: 'logo.png', content: PNG, contentType: 'image/png', cid: 'logo@remote' },
          { filename: 'invoice.pdf', content: PDF, contentType: 'application/pdf' },
        ],
      },
      { domain: 'remote.test', privateKey },
    );
    await deliverInbound(t, raw, { mailFrom: 'alice@remote.test', rcptTo: ['support@inbox.test', 'team@inbox.test'] });
    await receiver.waitUntil(() => receiver.payloads('email.received').length === 1);
    emailId = receiver.payloads('email.received')[0].data.email_id;
  });
  after(async () => {
    await receiver?.stop();
    await t?.stop();
  });

  it('sends a signed email.received webhook with Resend payload', () => {
    assert.deepEqual(receiver.rejected, []);
    const payload = receiver.payloads('email.received')[0];
    assert.equal(payload.type, 'email.received');
    const data = payload.data;
    assert.deepEqual(Object.keys(data).sort(), ['attachments', 'bcc', 'cc', 'created_at', 'email_id', 'from', 'message_id', 'received_for', 'subject', 'to']);
    assert.equal(data.from, 'alice@remote.test');
    assert.deepEqual(data.to, ['support@inbox.test']);
    assert.deepEqual(data.cc, ['team@inbox.test', 'someone@elsewhere.test']);
    assert.deepEqual(data.bcc, []);
    assert.deepEqual(data.received_for, ['support@inbox.test', 'team@inbox.test']);
    assert.equal(data.subject, 'Order #42 — help');
    assert.equal(data.message_id, '<order-42@remote.test>');
    assert.match(data.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.deepEqual(
      data.attachments.map((a: any) => [a.filename, a.content_type, a.content_disposition, a.content_id]),
      [
        ['logo.png', 'image/png', 'inline', 'logo@remote'],
        ['invoice.pdf', 'application/pdf', 'attachment', null],
      ],
    );
    assert.deepEqual(Object.keys(data.attachments[0]).sort(), ['content_disposition', 'content_id', 'content_type', 'filename', 'id']);
  });

  it('lists it with emails.receiving.list', async () => {
    const { data, error } = await t.resend.emails.receiving.list();
    assert.equal(error, null, JSON.stringify(error));
    assert.equal(data!.object, 'list');
    assert.equal(data!.has_more, false);
    assert.equal(data!.data.length, 1);
    const item = data!.data[0]! as Record<string, any>;
    assert.equal(item.id, emailId);
    assert.deepEqual(Object.keys(item).sort(), [
      'attachments',
      'bcc',
      'cc',
      'created_at',
      'from',
      'id',
      'message_id',
      'received_for',
      'reply_to',
      'subject',
      'to',
    ]);
    assert.deepEqual(item.reply_to, ['replies@remote.test']);
    assert.deepEqual(
      item.attachments.map((a: any) => [a.filename, a.size]),
      [
        ['logo.png', PNG.length],
        ['invoice.pdf', PDF.length],
      ],
    );
  });

  it('gets it with emails.receiving.get: body, headers, authentication results, raw link', async () => {
    const { data, error } = await t.resend.emails.receiving.get(emailId);
    assert.equal(error, null, JSON.stringify(error));
    assert.equal(data!.object, 'email');
    assert.equal(data!.from, 'alice@remote.test');
    assert.equal(data!.text?.trim(), 'Hello, see the attached file.');
    // Inline images come back as data: URIs by default.
    assert.ok(data!.html!.includes(`src="data:image/png;base64,${PNG.toString('base64')}"`), data!.html!);
    assert.match(data!.created_at, /Z$/);
    const headers = data!.headers!;
    assert.equal(headers['X-Ticket'], 'T-42');
    assert.match(headers.Subject!, /^=\?UTF-8\?Q\?Order_/); // as written, still encoded
    assert.match(headers['Authentication-Results']!, /^mta\.postline\.test;/);
    assert.match(headers['Authentication-Results']!, /dkim=pass/);
    assert.match(headers['Authentication-Results']!, /spf=pass/);
    assert.match(headers['Authentication-Results']!, /dmarc=pass/);
    assert.deepEqual((data as unknown as { authentication: unknown }).authentication, { spf: 'pass', dkim: 'pass', dmarc: 'pass' }, "Postline's own field");
    assert.match(headers.Received!, /by mta\.postline\.test \(Postline\) with ESMTP/);
    assert.ok(data!.raw);
    assert.match(data!.raw!.download_url, new RegExp(`^${t.url}/downloads/received-emails/${emailId}\\?expires=\\d+&signature=`));
    assert.ok(Date.parse(data!.raw!.expires_at) > Date.now());

    const cid = await t.resend.emails.receiving.get(emailId, { html_format: 'cid' });
    assert.ok(cid.data!.html!.includes('src="cid:logo@remote"'));
    const bad = await rawRequest(t, 'GET', `/emails/receiving/${emailId}?html_format=inline`);
    assert.equal(bad.status, 422);
    assert.equal(bad.body.name, 'invalid_parameter');
  });

  it('records SPF, DKIM and DMARC verdicts with the message', async () => {
    const [row] = await t.sql(
      `SELECT m.spf, m.dkim, m.dmarc, m.authentication, m.mail_from, m.rcpt_to
         FROM received_emails r JOIN inbound_messages m ON m.id = r.inbound_message_id WHERE r.id = $1`,
      [emailId],
    );
    assert.deepEqual([row.spf, row.dkim, row.dmarc], ['pass', 'pass', 'pass']);
    assert.equal(row.authentication.dkim[0].domain, 'remote.test');
    assert.equal(row.authentication.dmarc.policy, 'reject');
    assert.equal(row.mail_from, 'alice@remote.test');
  });

  it('serves the raw message at raw.download_url without an API key, as message/rfc822', async () => {
    const { data } = await t.resend.emails.receiving.get(emailId);
    const res = await fetch(data!.raw!.download_url);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'message/rfc822');
    const body = Buffer.from(await res.arrayBuffer());
    // The message as it arrived, behind our trace headers.
    assert.ok(body.subarray(body.length - raw.length).equals(raw));
    assert.match(body.toString('latin1', 0, 400), /^Received: from mta\.remote\.test/);

    const tampered = data!.raw!.download_url.replace(/signature=./, (m) => (m.endsWith('A') ? 'signature=B' : 'signature=A'));
    assert.equal((await fetch(tampered)).status, 404);
    // A raw link does not open an attachment with the same id, nor the other way round.
    assert.equal((await fetch(data!.raw!.download_url.replace('/received-emails/', '/received-attachments/'))).status, 404);
  });

  it('refuses a download URL with 403 once its expires_at has passed', async () => {
    const { data } = await t.resend.emails.receiving.get(emailId);
    const { download_url, expires_at } = data!.raw!;
    assert.equal((await fetch(download_url)).status, 200);
    const res = await eventually(
      async () => {
        const answer = await fetch(download_url);
        return answer.status === 200 ? undefined : answer;
      },
      30_000,
      'the link to expire',
    );
    assert.ok(Date.now() >= Date.parse(expires_at), `refused before ${expires_at}`);
    assert.equal(res.status, 403);
    assert.equal((await res.json()).name, 'validation_error');
  });

  it('lists and gets attachments with signed download URLs that return the bytes', async () => {
    const list = await t.resend.emails.receiving.attachments.list({ emailId });
    assert.equal(list.error, null, JSON.stringify(list.error));
    assert.equal(list.data!.data.length, 2);
    const [logo, invoice] = list.data!.data;
    assert.deepEqual(Object.keys(logo!).sort(), ['content_disposition', 'content_id', 'content_type', 'download_url', 'expires_at', 'filename', 'id', 'size']);
    assert.equal(logo!.content_disposition, 'inline');
    assert.equal(logo!.content_id, 'logo@remote');
    assert.ok(Buffer.from(await (await fetch(logo!.download_url)).arrayBuffer()).equals(PNG));

    const one = await t.resend.emails.receiving.attachments.get({ emailId, id: invoice!.id });
    assert.equal(one.error, null, JSON.stringify(one.error));
    assert.equal((one.data as any).object, 'attachment');
    assert.equal(one.data!.size, PDF.length);
    const res = await fetch(one.data!.download_url);
    assert.equal(res.headers.get('content-type'), 'application/pdf');
    assert.match(res.headers.get('content-disposition')!, /filename="invoice\.pdf"/);
    assert.ok(Buffer.from(await res.arrayBuffer()).equals(PDF));

    const page = await t.resend.emails.receiving.attachments.list({ emailId, limit: 1, after: logo!.id });
    assert.deepEqual(
      page.data!.data.map((a) => a.id),
      [invoice!.id],
    );
    const missing = await t.resend.emails.receiving.attachments.get({ emailId, id: '00000000-0000-4000-8000-000000000000' });
    assert.deepEqual(missing.error, { statusCode: 404, message: 'Attachment not found', name: 'not_found' });
  });

  it('forwards it with the SDK (raw downloaded client-side, re-sent through POST /emails)', async () => {
    publishMx(t, 'elsewhere.test');
    const before = t.sink.messages.length;
    const passthrough = await t.resend.emails.receiving.forward({ emailId, to: 'agent@elsewhere.test', from: 'desk@sender.test' });
    assert.equal(passthrough.error, null, JSON.stringify(passthrough.error));
    const wrapped = await t.resend.emails.receiving.forward({
      emailId,
      to: 'agent@elsewhere.test',
      from: 'desk@sender.test',
      passthrough: false,
      text: 'FYI',
    });
    assert.equal(wrapped.error, null, JSON.stringify(wrapped.error));
    await t.sink.waitFor(before + 2);
    const arrived = await Promise.all(t.sink.messages.slice(before).map((m) => PostalMime.parse(m.raw)));
    const copy = arrived.find((m) => m.subject === 'Order #42 — help')!;
    assert.ok(copy, 'the passthrough copy arrived');
    assert.equal(copy.from?.address, 'desk@sender.test');
    assert.equal(copy.text?.trim(), 'Hello, see the attached file.');
    const copied = copy.attachments.find((a) => a.filename === 'invoice.pdf')!;
    assert.ok(Buffer.from(copied.content as ArrayBuffer).equals(PDF));
    const eml = arrived.find((m) => m.subject === 'Fwd: Order #42 — help')!;
    assert.ok(eml, 'the wrapped copy arrived');
    const wrappedRaw = eml.attachments.find((a) => a.filename === 'forwarded_message.eml')!;
    assert.equal(wrappedRaw.mimeType, 'message/rfc822');
    const forwarded = Buffer.from(wrappedRaw.content as ArrayBuffer).toString('utf8');
    assert.match(forwarded, /^Received: from mta\.remote\.test/);
    assert.match(forwarded, /^Message-ID: <order-42@remote\.test>/m);
  });

  it('keeps it from other accounts (404), and received mail off GET /emails', async () => {
    const other = await createAccount(t.postline.db, 'Other');
    const stranger = new Resend(other.token, { baseUrl: t.url });
    const get = await stranger.emails.receiving.get(emailId);
    assert.deepEqual(get.error, { statusCode: 404, message: 'Email not found', name: 'not_found' });
    assert.deepEqual((await stranger.emails.receiving.list()).data!.data, []);
    const attachments = await stranger.emails.receiving.attachments.list({ emailId });
    assert.deepEqual(attachments.error, { statusCode: 404, message: 'Email not found', name: 'not_found' });
    // The static segment wins over /emails/:id, and a received id is no outbound email.
    assert.equal((await t.resend.emails.get(emailId)).error?.statusCode, 404);
    assert.deepEqual((await rawRequest(t, 'GET', '/emails/receiving/not-a-uuid')).body, {
      statusCode: 422,
      message: 'The `id` must be a valid UUID.',
      name: 'validation_error',
    });
  });
});
