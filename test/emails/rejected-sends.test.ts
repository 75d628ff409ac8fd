// Every malformed send gets Resend's error body and status, and leaves nothing behind.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { Resend } from 'resend';
import { createAccount } from '../../src/accounts/accounts.js';
import { createVerifiedDomain } from '../support/domains.js';
import { rawRequest, startTestPostline, type TestPostline } from '../support/postline.js';

const OK = { from: 'hello@acme.test', to: 'ann@example.org', subject: 'Hi', html: '<p>Hi</p>' };

describe('rejected sends', () => {
  let t: TestPostline;
  let counts: () => Promise<number[]>;
  let before0: number[];
  before(async () => {
    t = await startTestPostline();
    await createVerifiedDomain(t, 'acme.test');
    counts = async () => {
      const [row] = await t.sql(
        "SELECT (SELECT count(*) FROM emails)::int AS e, (SELECT count(*) FROM deliveries)::int AS d, (SELECT count(*) FROM events WHERE type = 'email.sent')::int AS v",
      );
      return [row.e, row.d, row.v];
    };
  });
  beforeEach(async () => {
    before0 = await counts();
  });
  after(() => t.stop());

  async function rejects(body: unknown, status: number, name: string, message?: string | RegExp) {
    const res = await rawRequest(t, 'POST', '/emails', { body: body as object });
    assert.equal(res.status, status, JSON.stringify({ body, res: res.body }));
    assert.equal(res.body.name, name, JSON.stringify(res.body));
    assert.equal(res.body.statusCode, status);
    if (typeof message === 'string') assert.equal(res.body.message, message);
    else if (message) assert.match(res.body.message, message);
    assert.deepEqual(await counts(), before0, 'nothing was written');
  }

  it('names the first missing required field', async () => {
    await rejects({ to: OK.to, subject: 'x', html: 'x' }, 422, 'missing_required_field', 'Missing `from` field.');
    await rejects({ from: OK.from, subject: 'x', html: 'x' }, 422, 'missing_required_field', 'Missing `to` field.');
    await rejects({ from: OK.from, to: [], subject: 'x', html: 'x' }, 422, 'missing_required_field', 'Missing `to` field.');
    await rejects({ from: OK.from, to: OK.to, html: 'x' }, 422, 'missing_required_field', 'Missing `subject` field.');
    await rejects({ from: OK.from, to: OK.to, subject: 'x' }, 422, 'validation_error', 'Missing `html` or `text` field.');
    await rejects({ ...OK, html: '', text: '' }, 422, 'validation_error', 'Missing `html` or `text` field.');
    const empty = await rawRequest(t, 'POST', '/emails');
    assert.equal(empty.status, 422);
    assert.equal(empty.body.message, 'Missing `from` field.');
  });

  it('refuses unknown fields, unsupported fields and wrong types', async () => {
    await rejects({ ...OK, priority: 'high' }, 422, 'validation_error', 'Unknown field `priority`.');
    await rejects({ ...OK, replyTo: 'a@b.com' }, 422, 'validation_error', /Unknown field `replyTo`/);
    await rejects({ ...OK, scheduled_at: 'whenever' }, 422, 'validation_error', /`scheduled_at` field must be an ISO 8601 date/);
    await rejects(
      { ...OK, attachments: [{ filename: 'a.txt', content: 'aGk=', encoding: 'base64' }] },
      422,
      'validation_error',
      'Unknown field `attachments[0].encoding`.',
    );
    await rejects(
      { ...OK, template: { id: 'welcome' } },
      422,
      'validation_error',
      'The `html` field must be left out when a `template` is given, not "<p>Hi</p>".',
    );
    await rejects({ ...OK, from: 42 }, 422, 'validation_error', 'The `from` field must be a string.');
    await rejects({ ...OK, to: { address: 'a@b.com' } }, 422, 'validation_error', /`to` field must be a string or an array/);
    await rejects({ ...OK, to: ['a@b.com', 7] }, 422, 'validation_error', 'The `to[1]` field must be a string.');
    await rejects({ ...OK, subject: ['x'] }, 422, 'validation_error', 'The `subject` field must be a string.');
    await rejects({ ...OK, html: { x: 1 } }, 422, 'validation_error', 'The `html` field must be a string.');
    await rejects({ ...OK, text: 5 }, 422, 'validation_error', 'The `text` field must be a string.');
    await rejects({ ...OK, headers: ['X-A: 1'] }, 422, 'validation_error', /`headers` field must be an object/);
    await rejects({ ...OK, headers: { 'X-A': 1 } }, 422, 'validation_error', 'The `headers.X-A` field must be a string.');
    await rejects({ ...OK, tags: { category: 'x' } }, 422, 'validation_error', /`tags` field must be an array/);
    await rejects({ ...OK, tags: [{ name: 'a', value: 'b', extra: 1 }] }, 422, 'validation_error', /Unknown field `tags\[0\]\.extra`/);
    await rejects({ ...OK, tags: [{ name: 'a' }] }, 422, 'missing_required_field');
    await rejects({ ...OK, tags: [{ name: 'has space', value: 'b' }] }, 422, 'validation_error', /Tags should only contain/);
    await rejects({ ...OK, tags: [{ name: 'a', value: 'x'.repeat(257) }] }, 422, 'validation_error', /Tags should only contain/);
    const array = await rawRequest(t, 'POST', '/emails', { body: '[]' });
    assert.equal(array.status, 422);
    const invalidJson = await rawRequest(t, 'POST', '/emails', { body: '{"from": "a@b.c",' });
    assert.equal(invalidJson.status, 400);
    assert.equal(invalidJson.body.name, 'validation_error');
  });

  it('refuses an email over 40 MB and a body over the request limit', async () => {
    await rejects({ ...OK, html: 'x'.repeat(41 * 1024 * 1024) }, 422, 'validation_error', /larger than the maximum of 40 MB/);
    const huge = await rawRequest(t, 'POST', '/emails', { body: { ...OK, html: 'x'.repeat(61 * 1024 * 1024) } });
    assert.equal(huge.status, 413);
    assert.equal(huge.body.name, 'validation_error');
    assert.deepEqual(await counts(), before0);
  });

  it('accepts 50 recipients in to and refuses 51', async () => {
    const fifty = Array.from({ length: 50 }, (_, i) => `r${i}@example.org`);
    const ok = await t.resend.emails.send({ ...OK, to: fifty });
    assert.equal(ok.error, null);
    before0 = await counts();
    await rejects({ ...OK, to: [...fifty, 'one-more@example.org'] }, 422, 'validation_error', /at most 50/);
  });

  it('refuses malformed addresses and Name <addr> forms in every address field', async () => {
    const bad = [
      'not-an-address',
      'a@b',
      '@example.org',
      'a@@example.org',
      'a b@example.org',
      'Name a@example.org',
      'Name <a@example.org',
      'Name <a@example.org> trailing',
      'One <a@example.org> <b@example.org>',
      'a@example.org, b@example.org',
      'Group: a@example.org;',
      'a@-example.org',
      'ünï@example.org',
      '',
    ];
    for (const address of bad) {
      await rejects({ ...OK, to: address }, 422, 'validation_error', /Invalid `to` field/);
      await rejects({ ...OK, cc: [address] }, 422, 'validation_error', /Invalid `cc` field/);
      await rejects({ ...OK, bcc: address }, 422, 'validation_error', /Invalid `bcc` field/);
      await rejects({ ...OK, reply_to: address }, 422, 'validation_error', /Invalid `reply_to` field/);
    }
    for (const from of bad.filter(Boolean)) {
      await rejects(
        { ...OK, from },
        422,
        'validation_error',
        'Invalid `from` field. The email address needs to follow the `email@example.com` or `Name <email@example.com>` format.',
      );
    }
  });

  it('accepts the valid address forms', async () => {
    for (const from of ['hello@acme.test', 'Acme <hello@acme.test>', '"Acme, Inc." <hello@acme.test>', '<hello@acme.test>', '  hello@ACME.test ']) {
      const sent = await t.resend.emails.send({ ...OK, from, to: ['first.last+tag@example.org', 'Ann <ann@sub.example.org>'] });
      assert.equal(sent.error, null, `${from}: ${JSON.stringify(sent.error)}`);
    }
  });

  it('refuses CR/LF in subject, from, addresses and custom headers and never injects them', async () => {
    await rejects({ ...OK, subject: 'Hi\r\nBcc: victim@example.org' }, 422, 'validation_error', /`subject` field must not contain line breaks/);
    await rejects({ ...OK, subject: 'Hi\nX-Evil: 1' }, 422, 'validation_error');
    await rejects({ ...OK, from: 'Acme\r\nBcc: victim@example.org <hello@acme.test>' }, 422, 'validation_error', /`from` field must not contain line breaks/);
    await rejects({ ...OK, to: 'ann@example.org\r\nBcc: victim@example.org' }, 422, 'validation_error');
    await rejects({ ...OK, headers: { 'X-Note': 'one\r\nBcc: victim@example.org' } }, 422, 'validation_error', /`headers.X-Note`.*line breaks/);
    const badName = /^The `headers` field must have header field names of printable ASCII without spaces or colons, not "/;
    await rejects({ ...OK, headers: { 'X-Note\r\nBcc': 'victim@example.org' } }, 422, 'validation_error', badName);
    await rejects({ ...OK, headers: { 'X Note': 'x' } }, 422, 'validation_error', badName);
    await rejects({ ...OK, headers: { 'X:Note': 'x' } }, 422, 'validation_error', badName);
    const emails = await t.sql("SELECT count(*)::int AS n FROM emails WHERE convert_from(mime, 'UTF8') LIKE '%victim@%'");
    assert.equal(emails[0].n, 0);
  });

  it('refuses headers that Postline sets itself', async () => {
    for (const name of ['From', 'to', 'Subject', 'Message-ID', 'DKIM-Signature', 'Content-Type', 'MIME-Version', 'Date', 'Bcc', 'Reply-To']) {
      await rejects({ ...OK, headers: { [name]: 'x' } }, 422, 'validation_error', new RegExp(`\`${name}\` header cannot be set`));
    }
    const allowed = await t.resend.emails.send({ ...OK, headers: { 'List-Unsubscribe': '<https://acme.test/u>', 'X-Entity-Ref-ID': '1' } });
    assert.equal(allowed.error, null);
  });

  it('refuses a from on an unverified domain, on another account’s domain, or outside a restricted key', async () => {
    const message = 'The `unknown.test` domain is not verified. Please, add and verify your domain.';
    await rejects({ ...OK, from: 'a@unknown.test' }, 403, 'validation_error', message);

    const pending = await t.resend.domains.create({ name: 'pending.test' });
    assert.equal(pending.error, null);
    await rejects({ ...OK, from: 'a@pending.test' }, 403, 'validation_error', /`pending.test` domain is not verified/);

    // A subdomain is a domain of its own.
    await rejects({ ...OK, from: 'a@mail.acme.test' }, 403, 'validation_error', /`mail.acme.test` domain is not verified/);

    const stranger = await createAccount(t.postline.db, 'stranger');
    const strangerClient = new Resend(stranger.token, { baseUrl: t.url });
    const foreign = await strangerClient.emails.send(OK);
    assert.equal(foreign.error?.statusCode, 403);
    assert.equal(foreign.error?.name, 'validation_error');
    assert.equal(foreign.error?.message, 'The `acme.test` domain is not verified. Please, add and verify your domain.');

    const other = await createVerifiedDomain(t, 'other.test');
    const restricted = await t.resend.apiKeys.create({ name: 'other only', permission: 'sending_access', domain_id: other.id });
    const restrictedClient = new Resend(restricted.data!.token, { baseUrl: t.url });
    const outside = await restrictedClient.emails.send(OK);
    assert.equal(outside.error?.statusCode, 403);
    assert.equal(outside.error?.name, 'validation_error');
    const inside = await restrictedClient.emails.send({ ...OK, from: 'hi@other.test' });
    assert.equal(inside.error, null);
    assert.deepEqual(await counts(), [before0[0]! + 1, before0[1]! + 1, before0[2]! + 1]);
  });
});
