import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createAccount } from '../../src/accounts/accounts.js';
import { rawRequest, startTestPostline, type TestPostline } from '../support/postline.js';

describe('webhooks: bad requests get Resend errors and change nothing', () => {
  let t: TestPostline;
  before(async () => {
    t = await startTestPostline();
  });
  after(() => t.stop());

  const count = async () => (await t.sql('SELECT count(*)::int AS n FROM webhooks'))[0].n as number;

  const refused = async (method: string, path: string, body: unknown, status: number, name: string, message?: RegExp) => {
    const before = await count();
    const res = await rawRequest(t, method, path, { body: body as object });
    assert.equal(res.status, status, JSON.stringify(res.body));
    assert.equal(res.body.name, name, JSON.stringify(res.body));
    assert.equal(res.body.statusCode, status);
    if (message) assert.match(res.body.message, message);
    assert.equal(await count(), before);
    return res.body;
  };

  it('refuses an endpoint that is not an http(s) URL', async () => {
    for (const endpoint of [
      'ftp://files.example.com/hook',
      'not a url',
      'example.com/hook',
      'javascript:alert(1)',
      'http://',
      'https://ex ample.com/',
      'http://a.test/\r\nX: y',
      42,
      '',
    ]) {
      await refused('POST', '/webhooks', { endpoint, events: ['email.sent'] }, 422, 'validation_error', /endpoint.*http/);
    }
  });

  it('refuses missing fields, empty or unknown events and unknown fields', async () => {
    await refused('POST', '/webhooks', { events: ['email.sent'] }, 422, 'missing_required_field', /endpoint/);
    await refused('POST', '/webhooks', { endpoint: 'https://h.example.com' }, 422, 'missing_required_field', /events/);
    await refused('POST', '/webhooks', { endpoint: 'https://h.example.com', events: [] }, 422, 'validation_error', /`events` field must have at least 1 item/);
    await refused('POST', '/webhooks', { endpoint: 'https://h.example.com', events: 'email.sent' }, 422, 'validation_error', /array/);
    await refused(
      'POST',
      '/webhooks',
      { endpoint: 'https://h.example.com', events: ['email.sent', 'email.teleported'] },
      422,
      'validation_error',
      /email\.teleported/,
    );
    await refused(
      'POST',
      '/webhooks',
      { endpoint: 'https://h.example.com', events: [7] },
      422,
      'validation_error',
      /`events\[0\]` field must be a known event type \(GET \/webhooks\/event-types\), not 7\./,
    );
    await refused('POST', '/webhooks', { endpoint: 'https://h.example.com', events: ['email.sent'], secret: 'x' }, 422, 'validation_error', /secret/);
    await refused('POST', '/webhooks', { endpoint: 'https://h.example.com', events: ['email.sent'], status: 'enabled' }, 422, 'validation_error', /status/);
  });

  it('refuses bad updates and leaves the endpoint as it was', async () => {
    const { data } = await t.resend.webhooks.create({ endpoint: 'https://h.example.com/keep', events: ['email.sent'] });
    const id = data!.id;
    await refused('PATCH', `/webhooks/${id}`, { endpoint: 'mailto:a@b.c' }, 422, 'validation_error');
    await refused('PATCH', `/webhooks/${id}`, { events: [] }, 422, 'validation_error');
    await refused('PATCH', `/webhooks/${id}`, { events: ['nope'] }, 422, 'validation_error');
    await refused('PATCH', `/webhooks/${id}`, { status: 'paused' }, 422, 'validation_error', /enabled/);
    await refused('PATCH', `/webhooks/${id}`, { signing_secret: 'whsec_x' }, 422, 'validation_error');
    const kept = (await t.resend.webhooks.get(id)).data!;
    assert.equal(kept.endpoint, 'https://h.example.com/keep');
    assert.deepEqual(kept.events, ['email.sent']);
    assert.equal(kept.status, 'enabled');
  });

  it("treats another account's webhook as not found, everywhere", async () => {
    const { data } = await t.resend.webhooks.create({ endpoint: 'https://h.example.com/mine', events: ['email.sent'] });
    const id = data!.id;
    const other = await createAccount(t.postline.db, 'Other');
    const as = { auth: other.token };
    const paths: [string, string, object?][] = [
      ['GET', `/webhooks/${id}`],
      ['PATCH', `/webhooks/${id}`, { status: 'disabled' }],
      ['DELETE', `/webhooks/${id}`],
      ['POST', `/webhooks/${id}/signing-secret/rotate`],
      ['GET', `/webhooks/${id}/events`],
      ['GET', `/webhooks/${id}/events/msg_abc`],
      ['GET', `/webhooks/${id}/events/msg_abc/attempts`],
      ['POST', `/webhooks/${id}/events/msg_abc/replay`],
    ];
    for (const [method, path, body] of paths) {
      const res = await rawRequest(t, method, path, { ...as, body });
      assert.equal(res.status, 404, `${method} ${path}`);
      assert.deepEqual(res.body, { statusCode: 404, message: 'Webhook not found', name: 'not_found' });
    }
    const list = await rawRequest(t, 'GET', '/webhooks', as);
    assert.deepEqual(list.body.data, []);
    const mine = (await t.resend.webhooks.get(id)).data!;
    assert.equal(mine.status, 'enabled');
    assert.equal(mine.signing_secret, data!.signing_secret);
  });

  it('answers 422 for ids that are not ids, and 404 for unknown ones and unknown messages', async () => {
    assert.deepEqual((await rawRequest(t, 'GET', '/webhooks/nope')).body, {
      statusCode: 422,
      message: 'The `id` must be a valid UUID.',
      name: 'validation_error',
    });
    assert.equal((await rawRequest(t, 'GET', '/webhooks/00000000-0000-4000-8000-000000000000')).status, 404);
    const { data } = await t.resend.webhooks.create({ endpoint: 'https://h.example.com/m', events: ['email.sent'] });
    const unknown = await rawRequest(t, 'GET', `/webhooks/${data!.id}/events/msg_doesnotexist`);
    assert.deepEqual(unknown.body, { statusCode: 404, message: 'Webhook event not found', name: 'not_found' });
    for (const message of ['nope', '1']) {
      const res = await rawRequest(t, 'GET', `/webhooks/${data!.id}/events/${message}`);
      assert.equal(res.status, 422);
      assert.equal(res.body.name, 'invalid_parameter');
    }
    const bad = await rawRequest(t, 'GET', `/webhooks/${data!.id}/events?after=123`);
    assert.equal(bad.status, 422);
    assert.equal(bad.body.name, 'invalid_parameter');
  });
});
