// The From of a submitted message obeys the API's sender rules (the accept pipeline's sender
// step): a verified domain of the key's account, and for a sending_access key restricted to a
// domain, that domain only. Refusals are 550 5.7.1 with the API's explanation.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Resend } from 'resend';
import { createAccount } from '../../src/accounts/accounts.js';
import { createVerifiedDomain } from '../support/domains.js';
import type { TestPostline } from '../support/postline.js';
import { message, openSession, sendRaw, smtpEmails, startSmtpTest, transport } from './support.js';

describe('SMTP: sender domain rules', () => {
  let t: TestPostline;
  let restricted: string; // a sending_access key for sender.test only
  before(async () => {
    t = await startSmtpTest();
    const domains = await t.resend.domains.list();
    const sender = domains.data!.data.find((d) => d.name === 'sender.test')!;
    await createVerifiedDomain(t, 'second.test');
    const key = await t.resend.apiKeys.create({ name: 'sending only', permission: 'sending_access', domain_id: sender.id });
    restricted = key.data!.token;
    // Another account with its own verified domain.
    const other = await createAccount(t.postline.db, 'Other');
    await createVerifiedDomain({ dns: t.dns, resend: new Resend(other.token, { baseUrl: t.url }) }, 'theirs.test');
  });
  after(() => t.stop());

  const send = async (token: string, from: string) => {
    const session = await openSession(t, { token });
    const reply = await sendRaw(session, ['rule@example.net'], message({ From: from, To: 'rule@example.net', Subject: `From ${from}` }));
    session.close();
    return reply;
  };

  it('lets a sending_access key send from its domain only', async () => {
    assert.match(await send(restricted, 'Ok <ok@sender.test>'), /^250 /);
    assert.match(await send(restricted, 'No <no@second.test>'), /^550 5\.7\.1 This API key is restricted to another domain/);
    assert.match(await send(t.apiKey, 'Yes <yes@second.test>'), /^250 /, 'a full_access key may use any verified domain');
  });

  it("refuses a From on another account's domain as not verified, revealing nothing", async () => {
    const theirs = await send(t.apiKey, 'Spoof <ceo@theirs.test>');
    const unknown = await send(t.apiKey, 'Nobody <x@unknown.test>');
    assert.match(theirs, /^550 5\.7\.1 The `theirs\.test` domain is not verified/);
    assert.equal(theirs.replace('theirs.test', 'X'), unknown.replace('unknown.test', 'X'));
    assert.equal((await smtpEmails(t)).filter((e) => /theirs|unknown/.test(e.from_address)).length, 0);
  });

  it('tells nodemailer the message was refused for good', async () => {
    await assert.rejects(transport(t).sendMail({ from: 'a@theirs.test', to: 'rule@example.net', subject: 'x', text: 'y' }), (err: any) => {
      assert.equal(err.responseCode, 550);
      assert.equal(err.code, 'EMESSAGE');
      return true;
    });
  });
});
