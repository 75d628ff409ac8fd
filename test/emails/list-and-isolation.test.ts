import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Resend } from 'resend';
import { createAccount } from '../../src/accounts/accounts.js';
import { createVerifiedDomain } from '../support/domains.js';
import { rawRequest, startTestPostline, type TestPostline } from '../support/postline.js';

describe('listing emails and keeping accounts apart', () => {
  let t: TestPostline;
  const ids: string[] = []; // in sending order
  before(async () => {
    t = await startTestPostline();
    await createVerifiedDomain(t, 'acme.test');
    for (let i = 0; i < 5; i++) {
      const sent = await t.resend.emails.send({
        from: 'hello@acme.test',
        to: `u${i}@example.org`,
        cc: i === 0 ? 'cc@example.org' : undefined,
        subject: `Email ${i}`,
        html: `<p>${i}</p>`,
        tags: [{ name: 'i', value: String(i) }],
      });
      ids.push(sent.data!.id);
    }
  });
  after(() => t.stop());

  it('lists newest first, without html, text, tags or object, in pages', async () => {
    const first = await t.resend.emails.list({ limit: 2 });
    assert.equal(first.error, null);
    assert.equal(first.data!.object, 'list');
    assert.equal(first.data!.has_more, true);
    assert.deepEqual(
      first.data!.data.map((e) => e.id),
      [ids[4], ids[3]],
    );
    const item = first.data!.data[0]! as Record<string, unknown>;
    for (const hidden of ['html', 'text', 'tags', 'object']) assert.ok(!(hidden in item), hidden);
    assert.deepEqual(Object.keys(item).sort(), [
      'bcc',
      'cc',
      'created_at',
      'from',
      'id',
      'last_event',
      'message_id',
      'reply_to',
      'scheduled_at',
      'subject',
      'to',
      'topic_id',
    ]);
    assert.equal(item.subject, 'Email 4');
    assert.deepEqual(item.to, ['u4@example.org']);

    const second = await t.resend.emails.list({ limit: 2, after: ids[3] });
    assert.deepEqual(
      second.data!.data.map((e) => e.id),
      [ids[2], ids[1]],
    );
    assert.equal(second.data!.has_more, true);
    const last = await t.resend.emails.list({ limit: 2, after: ids[1] });
    assert.deepEqual(
      last.data!.data.map((e) => e.id),
      [ids[0]],
    );
    assert.equal(last.data!.has_more, false);
    assert.deepEqual(last.data!.data[0]!.cc, ['cc@example.org']);
    const back = await t.resend.emails.list({ limit: 2, before: ids[0] });
    assert.deepEqual(
      back.data!.data.map((e) => e.id),
      [ids[2], ids[1]],
    );

    const all = await t.resend.emails.list();
    assert.equal(all.data!.data.length, 5);
    const badLimit = await rawRequest(t, 'GET', '/emails?limit=101');
    assert.equal(badLimit.status, 422);
    assert.equal(badLimit.body.name, 'validation_error');
  });

  it("never shows another account's emails: 404 Email not found, absent from its list", async () => {
    const stranger = await createAccount(t.postline.db, 'stranger');
    const strangerClient = new Resend(stranger.token, { baseUrl: t.url });
    const got = await strangerClient.emails.get(ids[0]!);
    assert.equal(got.error?.statusCode, 404);
    assert.deepEqual(got.error, { statusCode: 404, message: 'Email not found', name: 'not_found' });
    const list = await strangerClient.emails.list();
    assert.deepEqual(list.data!.data, []);
    const cursor = await strangerClient.emails.list({ after: ids[2] });
    assert.deepEqual(cursor.data!.data, []);

    const notUuid = await rawRequest(t, 'GET', '/emails/not-a-uuid');
    assert.equal(notUuid.status, 422);
    assert.deepEqual(notUuid.body, { statusCode: 422, message: 'The `id` must be a valid UUID.', name: 'validation_error' });
    const unknown = await t.resend.emails.get('00000000-0000-4000-8000-000000000000');
    assert.equal(unknown.error?.statusCode, 404);
  });

  it('lets a sending_access key send but not read emails', async () => {
    const key = await t.resend.apiKeys.create({ name: 'sender', permission: 'sending_access' });
    const sender = new Resend(key.data!.token, { baseUrl: t.url });
    const sent = await sender.emails.send({ from: 'hello@acme.test', to: 'a@example.org', subject: 's', text: 't' });
    assert.equal(sent.error, null);
    const batch = await sender.batch.send([{ from: 'hello@acme.test', to: 'a@example.org', subject: 's', text: 't' }]);
    assert.equal(batch.error, null);
    const read = await sender.emails.get(sent.data!.id);
    assert.equal(read.error?.name, 'restricted_api_key');
    const list = await sender.emails.list();
    assert.equal(list.error?.name, 'restricted_api_key');
  });
});
