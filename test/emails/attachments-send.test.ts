import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import PostalMime from 'postal-mime';
import { Resend } from 'resend';
import { createAccount } from '../../src/accounts/accounts.js';
import { verifyDkim } from '../support/dkim.js';
import { createVerifiedDomain } from '../support/domains.js';
import { eventually } from '../support/eventually.js';
import { rawRequest, startTestPostline, type TestPostline } from '../support/postline.js';

const PUBLIC_URL = 'https://mail.postline.test';
const EML = Buffer.from('From: a@example.net\r\nTo: b@example.net\r\nSubject: Earlier\r\n\r\nThe earlier message.\r\n');

describe('attachments: sent as MIME parts, stored once, listed and downloaded', () => {
  let t: TestPostline;
  before(async () => {
    // Links work for 10 s, so one can be seen to expire; every other check follows its link at once.
    t = await startTestPostline({ env: { POSTLINE_PUBLIC_URL: PUBLIC_URL, POSTLINE_DOWNLOAD_URL_TTL: '10s' } });
    await createVerifiedDomain(t, 'acme.test');
    t.dns.set('example.org', { MX: [{ exchange: 'mx.example.org', priority: 10 }] });
    t.dns.set('mx.example.org', { A: ['127.0.0.1'] });
  });
  after(() => t.stop());

  async function received(to: string) {
    await t.sink.waitFor(1);
    for (let i = 0; i < 200; i++) {
      const message = t.sink.messages.find((m) => m.to.includes(to));
      if (message) return message;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`nothing arrived for ${to}`);
  }

  /** The download URL of the API, fetched from this Postline (the URL names POSTLINE_PUBLIC_URL). */
  const download = (url: string, init?: RequestInit) => {
    assert.ok(url.startsWith(`${PUBLIC_URL}/downloads/attachments/`), url);
    return fetch(t.url + url.slice(PUBLIC_URL.length), init);
  };

  const pdf = crypto.randomBytes(70_000);
  const png = crypto.randomBytes(3_000);
  let emailId: string;

  it('sends base64, binary and inline (content_id) attachments as MIME parts that DKIM covers', async () => {
    const sent = await t.resend.emails.send({
      from: 'Acme <hello@acme.test>',
      to: 'ann@example.org',
      subject: 'Your report',
      html: '<p>Here it is <img src="cid:logo-image"></p>',
      attachments: [
        { filename: 'report.pdf', content: pdf.toString('base64') },
        { filename: 'notes.txt', content: Buffer.from('line one\nline two\n'), contentType: 'text/plain; charset=utf-8' },
        { filename: 'logo.png', content: png, contentId: 'logo-image' },
        { filename: 'Grüße €.bin', content: Buffer.from([0, 1, 2, 255]) },
      ],
    });
    assert.equal(sent.error, null, JSON.stringify(sent.error));
    emailId = sent.data!.id;

    const message = await received('ann@example.org');
    assert.deepEqual(await verifyDkim(t, message.raw), [{ result: 'pass', domain: 'acme.test' }]);
    const parsed = await PostalMime.parse(message.raw);
    assert.match(parsed.html!, /cid:logo-image/);
    const byName = new Map(parsed.attachments.map((a) => [a.filename, a]));
    assert.deepEqual([...byName.keys()].sort(), ['Grüße €.bin', 'logo.png', 'notes.txt', 'report.pdf']);
    assert.equal(byName.get('report.pdf')!.mimeType, 'application/pdf');
    assert.equal(byName.get('report.pdf')!.disposition, 'attachment');
    assert.deepEqual(Buffer.from(byName.get('report.pdf')!.content as ArrayBuffer), pdf);
    assert.equal(Buffer.from(byName.get('notes.txt')!.content as ArrayBuffer).toString(), 'line one\nline two\n');
    assert.equal(byName.get('notes.txt')!.mimeType, 'text/plain');
    const logo = byName.get('logo.png')!;
    assert.equal(logo.mimeType, 'image/png');
    assert.equal(logo.disposition, 'inline');
    assert.equal(logo.contentId, '<logo-image>');
    assert.equal(logo.related, true, 'an inline image travels in multipart/related with the html');
    assert.deepEqual(Buffer.from(logo.content as ArrayBuffer), png);
    assert.deepEqual([...Buffer.from(byName.get('Grüße €.bin')!.content as ArrayBuffer)], [0, 1, 2, 255]);
    assert.equal(byName.get('Grüße €.bin')!.mimeType, 'application/octet-stream');

    // Stored once: the rows point into the message, no copy of the bytes.
    const rows = await t.sql('SELECT filename, size, mime_length FROM email_attachments WHERE email_id = $1 ORDER BY position', [emailId]);
    assert.deepEqual(
      rows.map((r) => [r.filename, Number(r.size)]),
      [
        ['report.pdf', 70_000],
        ['notes.txt', 18],
        ['logo.png', 3_000],
        ['Grüße €.bin', 4],
      ],
    );
  });

  it('accepts the {"type":"Buffer","data":[…]} form a Buffer takes in JSON', async () => {
    const res = await rawRequest(t, 'POST', '/emails', {
      body: {
        from: 'hello@acme.test',
        to: 'bob@example.org',
        subject: 'Buffer form',
        text: 'see attached',
        attachments: [
          { filename: 'data.csv', content: { type: 'Buffer', data: [...Buffer.from('a,b\n1,2\n')] } },
          { filename: 'forwarded.eml', content: EML.toString('base64') },
        ],
      },
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const parsed = await PostalMime.parse((await received('bob@example.org')).raw);
    assert.equal(parsed.attachments.length, 2);
    assert.equal(parsed.attachments[0]!.mimeType, 'text/csv');
    assert.equal(Buffer.from(parsed.attachments[0]!.content as ArrayBuffer).toString(), 'a,b\n1,2\n');
    assert.equal(parsed.text!.trim(), 'see attached');
    // A message/rfc822 part is not base64-encoded (RFC 2046 §5.2.1); its download is still exact.
    const list = await t.resend.emails.attachments.list({ emailId: res.body.id });
    const eml = list.data!.data[1]!;
    assert.equal(eml.content_type, 'message/rfc822');
    const downloaded = await download(eml.download_url);
    assert.deepEqual(Buffer.from(await downloaded.arrayBuffer()), EML);
    assert.equal(eml.size, EML.length);
  });

  it("lists and gets attachments with Resend's shape and signed, expiring download URLs", async () => {
    const list = await t.resend.emails.attachments.list({ emailId });
    assert.equal(list.error, null, JSON.stringify(list.error));
    assert.equal(list.data!.object, 'list');
    assert.equal(list.data!.has_more, false);
    const items = list.data!.data;
    assert.deepEqual(
      items.map((a) => a.filename),
      ['report.pdf', 'notes.txt', 'logo.png', 'Grüße €.bin'],
    );
    const [report, notes, logo] = items;
    assert.deepEqual(Object.keys(report!).sort(), ['content_disposition', 'content_type', 'download_url', 'expires_at', 'filename', 'id', 'size']);
    assert.equal(report!.content_type, 'application/pdf');
    assert.equal(report!.content_disposition, 'attachment');
    assert.equal('content_id' in report!, false, 'left out when there is none (the SDK declares it optional)');
    assert.equal(report!.size, 70_000);
    assert.equal(notes!.content_type, 'text/plain; charset=utf-8');
    assert.equal(logo!.content_disposition, 'inline');
    assert.equal(logo!.content_id, 'logo-image');
    const expires = Date.parse(report!.expires_at);
    assert.match(report!.expires_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.ok(expires > Date.now() && expires <= Date.now() + 10_000, report!.expires_at); // POSTLINE_DOWNLOAD_URL_TTL

    const got = await t.resend.emails.attachments.get({ emailId, id: logo!.id });
    assert.equal(got.error, null);
    assert.equal(got.data!.object, 'attachment');
    assert.equal(got.data!.id, logo!.id);
    assert.equal(got.data!.size, 3_000);

    const page = await t.resend.emails.attachments.list({ emailId, limit: 2 });
    assert.deepEqual(
      page.data!.data.map((a) => a.filename),
      ['report.pdf', 'notes.txt'],
    );
    assert.equal(page.data!.has_more, true);
    const next = await t.resend.emails.attachments.list({ emailId, limit: 2, after: notes!.id });
    assert.deepEqual(
      next.data!.data.map((a) => a.filename),
      ['logo.png', 'Grüße €.bin'],
    );
    assert.equal(next.data!.has_more, false);
    const back = await t.resend.emails.attachments.list({ emailId, limit: 2, before: logo!.id });
    assert.deepEqual(
      back.data!.data.map((a) => a.filename),
      ['report.pdf', 'notes.txt'],
    );
  });

  it('downloads the exact bytes without an API key, only with a valid signature', async () => {
    const { data } = await t.resend.emails.attachments.list({ emailId });
    for (const [attachment, bytes] of [
      [data!.data[0]!, pdf],
      [data!.data[2]!, png],
    ] as const) {
      const res = await download(attachment.download_url);
      assert.equal(res.status, 200);
      assert.deepEqual(Buffer.from(await res.arrayBuffer()), bytes);
      assert.equal(res.headers.get('content-type'), attachment.content_type);
      assert.match(res.headers.get('content-disposition')!, new RegExp(`^attachment; filename="${attachment.filename}"`));
      assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
    }
    const unicode = await download(data!.data[3]!.download_url);
    assert.equal(unicode.headers.get('content-disposition'), `attachment; filename="Gr__e _.bin"; filename*=UTF-8''${encodeURIComponent('Grüße €.bin')}`);

    const url = new URL(data!.data[0]!.download_url);
    const tampered = [
      url.href.replace(/signature=[^&]+/, 'signature=AAAAAAAAAAAAAAAAAAAAAA'),
      url.href.replace(/expires=(\d+)/, (_m, e) => `expires=${Number(e) + 3600}`),
      url.href.replace(data!.data[0]!.id, data!.data[1]!.id),
      url.href.replace(/&signature=[^&]+/, ''),
    ];
    for (const href of tampered) {
      const res = await download(href);
      assert.equal(res.status, 404, href);
      assert.deepEqual(await res.json(), { statusCode: 404, message: 'Attachment not found', name: 'not_found' });
    }
  });

  it('refuses a download URL with 403 once its expires_at has passed', async () => {
    const { data } = await t.resend.emails.attachments.list({ emailId });
    const { download_url, expires_at } = data!.data[0]!;
    assert.equal((await download(download_url)).status, 200);
    const res = await eventually(
      async () => {
        const answer = await download(download_url);
        return answer.status === 200 ? undefined : answer;
      },
      30_000,
      'the link to expire',
    );
    assert.ok(Date.now() >= Date.parse(expires_at), `refused before ${expires_at}`);
    assert.equal(res.status, 403);
    assert.equal((await res.json()).name, 'validation_error');
  });

  it("keeps attachments to their account: another account's email or attachment is not found", async () => {
    const { data } = await t.resend.emails.attachments.list({ emailId });
    const stranger = new Resend((await createAccount(t.postline.db, 'stranger')).token, { baseUrl: t.url });
    const list = await stranger.emails.attachments.list({ emailId });
    assert.deepEqual(list.error, { statusCode: 404, message: 'Email not found', name: 'not_found' });
    const got = await stranger.emails.attachments.get({ emailId, id: data!.data[0]!.id });
    assert.equal(got.error?.statusCode, 404);
    const missing = await t.resend.emails.attachments.get({ emailId, id: crypto.randomUUID() });
    assert.deepEqual(missing.error, { statusCode: 404, message: 'Attachment not found', name: 'not_found' });
    const noAttachments = await t.resend.emails.send({ from: 'hello@acme.test', to: 'c@example.org', subject: 'x', text: 'y' });
    const empty = await t.resend.emails.attachments.list({ emailId: noAttachments.data!.id });
    assert.deepEqual(empty.data, { object: 'list', has_more: false, data: [] });
    const noKey = await rawRequest(t, 'GET', `/emails/${emailId}/attachments`, { auth: null });
    assert.equal(noKey.status, 401);
  });
});
