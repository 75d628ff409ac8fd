import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { verifyDkim } from '../support/dkim.js';
import { createVerifiedDomain } from '../support/domains.js';
import { startTestPostline, type TestPostline } from '../support/postline.js';
import { storedMessage } from '../support/stored-message.js';

const HTML = '<h1>Welcome</h1><p>Thanks for <strong>signing up</strong>.</p>';

describe('sending an email and reading it back', () => {
  let t: TestPostline;
  before(async () => {
    t = await startTestPostline();
    await createVerifiedDomain(t, 'acme.test');
    // The delivery worker runs too: let it deliver the recipients' mail to the test sink.
    for (const domain of ['example.org', 'example.net']) t.dns.set(domain, { MX: [{ exchange: 'mx.sink.test', priority: 10 }] });
    t.dns.set('mx.sink.test', { A: ['127.0.0.1'] });
  });
  after(() => t.stop());

  it('stores every field, generates text from html, and reports last_event sent', async () => {
    const sent = await t.resend.emails.send({
      from: 'Acme Team <hello@acme.test>',
      to: ['ann@example.org', 'Bob Smith <bob@example.net>'],
      cc: 'carol@example.org',
      bcc: ['dave@example.org'],
      replyTo: 'support@acme.test',
      subject: 'Welcome aboard',
      html: HTML,
      headers: { 'X-Entity-Ref-ID': 'abc-123' },
      tags: [{ name: 'category', value: 'welcome' }],
    });
    assert.equal(sent.error, null, JSON.stringify(sent.error));
    const id = sent.data!.id;
    assert.match(id, /^[0-9a-f-]{36}$/);

    const got = await t.resend.emails.get(id);
    assert.equal(got.error, null);
    const email = got.data!;
    assert.equal(email.object, 'email');
    assert.equal(email.id, id);
    assert.equal(email.from, 'Acme Team <hello@acme.test>');
    assert.deepEqual(email.to, ['ann@example.org', 'Bob Smith <bob@example.net>']);
    assert.deepEqual(email.cc, ['carol@example.org']);
    assert.deepEqual(email.bcc, ['dave@example.org']);
    assert.deepEqual(email.reply_to, ['support@acme.test']);
    assert.equal(email.subject, 'Welcome aboard');
    assert.equal(email.html, HTML);
    assert.match(email.text!, /WELCOME/);
    assert.match(email.text!, /Thanks for signing up\./);
    // 'sent' on acceptance; the delivery worker may already have moved it on.
    assert.ok(['sent', 'delivered'].includes(email.last_event), email.last_event);
    assert.equal(email.scheduled_at, null);
    assert.deepEqual(email.tags, [{ name: 'category', value: 'welcome' }]);
    assert.equal(email.message_id, `<${id}@acme.test>`);
    assert.match(email.created_at, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+\+00$/);

    // One queue entry per recipient (to, cc and bcc), on the recipient's domain; one event.
    const deliveries = await t.sql('SELECT recipient, domain FROM deliveries WHERE email_id = $1 ORDER BY recipient', [id]);
    assert.deepEqual(deliveries, [
      { recipient: 'ann@example.org', domain: 'example.org' },
      { recipient: 'bob@example.net', domain: 'example.net' },
      { recipient: 'carol@example.org', domain: 'example.org' },
      { recipient: 'dave@example.org', domain: 'example.org' },
    ]);
    const events = await t.sql("SELECT type, data FROM events WHERE email_id = $1 AND type = 'email.sent'", [id]);
    assert.equal(events.length, 1);
    assert.equal(events[0].type, 'email.sent');
    assert.equal(events[0].data.email_id, id);
    assert.deepEqual(events[0].data.tags, { category: 'welcome' });

    // The stored message: our Message-ID, the custom header, no Bcc, a return path of the domain.
    const [row] = await t.sql('SELECT envelope_from FROM emails WHERE id = $1', [id]);
    const mime = (await storedMessage(t, id)).toString();
    assert.equal(row.envelope_from, `bounces+${id}@send.acme.test`);
    assert.match(mime, new RegExp(`^Message-ID: <${id}@acme.test>\r$`, 'm'));
    assert.match(mime, /^X-Entity-Ref-ID: abc-123\r$/m);
    assert.doesNotMatch(mime, /^Bcc:/im);
    assert.doesNotMatch(mime, /dave@example\.org/);
    assert.match(mime, /^Content-Type: multipart\/alternative/m);
  });

  it('signs the stored message with the domain key so that DKIM verifies against its DNS record', async () => {
    const sent = await t.resend.emails.send({ from: 'hello@acme.test', to: 'x@example.org', subject: 'Signed', html: HTML });
    const row = { mime: await storedMessage(t, sent.data!.id) };
    const [domain] = await t.sql("SELECT dkim_selector FROM domains WHERE name = 'acme.test'");
    assert.deepEqual(await verifyDkim(t, row.mime), [{ result: 'pass', domain: 'acme.test' }]);
    const signatureField = /^DKIM-Signature:.*(?:\r\n[ \t].*)*/m.exec(row.mime.toString())![0];
    assert.match(signatureField, new RegExp(`\\bs=${domain.dkim_selector};`), "signed with the domain's selector");
    assert.match(row.mime.toString().split('\r\n')[0], /^DKIM-Signature: v=1; a=rsa-sha256; c=relaxed\/relaxed;/);
  });

  it('verifies DKIM on every email of a batch, multi-line and non-ASCII content included, all lines CRLF', async () => {
    const html = `<p>Grüße,\nline two</p>\n<p>${'long paragraph '.repeat(40)}</p>`;
    const batch = await t.resend.batch.send([
      { from: 'Acme <hello@acme.test>', to: 'a@example.org', subject: 'Ünïcode ✓', html },
      { from: 'hello@acme.test', to: 'b@example.org', subject: 'Text\u00a0only', text: 'one\ntwo\r\nthree\rfour' },
      { from: 'hello@acme.test', to: 'c@example.org', subject: 'Headers', html, headers: { 'List-Unsubscribe': '<https://acme.test/u>' } },
    ]);
    assert.equal(batch.error, null, JSON.stringify(batch.error));
    for (const { id } of batch.data!.data) {
      const row = { mime: await storedMessage(t, id) };
      assert.doesNotMatch(row.mime.toString('latin1'), /[^\r]\n|\r[^\n]/, 'every line ends in CRLF');
      assert.deepEqual(await verifyDkim(t, row.mime), [{ result: 'pass', domain: 'acme.test' }]);
    }
  });

  it('gives concurrent sends their own ids and rows (they may share one commit)', async () => {
    const sends = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        t.resend.emails.send({ from: 'hello@acme.test', to: `p${i}@example.org`, subject: `Parallel ${i}`, text: `n=${i}` }),
      ),
    );
    const ids = sends.map((s) => s.data!.id);
    assert.equal(new Set(ids).size, 30);
    const rows = await t.sql('SELECT id, subject, to_addresses FROM emails WHERE id = ANY($1::uuid[])', [ids]);
    const byId = new Map(rows.map((r) => [r.id, r]));
    ids.forEach((id, i) => {
      assert.equal(byId.get(id)?.subject, `Parallel ${i}`);
      assert.deepEqual(byId.get(id)?.to_addresses, [`p${i}@example.org`]);
    });
  });

  it('sends no text part when text is "" and keeps a given text as is', async () => {
    const none = await t.resend.emails.send({ from: 'hello@acme.test', to: 'x@example.org', subject: 'Html only', html: HTML, text: '' });
    const got = await t.resend.emails.get(none.data!.id);
    assert.equal(got.data!.text, null);
    const row = { mime: await storedMessage(t, none.data!.id) };
    assert.doesNotMatch(row.mime.toString(), /text\/plain/);
    assert.match(row.mime.toString(), /^Content-Type: text\/html/m);

    const given = await t.resend.emails.send({ from: 'hello@acme.test', to: 'x@example.org', subject: 'Both', html: HTML, text: 'Plain words' });
    assert.equal((await t.resend.emails.get(given.data!.id)).data!.text, 'Plain words');

    const textOnly = await t.resend.emails.send({ from: 'hello@acme.test', to: 'x@example.org', subject: 'Text only', text: 'Just text' });
    const textEmail = (await t.resend.emails.get(textOnly.data!.id)).data!;
    assert.equal(textEmail.html, null);
    assert.equal(textEmail.text, 'Just text');
    assert.equal(textEmail.cc, null);
    assert.equal(textEmail.bcc, null);
    assert.equal(textEmail.reply_to, null);
    assert.deepEqual(textEmail.tags, []);
  });

  it('encodes display names and non-ASCII subjects instead of writing them raw', async () => {
    const sent = await t.resend.emails.send({
      from: '"Acme, Ünïcode" <hello@acme.test>',
      to: 'Zoë <zoe@example.org>',
      subject: 'Grüße ✓',
      text: 'hi',
    });
    assert.equal(sent.error, null, JSON.stringify(sent.error));
    const [row] = await t.sql('SELECT from_address FROM emails WHERE id = $1', [sent.data!.id]);
    row.mime = await storedMessage(t, sent.data!.id);
    assert.equal(row.from_address, '"Acme, Ünïcode" <hello@acme.test>');
    const headers = row.mime.toString().split('\r\n\r\n')[0];
    assert.match(headers, /^From: =\?UTF-8\?Q\?Acme=2C_=C3=9Cn=C3=AFcode\?= <hello@acme\.test>$/m);
    assert.match(headers, /^Subject: =\?UTF-8\?/m);
    assert.ok(/^[ -~\t\r\n]*$/.test(headers), 'headers are printable ASCII');
  });

  it('keeps address lists with quotes, commas and backslashes exactly as given', async () => {
    const to = ['"O\\"Brien, Pat" <pat@example.org>', '"Back\\\\slash" <bs@example.org>'];
    const cc = ['"{Braces}" <c@example.org>'];
    const sent = await t.resend.emails.send({ from: 'hello@acme.test', to, cc, replyTo: ['"NULL" <null@example.org>'], subject: 's', text: 'hi' });
    assert.equal(sent.error, null, JSON.stringify(sent.error));
    const got = await t.resend.emails.get(sent.data!.id);
    assert.deepEqual(got.data!.to, to);
    assert.deepEqual(got.data!.cc, cc);
    assert.deepEqual(got.data!.reply_to, ['"NULL" <null@example.org>']);
  });

  it('deduplicates a recipient that appears in to, cc and bcc', async () => {
    const sent = await t.resend.emails.send({
      from: 'hello@acme.test',
      to: ['Same@Example.org', 'other@example.org'],
      cc: 'same@example.org',
      bcc: 'SAME@EXAMPLE.ORG',
      subject: 'Dedupe',
      text: 'hi',
    });
    const rows = await t.sql('SELECT recipient FROM deliveries WHERE email_id = $1 ORDER BY recipient', [sent.data!.id]);
    assert.deepEqual(
      rows.map((r) => r.recipient),
      ['Same@example.org', 'other@example.org'],
    );
  });
});
