// OAuth grants through the official SDK (list, revoke) and Postline's POST /oauth/grants: a
// grant is a scoped credential given to a named app; its scope is enforced like a key's, and
// once revoked its token is refused at once, on the HTTP API and in SMTP submission.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Resend } from 'resend';
import { createAccount } from '../../src/accounts/accounts.js';
import { createVerifiedDomain } from '../support/domains.js';
import { eventually } from '../support/eventually.js';
import { rawRequest, type TestPostline } from '../support/postline.js';
import { FROM, message, openSession, sendRaw, startSmtpTest, transport } from '../smtp/support.js';

const REST_TIME = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+\+00$/;
const ISO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

interface Issued {
  id: string;
  client_id: string;
  token: string;
}

describe('OAuth grants: scoped, revocable credentials for third-party apps', () => {
  let t: TestPostline;
  const client = (token: string) => new Resend(token, { baseUrl: t.url });
  async function grant(body: object, auth?: string): Promise<Issued> {
    const res = await rawRequest(t, 'POST', '/oauth/grants', { body, ...(auth ? { auth } : {}) });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body;
  }

  before(async () => {
    t = await startSmtpTest();
  });
  after(() => t.stop());

  it("issues a grant whose token acts with its scope, listed in the SDK's shape", async () => {
    const issued = await grant({ client: { name: 'Zapier', logo_uri: 'https://zapier.example/logo.png' }, scopes: ['full_access'] });
    assert.equal(Object.keys(issued).sort().join(), 'client_id,id,object,token');
    assert.match(issued.token, /^re_[A-Za-z0-9]{8}_[A-Za-z0-9]{24}$/);
    assert.match(issued.client_id, /^[0-9a-f-]{36}$/);

    const app = client(issued.token);
    const domains = await app.domains.list();
    assert.equal(domains.error, null);
    assert.ok(domains.data!.data.some((d) => d.name === 'sender.test'));

    const { data, error } = await t.resend.oauthGrants.list();
    assert.equal(error, null);
    assert.equal(data!.object, 'list');
    assert.equal(data!.has_more, false);
    const listed = data!.data.find((g) => g.id === issued.id)!;
    assert.match(listed.created_at, REST_TIME);
    assert.deepEqual(listed, {
      id: issued.id,
      client_id: issued.client_id,
      scopes: ['full_access'],
      created_at: listed.created_at,
      revoked_at: null,
      revoked_reason: null,
      client: { name: 'Zapier', logo_uri: 'https://zapier.example/logo.png' },
      domain_id: null,
    });
    // The grant is no API key: keys list stays as it was.
    const keys = await t.resend.apiKeys.list();
    assert.ok(!keys.data!.data.some((k) => k.id === issued.id));
    // Its requests are logged under its id, as a key's under the key's.
    const logged = await eventually(
      async () => {
        const res = await rawRequest(t, 'GET', `/logs?api_key_id=${issued.id}`);
        return res.body.data?.length > 0 && res.body.data;
      },
      10_000,
      "the grant's request in the logs",
    );
    assert.deepEqual(
      logged.map((l: { method: string; endpoint: string }) => `${l.method} ${l.endpoint}`),
      ['GET /domains'],
    );
  });

  it('keeps an emails:send grant to sending, and to its one domain when given', async () => {
    const other = await createVerifiedDomain(t, 'other-grant.test');
    const sender = await grant({ client: { name: 'Mailer' }, client_id: 'mailer-app', scopes: ['emails:send'] });
    assert.equal(sender.client_id, 'mailer-app');
    const app = client(sender.token);
    const sent = await app.emails.send({ from: FROM, to: 'a@example.net', subject: 'From an app', text: 'hi' });
    assert.equal(sent.error, null);
    for (const { error } of [await app.domains.list(), await app.oauthGrants.list(), await app.apiKeys.list()]) {
      assert.equal(error?.statusCode, 401);
      assert.equal(error?.name, 'restricted_api_key');
    }
    const created = await rawRequest(t, 'POST', '/oauth/grants', { auth: sender.token, body: { client: { name: 'x' }, scopes: ['full_access'] } });
    assert.equal(created.status, 401, 'a sending-only grant cannot issue grants');

    const narrow = await grant({ client: { name: 'One domain' }, scopes: ['emails:send'], domain_id: other.id });
    const narrowApp = client(narrow.token);
    const own = await narrowApp.emails.send({ from: 'a@other-grant.test', to: 'b@example.net', subject: 'Own domain', text: 'hi' });
    assert.equal(own.error, null);
    const elsewhere = await narrowApp.emails.send({ from: FROM, to: 'b@example.net', subject: 'Other domain', text: 'hi' });
    assert.equal(elsewhere.error?.statusCode, 403);
    assert.match(elsewhere.error!.message, /restricted to another domain/);
    const listed = (await t.resend.oauthGrants.list()).data!.data.find((g) => g.id === narrow.id)!;
    assert.deepEqual([listed.scopes, (listed as unknown as { domain_id: string }).domain_id], [['emails:send'], other.id]);
  });

  it('revokes a grant: its token is refused at once, the list keeps it with when and why', async () => {
    const issued = await grant({ client: { name: 'Short-lived' }, scopes: ['full_access'] });
    const app = client(issued.token);
    assert.equal((await app.domains.list()).error, null, 'cached as valid before the revocation');

    const revoked = await t.resend.oauthGrants.revoke(issued.id);
    assert.equal(revoked.error, null);
    assert.equal(Object.keys(revoked.data!).sort().join(), 'id,object,revoked_at,revoked_reason');
    assert.equal(revoked.data!.object, 'oauth_grant');
    assert.equal(revoked.data!.id, issued.id);
    assert.equal(revoked.data!.revoked_reason, 'revoked_from_api');
    assert.match(revoked.data!.revoked_at, ISO_TIME);

    const refused = await app.domains.list();
    assert.equal(refused.error?.statusCode, 403);
    assert.equal(refused.error?.name, 'invalid_api_key');
    const raw = await rawRequest(t, 'GET', '/domains', { auth: issued.token });
    assert.deepEqual(raw.body, { statusCode: 403, message: 'API key is invalid.', name: 'invalid_api_key' });

    const listed = (await t.resend.oauthGrants.list()).data!.data.find((g) => g.id === issued.id)!;
    assert.equal(listed.revoked_reason, 'revoked_from_api');
    assert.equal(new Date(listed.revoked_at!.replace(' ', 'T').replace(/\+00$/, 'Z')).getTime(), new Date(revoked.data!.revoked_at).getTime());

    const again = await t.resend.oauthGrants.revoke(issued.id);
    assert.deepEqual(again.data, revoked.data, 'revoking twice answers the first revocation');
  });

  it('authenticates SMTP submission with a grant, and stops it at the next MAIL FROM once revoked', async () => {
    const issued = await grant({ client: { name: 'SMTP app' }, scopes: ['emails:send'] });
    const viaNodemailer = await transport(t, { pass: issued.token }).sendMail({ from: FROM, to: 's@example.net', subject: 'By SMTP', text: 'x' });
    assert.match(viaNodemailer.response, /^250 /);

    const open = await openSession(t, { token: issued.token });
    assert.match(await sendRaw(open, ['s@example.net'], message({ From: FROM, To: 's@example.net', Subject: 'Before' })), /^250 /);
    assert.equal((await t.resend.oauthGrants.revoke(issued.id)).error, null);
    assert.match(await open.command('MAIL FROM:<hello@sender.test>'), /^530 5\.7\.0 Authentication required: .*OAuth grant revoked/);
    open.close();
    const fresh = await openSession(t);
    assert.match(await fresh.login(issued.token), /^535 5\.7\.8 /);
    fresh.close();
  });

  it("never lists or revokes another account's grants", async () => {
    const mine = await grant({ client: { name: 'Mine' }, scopes: ['full_access'] });
    const stranger = await createAccount(t.postline.db, 'grant stranger');
    const theirs = await grant({ client: { name: 'Theirs' }, scopes: ['full_access'] }, stranger.token);
    const strangerClient = client(stranger.token);

    const list = await strangerClient.oauthGrants.list();
    assert.deepEqual(
      list.data!.data.map((g) => g.id),
      [theirs.id],
    );
    const revoke = await strangerClient.oauthGrants.revoke(mine.id);
    assert.deepEqual(revoke.error, { statusCode: 404, message: 'OAuth grant not found', name: 'not_found' });
    assert.equal((await client(mine.token).domains.list()).error, null, 'still works');
    const cursor = await rawRequest(t, 'GET', `/oauth/grants?after=${mine.id}`, { auth: stranger.token });
    assert.deepEqual(cursor.body.data, [], "another account's id as a cursor finds nothing");
    // A full-access grant acts for its own account only.
    const seenByGrant = await client(theirs.token).oauthGrants.list();
    assert.ok(!seenByGrant.data!.data.some((g) => g.id === mine.id));
  });

  it('pages the list newest first', async () => {
    const account = await createAccount(t.postline.db, 'grant pager');
    const ids: string[] = [];
    for (const name of ['one', 'two', 'three']) ids.push((await grant({ client: { name }, scopes: ['emails:send'] }, account.token)).id);
    const first = await client(account.token).oauthGrants.list({ limit: 2 });
    assert.deepEqual([first.data!.data.map((g) => g.id), first.data!.has_more], [[ids[2], ids[1]], true]);
    const second = await client(account.token).oauthGrants.list({ limit: 2, after: ids[1]! });
    assert.deepEqual([second.data!.data.map((g) => g.id), second.data!.has_more], [[ids[0]], false]);
  });

  it("refuses malformed requests with Resend's error body", async () => {
    const badId = await t.resend.oauthGrants.revoke('not-a-uuid');
    assert.deepEqual(badId.error, { statusCode: 422, message: 'The `oauth_grant_id` must be a valid UUID.', name: 'validation_error' });
    const unknownId = await t.resend.oauthGrants.revoke(crypto.randomUUID());
    assert.equal(unknownId.error?.statusCode, 404);
    const badLimit = await t.resend.oauthGrants.list({ limit: 0 });
    assert.equal(badLimit.error?.statusCode, 422);
    const badCursor = await rawRequest(t, 'GET', '/oauth/grants?after=nope');
    assert.equal(badCursor.status, 422);

    const cases: [object | string, number, string, RegExp?][] = [
      [{}, 422, 'missing_required_field', /`client`/],
      [{ client: { name: 'x' } }, 422, 'missing_required_field', /`scopes`/],
      [{ client: {}, scopes: ['full_access'] }, 422, 'missing_required_field', /`client.name`/],
      [{ client: 'Zapier', scopes: ['full_access'] }, 422, 'validation_error', /`client` field must be an object/],
      [{ client: { name: 42 }, scopes: ['full_access'] }, 422, 'validation_error'],
      [{ client: { name: '   ' }, scopes: ['full_access'] }, 422, 'validation_error', /blank/],
      [{ client: { name: 'a\r\nBcc: x' }, scopes: ['full_access'] }, 422, 'validation_error', /line breaks/],
      [{ client: { name: 'x'.repeat(101) }, scopes: ['full_access'] }, 422, 'validation_error'],
      [{ client: { name: 'x', logo_uri: 'javascript:alert(1)' }, scopes: ['full_access'] }, 422, 'validation_error', /http or https/],
      [{ client: { name: 'x', colour: 'red' }, scopes: ['full_access'] }, 422, 'validation_error', /`client.colour`/],
      [{ client: { name: 'x' }, scopes: [] }, 422, 'validation_error', /non-empty array/],
      [{ client: { name: 'x' }, scopes: 'full_access' }, 422, 'validation_error', /non-empty array/],
      [{ client: { name: 'x' }, scopes: ['admin'] }, 422, 'validation_error', /`scopes\[0\]` field must be one of "full_access" \| "emails:send", not "admin"/],
      [{ client: { name: 'x' }, scopes: ['full_access'], expires: 1 }, 422, 'validation_error', /Unknown field `expires`/],
      [{ client: { name: 'x' }, scopes: ['emails:send'], client_id: 7 }, 422, 'validation_error'],
      [
        { client: { name: 'x' }, scopes: ['emails:send'], client_id: 'a\r\nb' },
        422,
        'validation_error',
        /`client_id` field must be one line of text, without line breaks/,
      ],
      [{ client: { name: 'x' }, scopes: ['full_access'], domain_id: crypto.randomUUID() }, 422, 'validation_error', /`emails:send` scope alone/],
      [{ client: { name: 'x' }, scopes: ['emails:send'], domain_id: crypto.randomUUID() }, 404, 'not_found'],
      ['[1, 2]', 422, 'validation_error'],
    ];
    for (const [body, status, name, message] of cases) {
      const res = await rawRequest(t, 'POST', '/oauth/grants', { body });
      assert.equal(res.status, status, JSON.stringify(body));
      assert.equal(res.body.name, name, JSON.stringify(body));
      assert.equal(res.body.statusCode, status);
      if (message) assert.match(res.body.message, message, JSON.stringify(body));
    }
    const count = await t.sql('SELECT count(*)::int AS n FROM oauth_grants WHERE client_name = $1', ['x']);
    assert.equal(count[0].n, 0, 'nothing refused was stored');

    const anonymous = await rawRequest(t, 'GET', '/oauth/grants', { auth: null });
    assert.equal(anonymous.status, 401);
    assert.equal(anonymous.body.name, 'missing_api_key');
  });
});
