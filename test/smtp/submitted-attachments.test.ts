// Attachments of a message submitted over SMTP are listed and downloadable like those of an
// API send: the client composed the MIME, Postline indexes its attachment parts in place.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestPostline } from '../support/postline.js';
import { FROM, openSession, queuedId, sendRaw, startSmtpTest, transport } from './support.js';

const PUBLIC_URL = 'https://mail.postline.test';

describe('SMTP submission: attachments', () => {
  let t: TestPostline;
  before(async () => {
    t = await startSmtpTest({ POSTLINE_PUBLIC_URL: PUBLIC_URL });
  });
  after(() => t.stop());

  const download = async (url: string) => {
    assert.ok(url.startsWith(`${PUBLIC_URL}/downloads/attachments/`), url);
    const res = await fetch(t.url + url.slice(PUBLIC_URL.length));
    assert.equal(res.status, 200);
    return Buffer.from(await res.arrayBuffer());
  };

  it('lists base64, quoted-printable and inline parts, and downloads their decoded bytes', async () => {
    const pdf = Buffer.from(Array.from({ length: 5000 }, (_, i) => i % 256));
    const notes = 'Grüße aus Köln — line one\nline two with = sign\n'.repeat(20);
    const png = Buffer.alloc(300, 7);
    const info = await transport(t).sendMail({
      from: FROM,
      to: 'alice@example.net',
      subject: 'With attachments',
      text: 'See attached',
      html: '<p>Logo: <img src="cid:logo@client"></p>',
      attachments: [
        { filename: 'report.pdf', content: pdf, contentType: 'application/pdf' },
        {
          filename: 'Notizen Köln.txt',
          content: notes,
          contentType: 'text/plain; charset=utf-8',
          encoding: 'utf8',
          contentTransferEncoding: 'quoted-printable',
        },
        { content: png, contentType: 'image/png', cid: 'logo@client' },
      ],
    });
    const emailId = queuedId(info.response);

    const { data, error } = await t.resend.emails.attachments.list({ emailId });
    assert.equal(error, null, JSON.stringify(error));
    const items = data!.data;
    assert.equal(items.length, 3, JSON.stringify(items));
    const [logo, report, notesPart] = [
      items.find((a) => a.content_id === 'logo@client'),
      items.find((a) => a.filename === 'report.pdf'),
      items.find((a) => a.filename === 'Notizen Köln.txt'),
    ];
    assert.ok(logo && report && notesPart, JSON.stringify(items));
    assert.equal(report.content_type, 'application/pdf');
    assert.equal(report.content_disposition, 'attachment');
    assert.equal(report.size, pdf.length);
    assert.deepEqual(await download(report.download_url), pdf);
    // A text part's line breaks are CRLF on the wire (RFC 2046 §4.1.1), so they are in the download.
    const wireNotes = notes.replace(/\n/g, '\r\n');
    assert.equal(notesPart.size, Buffer.byteLength(wireNotes));
    assert.equal((await download(notesPart.download_url)).toString('utf8'), wireNotes);
    assert.equal(logo.content_disposition, 'inline');
    assert.equal(logo.content_type, 'image/png');
    assert.deepEqual(await download(logo.download_url), png);
  });

  it('lists nothing for a message without attachments', async () => {
    const info = await transport(t).sendMail({ from: FROM, to: 'bob@example.net', subject: 'Plain', text: 'Hi', html: '<p>Hi</p>' });
    const { data } = await t.resend.emails.attachments.list({ emailId: queuedId(info.response) });
    assert.deepEqual(data!.data, []);
  });

  it('reads a multipart whose closing boundary is missing as mail readers do, up to the end of the message', async () => {
    // Answered 451 (try again later, for ever) before: the part walk threw on the missing `--b--`.
    const session = await openSession(t, { token: t.apiKey });
    const reply = await sendRaw(
      session,
      ['alice@example.net'],
      `From: ${FROM}\r\nTo: alice@example.net\r\nSubject: Cut off\r\nContent-Type: multipart/mixed; boundary=b\r\n\r\n` +
        '--b\r\nContent-Type: text/plain\r\n\r\nSee attached\r\n' +
        '--b\r\nContent-Type: application/octet-stream\r\nContent-Disposition: attachment; filename="cut.bin"\r\n\r\nAAEC\r\n' +
        '--b\r\nContent-Type: text/plain\r\nno blank line, so all header\r\n',
    );
    session.close();
    const { data } = await t.resend.emails.attachments.list({ emailId: queuedId(reply) });
    assert.deepEqual(
      data!.data.map((a) => a.filename),
      ['cut.bin'],
    );
  });
});
