// GET /webhooks/event-types: every type of the event catalogue, with its description, in the
// catalogue's order; each one accepted by POST /webhooks, and the same list /openapi.json
// gives as the `events` enum (the dashboard's event picker reads this route).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { EMAIL_EVENTS, OTHER_EVENTS } from '../../src/events/catalogue.js';
import { rawRequest, startTestPostline, type TestPostline } from '../support/postline.js';

describe('webhooks: the event types one may subscribe to', () => {
  let t: TestPostline;
  before(async () => {
    t = await startTestPostline({ roles: ['api'] });
  });
  after(() => t.stop());

  it('lists the whole catalogue with descriptions', async () => {
    const res = await rawRequest(t, 'GET', '/webhooks/event-types');
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.object, 'list');
    assert.equal(res.body.has_more, false);
    assert.deepEqual(
      res.body.data.map((e: any) => e.type),
      [...Object.keys(EMAIL_EVENTS), ...Object.keys(OTHER_EVENTS)],
    );
    assert.deepEqual(
      res.body.data.find((e: any) => e.type === 'email.bounced'),
      {
        type: 'email.bounced',
        description: EMAIL_EVENTS['email.bounced'].description,
      },
    );
    assert.deepEqual(
      res.body.data.find((e: any) => e.type === 'contact.deleted'),
      { type: 'contact.deleted', description: 'A contact was removed' },
    );
  });

  it('is what POST /webhooks accepts and what /openapi.json enumerates', async () => {
    const types = (await rawRequest(t, 'GET', '/webhooks/event-types')).body.data.map((e: any) => e.type);
    const created = await rawRequest(t, 'POST', '/webhooks', { body: { endpoint: 'https://hooks.example.com/all', events: types } });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.deepEqual((await t.resend.webhooks.get(created.body.id)).data!.events, types);
    const document = (await rawRequest(t, 'GET', '/openapi.json', { auth: null })).body;
    const schema = document.paths['/webhooks'].post.requestBody.content['application/json'].schema;
    assert.deepEqual(schema.properties.events.items.enum, types);
    assert.equal(document.paths['/webhooks/event-types'].get['x-postline-addition'], true);
  });

  it('is not taken for a webhook id, and needs a key', async () => {
    const get = await rawRequest(t, 'GET', '/webhooks/not-a-webhook');
    assert.deepEqual(get.body, { statusCode: 422, message: 'The `id` must be a valid UUID.', name: 'validation_error' });
    // The path is this list's, read-only: not a webhook id one could delete.
    const remove = await rawRequest(t, 'DELETE', '/webhooks/event-types');
    assert.equal(remove.status, 405);
    assert.equal(remove.body.name, 'method_not_allowed');
    assert.equal((await rawRequest(t, 'GET', '/webhooks/event-types', { auth: null })).status, 401);
  });
});
