import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.js';
import { createVerifiedDomain } from '../support/domains.js';
import type { TestPostline } from '../support/postline.js';
import { composeMessage, deliverInbound, eventually, startInboundTest } from './support.js';

describe('inbound: received mail older than POSTLINE_RECEIVED_RETENTION is purged by housekeeping', () => {
  let t: TestPostline;

  before(async () => {
    t = await startInboundTest();
    await createVerifiedDomain(t, 'inbox.test', { receiving: true });
  });
  after(() => t?.stop());

  async function receive(subject: string): Promise<string> {
    const raw = await composeMessage({
      from: 'alice@remote.test',
      to: 'support@inbox.test',
      subject,
      text: 'Hello',
      attachments: [{ filename: 'note.txt', content: 'a note' }],
    });
    await deliverInbound(t, raw, { mailFrom: 'alice@remote.test', rcptTo: ['support@inbox.test'] });
    const listed = await eventually(async () => (await t.resend.emails.receiving.list()).data?.data.find((e) => e.subject === subject));
    return listed.id;
  }

  it('keeps received mail when no retention is set', async () => {
    assert.equal(loadConfig({}).receivedRetentionMs, undefined);
    const id = await receive('Kept');
    await t.restart();
    assert.equal((await t.resend.emails.receiving.get(id)).error, null);
  });

  it('deletes older messages with their attachments and raw download, and keeps newer ones', async () => {
    const old = await receive('Old');
    const { data: got } = await t.resend.emails.receiving.get(old);
    const attachments = await t.resend.emails.receiving.attachments.list({ emailId: old });
    assert.equal(attachments.data!.data.length, 1);
    const olderThanRetention = async () =>
      (
        await t.sql(
          `SELECT now() - m.created_at > interval '1 second' AS old FROM received_emails r JOIN inbound_messages m ON m.id = r.inbound_message_id WHERE r.id = $1`,
          [old],
        )
      )[0]?.old;
    await eventually(olderThanRetention, 5_000, 'the message to be older than the retention below');
    // Housekeeping runs when the worker starts, then every 10 minutes.
    await t.restart({ POSTLINE_RECEIVED_RETENTION: '1s' });
    const fresh = await receive('Fresh');
    await eventually(async () => (await t.resend.emails.receiving.get(old)).error?.statusCode === 404, 15_000, 'the old message purged');
    assert.deepEqual((await t.resend.emails.receiving.attachments.list({ emailId: old })).error?.statusCode, 404);
    assert.equal((await fetch(got!.raw!.download_url)).status, 404);
    assert.equal((await fetch(attachments.data!.data[0]!.download_url)).status, 404);
    const left = (await t.resend.emails.receiving.list()).data!.data.map((e) => e.subject);
    assert.deepEqual(left, ['Fresh']);
    assert.equal((await t.resend.emails.receiving.get(fresh)).error, null);
    assert.deepEqual(await t.sql('SELECT count(*)::int AS n FROM inbound_messages'), [{ n: 1 }]);
  });

  it('takes a duration, and refuses one that is not', () => {
    assert.equal(loadConfig({ POSTLINE_RECEIVED_RETENTION: '30d' }).receivedRetentionMs, 30 * 86_400_000);
    assert.equal(loadConfig({ POSTLINE_RECEIVED_RETENTION: '12h' }).receivedRetentionMs, 12 * 3_600_000);
    for (const bad of ['0', 'soon', '-1d']) {
      assert.throws(() => loadConfig({ POSTLINE_RECEIVED_RETENTION: bad }), ConfigError, bad);
    }
  });
});
