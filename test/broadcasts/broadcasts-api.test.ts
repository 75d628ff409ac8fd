// The /broadcasts API through the SDK: fields and their validation, the state rules of update,
// send, cancel and delete (interface-spec §3, §4.3), and another account's or an unknown id.
// Postline runs without the worker role here, so a broadcast sent "now" stays `sending`
// (due, not yet fanned out) for as long as the test needs it in that state.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Resend } from 'resend';
import { createAccount } from '../../src/accounts/accounts.js';
import { rawRequest, type TestPostline } from '../support/postline.js';
import { createSegment, FROM, startBroadcastTest } from './support.js';

describe('broadcasts API', () => {
  let t: TestPostline;
  let segmentId: string;
  let topicId: string;
  before(async () => {
    t = await startBroadcastTest({}, ['api']);
    segmentId = await createSegment(t);
    topicId = (await t.resend.topics.create({ name: 'News', defaultSubscription: 'opt_in' })).data!.id;
    await t.resend.contactProperties.create({ key: 'plan', type: 'string' });
  });
  after(() => t.stop());

  const base = () => ({ segmentId, from: FROM, subject: 'Hello', html: '<p>Hi {{{FIRST_NAME|there}}}</p>' });

  async function draft(extra: Record<string, unknown> = {}): Promise<string> {
    const { data, error } = await t.resend.broadcasts.create({ ...base(), ...extra } as any);
    assert.equal(error, null, JSON.stringify(error));
    return data!.id;
  }

  it('creates a draft (201) and returns every field; lists it newest first', async () => {
    const res = await rawRequest(t, 'POST', '/broadcasts', {
      body: {
        name: 'Weekly',
        segment_id: segmentId,
        from: FROM,
        subject: 'Hi',
        reply_to: 'reply@news.test',
        preview_text: 'Pre',
        html: '<p>x</p>',
        text: 'x',
        topic_id: topicId,
      },
    });
    assert.equal(res.status, 201);
    assert.deepEqual(Object.keys(res.body).sort(), ['id', 'object']);
    assert.equal(res.body.object, 'broadcast');
    const { data } = await t.resend.broadcasts.get(res.body.id);
    assert.deepEqual(
      { ...data!, created_at: 'x' },
      {
        object: 'broadcast',
        id: res.body.id,
        name: 'Weekly',
        audience_id: segmentId,
        segment_id: segmentId,
        from: FROM,
        subject: 'Hi',
        reply_to: ['reply@news.test'],
        preview_text: 'Pre',
        status: 'draft',
        created_at: 'x',
        scheduled_at: null,
        sent_at: null,
        html: '<p>x</p>',
        text: 'x',
        topic_id: topicId,
      },
    );
    assert.match(data!.created_at, /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{3}\+00$/);
    const second = await draft({ name: 'Newer' });
    const list = await t.resend.broadcasts.list();
    assert.equal(list.error, null);
    assert.equal(list.data!.object, 'list');
    assert.deepEqual(
      list.data!.data.slice(0, 2).map((b) => b.id),
      [second, res.body.id],
    );
    assert.deepEqual(Object.keys(list.data!.data[0]!).sort(), [
      'audience_id',
      'created_at',
      'id',
      'name',
      'scheduled_at',
      'segment_id',
      'sent_at',
      'status',
      'topic_id',
    ]);
    const page = await t.resend.broadcasts.list({ limit: 1 });
    assert.equal(page.data!.has_more, true);
    assert.equal(page.data!.data.length, 1);
  });

  it('accepts audience_id as the deprecated name of segment_id', async () => {
    const { data, error } = await t.resend.broadcasts.create({ audienceId: segmentId, from: FROM, subject: 'Old', text: 'x' } as any);
    assert.equal(error, null, JSON.stringify(error));
    assert.equal((await t.resend.broadcasts.get(data!.id)).data!.segment_id, segmentId);
  });

  it('refuses bad input with Resend errors and writes nothing', async () => {
    const count = async () => (await t.sql('SELECT count(*)::int AS n FROM broadcasts'))[0].n;
    const before = await count();
    const cases: [Record<string, unknown>, number, string, RegExp?][] = [
      [{ from: FROM, subject: 'x', html: 'x' }, 422, 'missing_required_field', /segment_id/],
      [{ segment_id: segmentId, subject: 'x', html: 'x' }, 422, 'missing_required_field', /from/],
      [{ segment_id: segmentId, from: FROM, html: 'x' }, 422, 'missing_required_field', /subject/],
      [{ segment_id: segmentId, from: 'not an address', subject: 'x' }, 422, 'validation_error', /from/],
      [{ segment_id: segmentId, from: FROM, subject: 'a\r\nBcc: x@evil.test' }, 422, 'validation_error', /line breaks/],
      [{ segment_id: segmentId, from: FROM, subject: 'x', color: 'red' }, 422, 'validation_error', /Unknown field `color`/],
      [{ segment_id: segmentId, from: FROM, subject: 'x', scheduled_at: 'in 1 hour' }, 422, 'validation_error', /send: true/],
      [{ segment_id: crypto.randomUUID(), from: FROM, subject: 'x' }, 404, 'not_found', /Segment/],
      [{ segment_id: segmentId, from: FROM, subject: 'x', topic_id: crypto.randomUUID() }, 404, 'not_found', /Topic/],
      [{ segment_id: segmentId, audience_id: crypto.randomUUID(), from: FROM, subject: 'x' }, 422, 'validation_error', /different segments/],
      [{ segment_id: segmentId, from: FROM, subject: 'x', html: 'x', send: true, scheduled_at: 'whenever' }, 422, 'validation_error', /scheduled_at/],
    ];
    for (const [body, status, name, message] of cases) {
      const res = await rawRequest(t, 'POST', '/broadcasts', { body });
      assert.equal(res.status, status, JSON.stringify(body));
      assert.equal(res.body.name, name, JSON.stringify(res.body));
      if (message) assert.match(res.body.message, message);
    }
    assert.equal(await count(), before);
  });

  it('refuses unknown merge tags when the broadcast is sent, not in a draft', async () => {
    const id = await draft({ html: '<p>{{{FIRST_NAME}}} {{{plan}}} {{{COUPON}}} {{{coupon_code|none}}}</p>' });
    const sent = await t.resend.broadcasts.send(id);
    assert.equal(sent.error?.statusCode, 422);
    assert.equal(sent.error?.name, 'validation_error');
    assert.match(sent.error!.message, /Unknown merge tags `\{\{\{COUPON\}\}\}`, `\{\{\{coupon_code\}\}\}`/);
    assert.equal((await t.resend.broadcasts.get(id)).data!.status, 'draft');
    // Created to be sent at once: refused, and nothing is left behind.
    const count = (await t.sql('SELECT count(*)::int AS n FROM broadcasts'))[0].n;
    const created = await t.resend.broadcasts.create({ ...base(), subject: 'Hi {{{NICKNAME}}}', send: true });
    assert.equal(created.error?.statusCode, 422);
    assert.match(created.error!.message, /NICKNAME/);
    assert.equal((await t.sql('SELECT count(*)::int AS n FROM broadcasts'))[0].n, count);
  });

  it('lists the merge tags sending accepts: contact fields, the unsubscribe link, the contact properties', async () => {
    const res = await rawRequest(t, 'GET', '/broadcasts/merge-tags');
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, {
      object: 'list',
      has_more: false,
      data: [
        { key: 'FIRST_NAME', source: 'contact_field' },
        { key: 'LAST_NAME', source: 'contact_field' },
        { key: 'EMAIL', source: 'contact_field' },
        { key: 'RESEND_UNSUBSCRIBE_URL', source: 'unsubscribe_link' },
        { key: 'UNSUBSCRIBE_URL', source: 'unsubscribe_link' },
        { key: 'plan', source: 'contact_property' },
      ],
    });
    // Every tag listed is one a broadcast may be sent with.
    const id = await draft({ html: `<p>${res.body.data.map((tag: { key: string }) => `{{{${tag.key}}}}`).join(' ')}</p>` });
    assert.equal((await t.resend.broadcasts.send(id)).error, null);
  });

  it('refuses to send from a domain that is not verified (403) and without content (422)', async () => {
    const unverified = await draft({ from: 'hello@elsewhere.test' });
    const res = await t.resend.broadcasts.send(unverified);
    assert.equal(res.error?.statusCode, 403);
    assert.match(res.error!.message, /elsewhere\.test/);
    const empty = await draft({ html: undefined });
    const noContent = await t.resend.broadcasts.send(empty);
    assert.equal(noContent.error?.statusCode, 422);
    assert.match(noContent.error!.message, /html.*text/);
  });

  it('updates a draft: given fields change, null clears, the topic can be removed', async () => {
    const id = await draft({ name: 'Before', topicId, previewText: 'pre' });
    const updated = await t.resend.broadcasts.update(id, { name: 'After', subject: 'New subject', topicId: null, replyTo: ['a@news.test'] });
    assert.equal(updated.error, null, JSON.stringify(updated.error));
    assert.deepEqual(updated.data, { object: 'broadcast', id } as any);
    const { data } = await t.resend.broadcasts.get(id);
    assert.equal(data!.name, 'After');
    assert.equal(data!.subject, 'New subject');
    assert.equal(data!.topic_id, null);
    assert.equal(data!.preview_text, 'pre');
    assert.deepEqual(data!.reply_to, ['a@news.test']);
    const bad = await rawRequest(t, 'PATCH', `/broadcasts/${id}`, { body: { from: null } });
    assert.equal(bad.status, 422);
    assert.deepEqual(bad.body, { statusCode: 422, name: 'validation_error', message: 'The `from` field must keep a value (it cannot be cleared), not null.' });
    const unknown = await rawRequest(t, 'PATCH', `/broadcasts/${id}`, { body: { send: true } });
    assert.equal(unknown.status, 422);
    assert.deepEqual(unknown.body, { statusCode: 422, name: 'validation_error', message: 'Unknown field `send`.' });
  });

  it('schedules with ISO or natural language, reschedules, cancels; a canceled one that sent nothing can be deleted', async () => {
    const id = await draft();
    const sent = await t.resend.broadcasts.send(id, { scheduledAt: 'in 1 hour' });
    assert.equal(sent.error, null, JSON.stringify(sent.error));
    assert.deepEqual(sent.data, { id });
    let { data } = await t.resend.broadcasts.get(id);
    assert.equal(data!.status, 'queued', 'a scheduled broadcast is queued, in Resend words');
    assert.ok(Math.abs(Date.parse(data!.scheduled_at!.replace(' ', 'T').replace('+00', 'Z')) - (Date.now() + 3600_000)) < 60_000);
    const iso = new Date(Date.now() + 7200_000).toISOString();
    assert.equal((await t.resend.broadcasts.send(id, { scheduledAt: iso })).error, null);
    ({ data } = await t.resend.broadcasts.get(id));
    assert.equal(Date.parse(data!.scheduled_at!.replace(' ', 'T').replace('+00', 'Z')), Date.parse(iso));
    assert.equal((await t.resend.broadcasts.update(id, { subject: 'Still scheduled' })).error, null);
    const past = await t.resend.broadcasts.send(id, { scheduledAt: '2020-01-01T00:00:00Z' });
    assert.equal(past.error?.statusCode, 422);

    const canceled = await t.resend.broadcasts.cancel(id);
    assert.equal(canceled.error, null);
    assert.deepEqual(canceled.data, { object: 'broadcast', id });
    assert.equal((await t.resend.broadcasts.get(id)).data!.status, 'canceled');
    assert.equal((await t.resend.broadcasts.cancel(id)).error, null, 'canceling again changes nothing');
    assert.equal((await t.resend.broadcasts.send(id)).error?.statusCode, 403);
    const removed = await t.resend.broadcasts.remove(id);
    assert.deepEqual(removed.data, { object: 'broadcast', id, deleted: true });
  });

  it('deletes a draft and a scheduled broadcast; one being sent is refused with 403 naming `sending`', async () => {
    const drafted = await draft();
    assert.deepEqual((await t.resend.broadcasts.remove(drafted)).data, { object: 'broadcast', id: drafted, deleted: true });
    assert.equal((await t.resend.broadcasts.get(drafted)).error?.statusCode, 404);

    const scheduled = await draft();
    await t.resend.broadcasts.send(scheduled, { scheduledAt: 'in 10 minutes' });
    assert.deepEqual((await t.resend.broadcasts.remove(scheduled)).data, { object: 'broadcast', id: scheduled, deleted: true });

    const sending = await draft();
    assert.equal((await t.resend.broadcasts.send(sending)).error, null);
    assert.equal((await t.resend.broadcasts.get(sending)).data!.status, 'queued');
    const refused = await t.resend.broadcasts.remove(sending);
    assert.equal(refused.error?.statusCode, 403);
    assert.equal(refused.error?.name, 'validation_error');
    assert.match(refused.error!.message, /`sending`/);
    assert.equal((await t.resend.broadcasts.update(sending, { subject: 'x' })).error?.statusCode, 403);
    assert.equal((await t.resend.broadcasts.get(sending)).data!.status, 'queued');
    // Resend's "queued": it can still be canceled, which stops the fan-out.
    assert.equal((await t.resend.broadcasts.cancel(sending)).error, null);
    const draftCancel = await t.resend.broadcasts.cancel(await draft());
    assert.equal(draftCancel.error?.statusCode, 403);
    assert.match(draftCancel.error!.message, /`draft`/);
  });

  it('answers 404 for an unknown id and another account’s, 422 for a malformed one, on every route', async () => {
    const mine = await draft();
    for (const [id, status] of [
      [crypto.randomUUID(), 404],
      ['not-a-uuid', 422],
    ] as const) {
      assert.equal((await t.resend.broadcasts.get(id)).error?.statusCode, status);
      assert.equal((await t.resend.broadcasts.update(id, { name: 'x' })).error?.statusCode, status);
      assert.equal((await t.resend.broadcasts.remove(id)).error?.statusCode, status);
      assert.equal((await t.resend.broadcasts.send(id)).error?.statusCode, status);
      assert.equal((await t.resend.broadcasts.cancel(id)).error?.statusCode, status);
      assert.equal((await t.resend.broadcasts.recipients(id, { type: 'sent' })).error?.statusCode, status);
      assert.equal((await t.resend.broadcasts.clickedLinks(id)).error?.statusCode, status);
    }
    const stranger = new Resend((await createAccount(t.postline.db, 'stranger')).token, { baseUrl: t.url });
    assert.equal((await stranger.broadcasts.get(mine)).error?.statusCode, 404);
    assert.equal((await stranger.broadcasts.update(mine, { name: 'x' })).error?.statusCode, 404);
    assert.equal((await stranger.broadcasts.remove(mine)).error?.statusCode, 404);
    assert.equal((await stranger.broadcasts.send(mine)).error?.statusCode, 404);
    assert.equal((await stranger.broadcasts.recipients(mine, { type: 'sent' })).error?.statusCode, 404);
    assert.deepEqual((await stranger.broadcasts.list()).data!.data, []);
    // Nor may a broadcast be pointed at another account's segment.
    const theirs = (await stranger.segments.create({ name: 'theirs' })).data!.id;
    assert.equal((await t.resend.broadcasts.update(mine, { segmentId: theirs })).error?.statusCode, 404);
    assert.equal((await t.resend.broadcasts.get(mine)).data!.name, '');
  });

  // Paging through recipients is recipients-and-links.test.ts's; a draft has none to page.
  it('refuses a malformed recipients query with 422, and lists a draft’s recipients and clicked links empty', async () => {
    const id = await draft();
    const bad = await rawRequest(t, 'GET', `/broadcasts/${id}/recipients?type=read`);
    assert.equal(bad.status, 422);
    const bounce = await rawRequest(t, 'GET', `/broadcasts/${id}/recipients?type=sent&bounce_type=permanent`);
    assert.equal(bounce.status, 422);
    const cursor = await rawRequest(t, 'GET', `/broadcasts/${id}/recipients?type=sent&after=nonsense`);
    assert.equal(cursor.status, 422);
    const empty = await t.resend.broadcasts.recipients(id, { type: 'bounced', bounceType: 'permanent' });
    assert.deepEqual(empty.data, { object: 'list', has_more: false, data: [] } as any);
    assert.deepEqual((await t.resend.broadcasts.clickedLinks(id)).data, { object: 'list', has_more: false, data: [] } as any);
  });

  it('duplicates a broadcast as a new draft', async () => {
    const id = await draft({ name: 'Original', topicId });
    await t.resend.broadcasts.send(id, { scheduledAt: 'in 1 hour' });
    const copy = await t.resend.broadcasts.duplicate(id);
    assert.equal(copy.error, null, JSON.stringify(copy.error));
    const { data } = await t.resend.broadcasts.get(copy.data!.id);
    assert.equal(data!.status, 'draft');
    assert.equal(data!.name, 'Original');
    assert.equal(data!.topic_id, topicId);
    assert.equal(data!.scheduled_at, null);
  });
});
