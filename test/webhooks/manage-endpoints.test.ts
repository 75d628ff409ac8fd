import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { EMAIL_EVENTS, OTHER_EVENTS } from '../../src/events/catalogue.js';
import { rawRequest, startTestPostline, type TestPostline } from '../support/postline.js';

describe('webhooks: managing endpoints through the SDK', () => {
  let t: TestPostline;
  before(async () => {
    t = await startTestPostline();
  });
  after(() => t.stop());

  it('creates an endpoint: 201 with a whsec_ secret that standardwebhooks accepts', async () => {
    const res = await rawRequest(t, 'POST', '/webhooks', { body: { endpoint: 'https://hooks.example.com/resend', events: ['email.sent'] } });
    assert.equal(res.status, 201);
    assert.deepEqual(Object.keys(res.body).sort(), ['id', 'object', 'signing_secret']);
    assert.equal(res.body.object, 'webhook');
    assert.match(res.body.signing_secret, /^whsec_[A-Za-z0-9+/]{32}$/);
    assert.equal(Buffer.from(res.body.signing_secret.slice(6), 'base64').length, 24);
    assert.doesNotThrow(() => new Webhook(res.body.signing_secret));
  });

  it('gets, lists, updates and removes in Resend shapes', async () => {
    const created = await t.resend.webhooks.create({ endpoint: 'http://receiver.example.org/a', events: ['email.delivered', 'email.bounced'] });
    assert.equal(created.error, null);
    const id = created.data!.id;

    const got = await t.resend.webhooks.get(id);
    assert.equal(got.error, null);
    assert.deepEqual(Object.keys(got.data!).sort(), ['created_at', 'endpoint', 'events', 'id', 'object', 'signing_secret', 'status']);
    assert.equal(got.data!.object, 'webhook');
    assert.equal(got.data!.endpoint, 'http://receiver.example.org/a');
    assert.deepEqual(got.data!.events, ['email.delivered', 'email.bounced']);
    assert.equal(got.data!.status, 'enabled');
    assert.equal(got.data!.signing_secret, created.data!.signing_secret);
    assert.match(got.data!.created_at, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+\+00$/);

    const updated = await t.resend.webhooks.update(id, { endpoint: 'https://receiver.example.org/b', events: ['email.opened'], status: 'disabled' });
    assert.deepEqual(updated.data, { object: 'webhook', id });
    const after = (await t.resend.webhooks.get(id)).data!;
    assert.equal(after.endpoint, 'https://receiver.example.org/b');
    assert.deepEqual(after.events, ['email.opened']);
    assert.equal(after.status, 'disabled');

    const partial = await t.resend.webhooks.update(id, { status: 'enabled' });
    assert.equal(partial.error, null);
    const enabled = (await t.resend.webhooks.get(id)).data!;
    assert.equal(enabled.status, 'enabled');
    assert.deepEqual(enabled.events, ['email.opened'], 'fields left out are kept');

    const listed = await t.resend.webhooks.list();
    assert.equal(listed.error, null);
    assert.equal(listed.data!.object, 'list');
    const item = listed.data!.data.find((w) => w.id === id)!;
    assert.deepEqual(Object.keys(item).sort(), ['created_at', 'endpoint', 'events', 'id', 'status'], 'no secret in lists');

    const removed = await t.resend.webhooks.remove(id);
    assert.deepEqual(removed.data, { object: 'webhook', id, deleted: true });
    const gone = await t.resend.webhooks.get(id);
    assert.equal(gone.error?.statusCode, 404);
    assert.equal(gone.error?.name, 'not_found');
  });

  it('lists newest first in pages', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      ids.push((await t.resend.webhooks.create({ endpoint: `https://h.example.com/${i}`, events: ['email.sent'] })).data!.id);
    }
    const first = await t.resend.webhooks.list({ limit: 2 });
    assert.deepEqual(
      first.data!.data.map((w) => w.id),
      [ids[2], ids[1]],
    );
    assert.equal(first.data!.has_more, true);
    const next = await t.resend.webhooks.list({ limit: 2, after: ids[1] });
    assert.equal(next.data!.data[0]!.id, ids[0]);
  });

  it('rotates the signing secret', async () => {
    const created = (await t.resend.webhooks.create({ endpoint: 'https://h.example.com/rotate', events: ['email.sent'] })).data!;
    const rotated = await t.resend.webhooks.rotateSigningSecret(created.id);
    assert.equal(rotated.error, null);
    assert.equal(rotated.data!.object, 'webhook');
    assert.equal(rotated.data!.id, created.id);
    assert.match(rotated.data!.signing_secret, /^whsec_/);
    assert.notEqual(rotated.data!.signing_secret, created.signing_secret);
    assert.equal((await t.resend.webhooks.get(created.id)).data!.signing_secret, rotated.data!.signing_secret);
  });

  it('subscribes to every event type of the catalogue, each once', async () => {
    const events = [
      'email.sent',
      'email.scheduled',
      'email.delivered',
      'email.delivery_delayed',
      'email.complained',
      'email.bounced',
      'email.opened',
      'email.clicked',
      'email.received',
      'email.failed',
      'email.suppressed',
      'email.canceled',
      'contact.created',
      'contact.updated',
      'contact.deleted',
      'domain.created',
      'domain.updated',
      'domain.deleted',
      // Postline's additions (not in the SDK's WebhookEvent type).
      'domain.blocklisted',
      'domain.unblocklisted',
      'domain.dmarc_report_received',
      'contact.topics.updated',
      'suppression.added',
      'suppression.removed',
      'topic.created',
      'topic.updated',
      'topic.deleted',
      'inbox.created',
      'inbox.updated',
      'inbox.deleted',
      'inbox.thread.created',
      'inbox.thread.folder.updated',
      'inbox.thread.assigned',
      'inbox.thread.unassigned',
      'inbox.thread.labels.updated',
      'inbox.email.received',
      'inbox.email.sent',
      'inbox.draft.created',
      'inbox.draft.updated',
      'inbox.draft.sent',
      'inbox.draft.deleted',
    ] as const;
    assert.deepEqual([...events].sort(), [...Object.keys(EMAIL_EVENTS), ...Object.keys(OTHER_EVENTS)].sort(), 'the whole catalogue');
    // email.canceled is missing from the SDK's WebhookEvent type (resend 6.38), not from Resend's API.
    const created = await t.resend.webhooks.create({ endpoint: 'https://h.example.com/all', events: [...events, 'email.sent'] as any });
    assert.equal(created.error, null, JSON.stringify(created.error));
    assert.deepEqual((await t.resend.webhooks.get(created.data!.id)).data!.events, events);
  });
});
