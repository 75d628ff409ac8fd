import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Resend } from 'resend';
import { createAccount } from '../../src/accounts/accounts.js';
import { createVerifiedDomain } from '../support/domains.js';
import type { TestPostline } from '../support/postline.js';
import { composeMessage, deliverInbound, publishDkimKey, startInboundTest } from './support.js';

describe('inbound: sender authentication is recorded, not enforced; one message, several accounts', () => {
  let t: TestPostline;
  let stranger: Resend;

  before(async () => {
    t = await startInboundTest();
    await createVerifiedDomain(t, 'inbox.test', { receiving: true });
    const other = await createAccount(t.postline.db, 'Other');
    stranger = new Resend(other.token, { baseUrl: t.url });
    await createVerifiedDomain({ dns: t.dns, resend: stranger }, 'other-inbox.test', { receiving: true });
  });
  after(() => t?.stop());

  async function latest(resend: Resend) {
    const { data } = await resend.emails.receiving.list({ limit: 1 });
    const { data: email } = await resend.emails.receiving.get(data!.data[0]!.id);
    return email!;
  }

  const verdicts = async (id: string) => {
    const [row] = await t.sql(`SELECT m.spf, m.dkim, m.dmarc FROM received_emails r JOIN inbound_messages m ON m.id = r.inbound_message_id WHERE r.id = $1`, [
      id,
    ]);
    return [row.spf, row.dkim, row.dmarc];
  };

  it('keeps a forged message, with spf=fail, dkim=none and dmarc=fail', async () => {
    t.dns.set('bank.test', { TXT: ['v=spf1 ip4:192.0.2.1 -all'] });
    t.dns.set('_dmarc.bank.test', { TXT: ['v=DMARC1; p=reject'] });
    const raw = await composeMessage({ from: 'ceo@bank.test', to: 'support@inbox.test', subject: 'Wire money', text: 'Now.' });
    await deliverInbound(t, raw, { mailFrom: 'ceo@bank.test', rcptTo: ['support@inbox.test'] });
    const email = await latest(t.resend);
    assert.equal(email.subject, 'Wire money');
    assert.deepEqual(await verdicts(email.id), ['fail', 'none', 'fail']);
    // The API says so too (Postline's own field), whatever text the sender put in its headers.
    assert.deepEqual((email as unknown as { authentication: unknown }).authentication, { spf: 'fail', dkim: 'none', dmarc: 'fail' });
    assert.match(email.headers!['Authentication-Results']!, /spf=fail/);
    assert.match(email.headers!['Authentication-Results']!, /dmarc=fail/);
    assert.match(email.headers!['Received-SPF']!, /^fail/);
  });

  it('does not pass a DKIM signature whose message was changed on the way', async () => {
    t.dns.set('signed.test', { TXT: ['v=spf1 ip4:127.0.0.1 -all'] });
    const privateKey = publishDkimKey(t, 'signed.test', 's1');
    const raw = await composeMessage(
      { from: 'news@signed.test', to: 'support@inbox.test', subject: 'Signed', text: 'Original body' },
      { domain: 'signed.test', selector: 's1', privateKey },
    );
    const edit = (from: string, to: string) => Buffer.from(raw.toString('latin1').replace(from, to), 'latin1');
    // A changed header breaks the signature (fail); a changed body its body hash (mailauth: neutral).
    await deliverInbound(t, edit('Subject: Signed', 'Subject: Signed!'), { mailFrom: 'news@signed.test', rcptTo: ['support@inbox.test'] });
    const header = await latest(t.resend);
    assert.equal(header.subject, 'Signed!');
    assert.deepEqual(await verdicts(header.id), ['pass', 'fail', 'none']); // signed.test publishes no DMARC policy
    await deliverInbound(t, edit('Original body', 'Altered body'), { mailFrom: 'news@signed.test', rcptTo: ['support@inbox.test'] });
    const body = await latest(t.resend);
    assert.equal(body.text?.trim(), 'Altered body');
    assert.deepEqual(await verdicts(body.id), ['pass', 'neutral', 'none']);
    assert.match(body.headers!['Authentication-Results']!, /dkim=neutral \(body hash did not verify\)/);
  });

  it('gives each account its own received email for its own recipients, the message stored once', async () => {
    const raw = await composeMessage({
      from: 'someone@elsewhere.test',
      to: 'support@inbox.test, desk@other-inbox.test',
      subject: 'For both of you',
      text: 'Hi',
    });
    const messagesBefore = (await t.sql('SELECT count(*)::int AS n FROM inbound_messages'))[0].n;
    await deliverInbound(t, raw, { mailFrom: 'someone@elsewhere.test', rcptTo: ['support@inbox.test', 'desk@other-inbox.test'] });
    const mine = await latest(t.resend);
    const theirs = await latest(stranger);
    assert.equal(mine.subject, 'For both of you');
    assert.equal(theirs.subject, 'For both of you');
    assert.notEqual(mine.id, theirs.id);
    assert.deepEqual(mine.received_for, ['support@inbox.test']);
    assert.deepEqual(theirs.received_for, ['desk@other-inbox.test']);
    assert.deepEqual(mine.to, ['support@inbox.test', 'desk@other-inbox.test']);
    assert.equal((await t.sql('SELECT count(*)::int AS n FROM inbound_messages'))[0].n, messagesBefore + 1);
    // Neither sees the other's.
    assert.equal((await stranger.emails.receiving.get(mine.id)).error?.statusCode, 404);
    assert.equal((await t.resend.emails.receiving.get(theirs.id)).error?.statusCode, 404);
    // Both download the same bytes.
    const [a, b] = await Promise.all([fetch(mine.raw!.download_url), fetch(theirs.raw!.download_url)]);
    assert.ok(Buffer.from(await a.arrayBuffer()).equals(Buffer.from(await b.arrayBuffer())));
  });

  it('keeps a message postal-mime makes little of, raw and all', async () => {
    const junk = Buffer.concat([
      Buffer.from('Subject: odd\r\nContent-Type: multipart/mixed; boundary="never"\r\n\r\n'),
      Buffer.from([0, 1, 2, 0xff, 0xfe]),
      Buffer.from('\r\n'),
    ]);
    await deliverInbound(t, junk, { mailFrom: '', rcptTo: ['support@inbox.test'] });
    const email = await latest(t.resend);
    assert.equal(email.subject, 'odd');
    const res = await fetch(email.raw!.download_url);
    assert.ok(
      Buffer.from(await res.arrayBuffer())
        .subarray(-junk.length)
        .equals(junk),
    );
  });

  it('lists newest first in pages (limit, after, before), attachments empty when there are none', async () => {
    const all = (await t.resend.emails.receiving.list()).data!.data;
    assert.ok(all.length >= 4);
    const subjects = all.map((e) => e.subject);
    assert.deepEqual(subjects.slice(0, 2), ['odd', 'For both of you']);
    const first = await t.resend.emails.receiving.list({ limit: 2 });
    assert.equal(first.data!.has_more, true);
    assert.deepEqual(
      first.data!.data.map((e) => e.id),
      all.slice(0, 2).map((e) => e.id),
    );
    const next = await t.resend.emails.receiving.list({ limit: 2, after: all[1]!.id });
    assert.deepEqual(
      next.data!.data.map((e) => e.id),
      all.slice(2, 4).map((e) => e.id),
    );
    const back = await t.resend.emails.receiving.list({ limit: 1, before: all[2]!.id });
    assert.deepEqual(
      back.data!.data.map((e) => e.id),
      [all[1]!.id],
    );
    const bad = await t.resend.emails.receiving.list({ limit: 101 });
    assert.equal(bad.error?.name, 'validation_error');
    const none = await t.resend.emails.receiving.attachments.list({ emailId: all[0]!.id });
    assert.deepEqual(none.data, { object: 'list', has_more: false, data: [] });
  });
});
