// Submission as applications do it: nodemailer with `resend` and an API key, on the STARTTLS
// port and on the implicit-TLS port. The message goes through the accept pipeline: it is
// listed by GET /emails, logged in /logs, and delivered DKIM-signed to the recipients' MX.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import nodemailer from 'nodemailer';
import { verifyDkim } from '../delivery/support.js';
import type { TestPostline } from '../support/postline.js';
import { storedMessage } from '../support/stored-message.js';
import { FROM, queuedId, SENDER_DOMAIN, smtpEmails, startSmtpTest, transport } from './support.js';

describe('SMTP submission with nodemailer', () => {
  let t: TestPostline;
  before(async () => {
    t = await startSmtpTest();
  });
  after(() => t.stop());

  for (const implicit of [false, true]) {
    it(`accepts, lists and delivers a message DKIM-signed (${implicit ? 'implicit TLS' : 'STARTTLS'} port)`, async () => {
      const before = t.sink.messages.length;
      const info = await transport(t, { implicit }).sendMail({
        from: FROM,
        to: 'Alice <alice@example.net>',
        cc: 'carol@example.net',
        bcc: 'bob@example.net',
        replyTo: 'replies@sender.test',
        subject: `Welcome ${implicit}`,
        text: 'Hello Alice',
        html: '<p>Hello <b>Alice</b></p>',
        headers: { 'X-Entity-Ref-ID': 'ref-123', 'List-Unsubscribe': '<https://sender.test/u>' },
        messageId: '<client-chosen@client.test>',
      });
      const id = queuedId(info.response);
      assert.match(info.response, /^250 2\.0\.0 /);

      const { data: email, error } = await t.resend.emails.get(id);
      assert.equal(error, null);
      assert.equal(email!.from, FROM);
      assert.deepEqual(email!.to, ['Alice <alice@example.net>']);
      assert.deepEqual(email!.cc, ['carol@example.net']);
      assert.deepEqual(email!.bcc, ['bob@example.net']);
      assert.deepEqual(email!.reply_to, ['replies@sender.test']);
      assert.equal(email!.subject, `Welcome ${implicit}`);
      assert.equal(email!.html?.trim(), '<p>Hello <b>Alice</b></p>');
      assert.equal(email!.text?.trim(), 'Hello Alice');
      assert.equal(email!.message_id, `<${id}@${SENDER_DOMAIN}>`, 'Postline sets its own Message-ID');
      const listed = await t.resend.emails.list();
      assert.ok(listed.data!.data.some((e) => e.id === id));
      const [row] = await t.sql(`SELECT source FROM emails WHERE id = $1`, [id]);
      assert.equal(row.source, 'smtp');

      await t.sink.waitFor(before + 1);
      const delivered = t.sink.messages.slice(before);
      assert.deepEqual(delivered.flatMap((m) => m.to).sort(), ['alice@example.net', 'bob@example.net', 'carol@example.net']);
      const raw = delivered[0]!.raw;
      const text = raw.toString();
      assert.deepEqual(await verifyDkim(t, raw), [{ result: 'pass', domain: SENDER_DOMAIN }]);
      assert.match(text, /^X-Entity-Ref-ID: ref-123\r$/m, 'custom headers pass through');
      assert.match(text, /^List-Unsubscribe: <https:\/\/sender\.test\/u>\r$/m);
      assert.match(text, new RegExp(`^Message-ID: <${id}@${SENDER_DOMAIN}>\r$`, 'm'));
      assert.doesNotMatch(text, /client-chosen/);
      assert.doesNotMatch(text, /^bcc:/im, 'Bcc is removed');
      assert.doesNotMatch(text, /bob@example\.net/);
      assert.match(delivered[0]!.from, new RegExp(`^bounces\\+${id}@send\\.${SENDER_DOMAIN}$`));
      assert.ok(raw.equals(await storedMessage(t, id)), 'the bytes on the wire are the stored, signed message');
    });
  }

  it('logs each message in /logs as an SMTP request', async () => {
    const info = await transport(t).sendMail({ from: FROM, to: 'log@example.net', subject: 'Logged', text: 'hi' });
    const id = queuedId(info.response);
    const list = await t.resend.logs.list({ limit: 100 });
    const entry = list.data!.data.find((l) => l.method === 'SMTP' && l.response_status === 250);
    assert.ok(entry, JSON.stringify(list.data!.data));
    assert.match(entry.endpoint, /^smtp:\/\/mta\.postline\.test:\d+$/);
    const detail = await t.resend.logs.get(entry.id);
    assert.deepEqual((detail.data as any).response_body, { id });
    assert.deepEqual((detail.data as any).request_body.to, ['log@example.net']);
    assert.equal((detail.data as any).request_body.subject, 'Logged');
  });

  it('sends a sequence of messages over one authenticated connection (user `postline`)', async () => {
    const pool = nodemailer.createTransport({
      host: '127.0.0.1',
      port: t.postline.smtpPorts.starttls[0],
      pool: true,
      maxConnections: 1,
      auth: { user: 'postline', pass: t.apiKey },
      tls: { rejectUnauthorized: false },
    });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const info = await pool.sendMail({ from: FROM, to: `seq${i}@example.net`, subject: `Seq ${i}`, text: `Message ${i}` });
      ids.push(queuedId(info.response));
    }
    pool.close();
    assert.equal(new Set(ids).size, 5);
    const rows = await smtpEmails(t);
    for (const id of ids) assert.ok(rows.some((r) => r.id === id));
  });

  it('accepts a large message with an attachment, its text stored and the attachment sent unchanged', async () => {
    const pdf = Buffer.alloc(3 * 1024 * 1024, 'pdf-bytes-');
    const info = await transport(t).sendMail({
      from: FROM,
      to: 'large@example.net',
      subject: 'Large',
      text: 'See the attachment',
      attachments: [{ filename: 'big.pdf', content: pdf, contentType: 'application/pdf' }],
    });
    const id = queuedId(info.response);
    const { data } = await t.resend.emails.get(id);
    assert.equal(data!.text?.trim(), 'See the attachment');
    const [stored] = await t.sql(`SELECT mime FROM emails WHERE id = $1`, [id]);
    assert.ok(
      (stored.mime as Buffer).includes(
        Buffer.from(
          pdf
            .subarray(0, 57 * 100)
            .toString('base64')
            .slice(0, 76),
        ),
      ),
    );
  });
});
