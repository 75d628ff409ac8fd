// An SMTP submission is answered 250 once committed, unsigned: the delivery worker DKIM-signs
// the prepared message just before the first attempt (src/emails/compose-deferred.ts), and that
// attempt's outcome stores the signed message, so a retry after a 4xx sends the same bytes.
// A submission with attachments is signed at accept (its downloads slice the signed message).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ALL_ROLES } from '../../src/config.js';
import { eventually, verifyDkim } from '../delivery/support.js';
import type { TestPostline } from '../support/postline.js';
import { storedMessage } from '../support/stored-message.js';
import { FROM, queuedId, SENDER_DOMAIN, startSmtpTest, transport } from './support.js';

describe('SMTP: submissions signed at delivery', () => {
  let t: TestPostline;
  before(async () => {
    t = await startSmtpTest({ POSTLINE_RETRY_DELAYS: '300ms' });
  });
  after(() => t.stop());

  it('signs at the first attempt, re-sends the same bytes after a 4xx, and keeps the text as submitted', async () => {
    const offered: Buffer[] = [];
    t.sink.onData = (message) => {
      if (!message.to.includes('retry@example.net')) return undefined;
      offered.push(message.raw);
      return offered.length === 1 ? { code: 451, message: 'temporary local problem' } : undefined;
    };
    const info = await transport(t).sendMail({ from: FROM, to: 'retry@example.net', subject: 'Signed late', html: '<p>Only <b>html</b></p>' });
    const id = queuedId(info.response);
    const got = await t.resend.emails.get(id);
    assert.equal(got.error, null, JSON.stringify(got.error));
    assert.equal(got.data!.text, null, 'no text part was submitted, and none is made up');

    await eventually(async () => offered.length >= 2 || undefined);
    assert.equal(offered.length, 2, 'refused, then accepted');
    assert.ok(offered[0]!.equals(offered[1]!), 'the retry sends the message signed for the first attempt, byte for byte');
    assert.deepEqual(await verifyDkim(t, offered[1]!), [{ result: 'pass', domain: SENDER_DOMAIN }]);
    assert.ok((await storedMessage(t, id)).equals(offered[0]!), 'the stored message is the one sent');
    const [row] = await t.sql(`SELECT unsigned_mime IS NULL AS cleared FROM emails WHERE id = $1`, [id]);
    assert.equal(row.cleared, true, 'the unsigned copy is dropped once the signed one is stored');
  });

  it('keeps a message of a few kilobytes in its row uncompressed, before and after signing (0021)', async () => {
    const html = `<p>${'The same sentence, over and over, compresses well. '.repeat(80)}</p>`; // ~4 KB
    // Without the worker role nothing signs it, so the unsigned row is there to be read.
    await t.restart({}, ['api', 'smtp']);
    const info = await transport(t).sendMail({ from: FROM, to: 'inline@example.net', subject: 'Inline', html });
    const id = queuedId(info.response);
    const stored = (column: 'mime' | 'unsigned_mime') =>
      t.sql(
        `SELECT octet_length(${column}) AS length, pg_column_size(${column}) AS size, pg_column_compression(${column}) AS compression FROM emails WHERE id = $1`,
        [id],
      );
    const check = (row: { length: number; size: number; compression: string | null }, what: string) => {
      assert.ok(row.length > 4000, `${what}: the whole message (${row.length} bytes)`);
      assert.equal(row.compression, null, `${what}: not compressed`);
      assert.ok(row.size >= row.length, `${what}: stored at full size (${row.size} bytes)`);
    };
    const [unsigned] = await stored('unsigned_mime');
    check(unsigned, 'the unsigned message');
    assert.equal((await stored('mime'))[0].length, null, 'not signed yet');
    await t.restart({}, ALL_ROLES);
    const signed = await eventually(
      async () => {
        const [row] = await stored('mime');
        return row.length !== null && row;
      },
      15_000,
      'the signed message stored',
    );
    check(signed, 'the signed message');
  });

  it('signs a submission with attachments at accept, so its attachment can be downloaded at once', async () => {
    const info = await transport(t).sendMail({
      from: FROM,
      to: 'invoice@example.net',
      subject: 'Invoice',
      text: 'Attached.',
      attachments: [{ filename: 'invoice.txt', content: 'total: 42\n' }],
    });
    const id = queuedId(info.response);
    const [row] = await t.sql(`SELECT mime IS NOT NULL AS signed, unsigned_mime IS NULL AS no_copy FROM emails WHERE id = $1`, [id]);
    assert.deepEqual({ ...row }, { signed: true, no_copy: true });
    const list = await t.resend.emails.attachments.list({ emailId: id });
    assert.equal(list.error, null, JSON.stringify(list.error));
    const [attachment] = list.data!.data;
    const url = new URL(attachment!.download_url); // POSTLINE_PUBLIC_URL's host: fetched from the test's port
    const body = await (await fetch(t.url + url.pathname + url.search)).text();
    assert.equal(body, 'total: 42\n');
  });
});
