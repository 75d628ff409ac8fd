// When the database cannot take the message, the client is told to try again (451 4.3.0):
// never a 250 for something not stored, never a silent drop. Once the database is back, the
// same client's retry is accepted.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestPostline } from '../support/postline.js';
import { FROM, queuedId, smtpEmails, startSmtpTest, transport } from './support.js';

describe('SMTP: a failing database', () => {
  let t: TestPostline;
  before(async () => {
    t = await startSmtpTest();
  });
  after(() => t.stop());

  it('answers 451 4.3.0 while the message cannot be committed, then accepts the retry', async () => {
    const before = (await smtpEmails(t)).length;
    const mail = { from: FROM, to: 'retry@example.net', subject: 'Retried', text: 'x' };
    // The accepting transaction fails at its queue insert, as on a database that went away mid-write.
    await t.sql('ALTER TABLE deliveries RENAME TO deliveries_unavailable');
    try {
      await assert.rejects(transport(t).sendMail(mail), (err: any) => {
        assert.equal(err.responseCode, 451);
        assert.match(err.response, /^451 4\.3\.0 /);
        return true;
      });
    } finally {
      await t.sql('ALTER TABLE deliveries_unavailable RENAME TO deliveries');
    }
    assert.equal((await smtpEmails(t)).length, before, 'nothing half-written');
    const info = await transport(t).sendMail(mail);
    const [row] = await smtpEmails(t);
    assert.equal(row.id, queuedId(info.response));
  });
});
