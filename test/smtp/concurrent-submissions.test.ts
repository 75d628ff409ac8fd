// Many sessions submitting at once (an application's connection pool): messages of one key
// that are ready together enter the accept pipeline together (src/smtp/submission-batch.ts),
// and each still gets its own answer: its own email id, or its own refusal.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import nodemailer from 'nodemailer';
import { createVerifiedDomain } from '../support/domains.js';
import type { TestPostline } from '../support/postline.js';
import { queuedId, SENDER_DOMAIN, startSmtpTest, starttlsPort } from './support.js';

describe('SMTP submission: concurrent sessions', () => {
  let t: TestPostline;
  let restrictedKey: string;
  before(async () => {
    t = await startSmtpTest();
    const other = await createVerifiedDomain(t, 'other.test');
    const key = await t.resend.apiKeys.create({ name: 'other only', permission: 'sending_access', domain_id: other.id });
    restrictedKey = key.data!.token;
  });
  after(() => t.stop());

  const pool = (pass: string) =>
    nodemailer.createTransport({
      pool: true,
      maxConnections: 10,
      maxMessages: Infinity,
      host: '127.0.0.1',
      port: starttlsPort(t),
      secure: false,
      requireTLS: true,
      auth: { user: 'resend', pass },
      tls: { rejectUnauthorized: false },
    });

  it('answers each message with its own id or its own refusal', async () => {
    const full = pool(t.apiKey);
    const restricted = pool(restrictedKey);
    try {
      const sends = Array.from({ length: 60 }, (_, i) => {
        // Every third is from a domain that is not verified; every fourth goes through the key
        // restricted to other.test (so only its other.test messages pass).
        const from = i % 3 === 0 ? `hello@unverified${i}.test` : i % 2 === 0 ? `hello@other.test` : `hello@${SENDER_DOMAIN}`;
        const transport = i % 4 === 0 ? restricted : full;
        const subject = `Message ${i}`;
        return transport
          .sendMail({ from, to: `reader${i}@example.net`, subject, text: `Body ${i}` })
          .then((info) => ({ i, from, restricted: transport === restricted, subject, id: queuedId(info.response) }))
          .catch((err) => ({ i, from, restricted: transport === restricted, subject, refused: String(err.response) }));
      });
      const results = await Promise.all(sends);
      for (const r of results) {
        const allowed = !r.from.startsWith('hello@unverified') && (!r.restricted || r.from === 'hello@other.test');
        if (!allowed) {
          assert.ok('refused' in r, `message ${r.i} (${r.from}) should be refused`);
          assert.match(r.refused!, /^550 5\.7\.1 /, `message ${r.i}`);
          assert.match(r.refused!, r.from.startsWith('hello@unverified') ? /is not verified/ : /restricted to another domain/);
          continue;
        }
        assert.ok('id' in r, `message ${r.i} (${r.from}) refused: ${(r as { refused?: string }).refused}`);
        const { data } = await t.resend.emails.get(r.id!);
        assert.equal(data!.subject, r.subject, `the id of message ${r.i} names its own email`);
        assert.deepEqual(data!.to, [`reader${r.i}@example.net`]);
        assert.equal(data!.from, r.from);
      }
      const ids = results.flatMap((r) => ('id' in r ? [r.id] : []));
      assert.equal(new Set(ids).size, ids.length, 'no id given twice');
      const [{ n }] = await t.sql(`SELECT count(*)::int AS n FROM emails WHERE source = 'smtp'`);
      assert.equal(n, ids.length, 'nothing written for a refused message');
    } finally {
      full.close();
      restricted.close();
    }
  });
});
