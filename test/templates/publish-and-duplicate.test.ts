import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createVerifiedDomain } from '../support/domains.js';
import { startTestPostline, type TestPostline } from '../support/postline.js';

describe('drafts, published versions and duplicates', () => {
  let t: TestPostline;
  before(async () => {
    t = await startTestPostline({ roles: ['api'] });
    await createVerifiedDomain(t, 'acme.test');
  });
  after(() => t.stop());

  const send = (id: string) => t.resend.emails.send({ from: 'hello@acme.test', to: 'ann@example.org', template: { id, variables: { NAME: 'Ann' } } });
  const htmlOf = async (emailId: string) => (await t.resend.emails.get(emailId)).data!.html;

  it('publishes the draft; later edits change only the draft until the next publish', async () => {
    const created = await t.resend.templates.create({
      name: 'Welcome',
      alias: 'welcome',
      subject: 'Welcome',
      html: '<p>Version 1 for {{{NAME}}}</p>',
      variables: [{ key: 'NAME', type: 'string' }],
    });
    const id = created.data!.id;
    const draft = (await t.resend.templates.get(id)).data!;
    assert.equal(draft.status, 'draft');
    assert.equal(draft.has_unpublished_versions, true);

    const published = await t.resend.templates.publish('welcome');
    assert.deepEqual(published.data, { object: 'template', id });
    const v1 = (await t.resend.templates.get(id)).data!;
    assert.equal(v1.status, 'published');
    assert.match(v1.published_at!, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+\+00$/);
    assert.equal(v1.has_unpublished_versions, false);
    assert.equal(v1.current_version_id, draft.current_version_id, 'publishing makes the draft the published version');
    assert.equal((await t.resend.templates.list()).data!.data.find((x) => x.id === id)!.status, 'published');

    // Editing after a publish starts a new draft version; sending still uses version 1.
    await t.resend.templates.update(id, { html: '<p>Version 2 for {{{NAME}}}</p>' });
    const edited = (await t.resend.templates.get(id)).data!;
    assert.equal(edited.status, 'published');
    assert.equal(edited.has_unpublished_versions, true);
    assert.notEqual(edited.current_version_id, v1.current_version_id);
    assert.equal(edited.html, '<p>Version 2 for {{{NAME}}}</p>', 'GET shows the draft');
    assert.equal(edited.published_at, v1.published_at);
    const first = await send('welcome');
    assert.equal(first.error, null, JSON.stringify(first.error));
    assert.equal(await htmlOf(first.data!.id), '<p>Version 1 for Ann</p>');

    // A second edit stays in the same draft version.
    await t.resend.templates.update(id, { html: '<p>Version 3 for {{{NAME}}}</p>' });
    assert.equal((await t.resend.templates.get(id)).data!.current_version_id, edited.current_version_id);

    await t.resend.templates.publish(id);
    const v3 = (await t.resend.templates.get(id)).data!;
    assert.equal(v3.has_unpublished_versions, false);
    assert.equal(v3.current_version_id, edited.current_version_id);
    const second = await send(id);
    assert.equal(await htmlOf(second.data!.id), '<p>Version 3 for Ann</p>');

    // Publishing an unchanged draft again changes nothing.
    await t.resend.templates.publish(id);
    assert.equal((await t.resend.templates.get(id)).data!.published_at, v3.published_at);
  });

  it('freezes the published subject, from, reply_to and variables too', async () => {
    const { data } = await t.resend.templates.create({
      name: 'Frozen',
      from: 'Old <old@acme.test>',
      subject: 'Old subject',
      replyTo: 'old-reply@acme.test',
      html: '<p>{{{NAME}}}</p>',
      variables: [{ key: 'NAME', type: 'string', fallbackValue: 'old fallback' }],
    });
    await t.resend.templates.publish(data!.id);
    await t.resend.templates.update(data!.id, {
      from: 'New <new@acme.test>',
      subject: 'New subject',
      replyTo: 'new-reply@acme.test',
      variables: [{ key: 'NAME', type: 'string', fallbackValue: 'new fallback' }],
    });
    const sent = await t.resend.emails.send({ to: 'ann@example.org', template: { id: data!.id } });
    assert.equal(sent.error, null, JSON.stringify(sent.error));
    const email = (await t.resend.emails.get(sent.data!.id)).data!;
    assert.equal(email.from, 'Old <old@acme.test>');
    assert.equal(email.subject, 'Old subject');
    assert.deepEqual(email.reply_to, ['old-reply@acme.test']);
    assert.equal(email.html, '<p>old fallback</p>');
  });

  it('duplicates the draft into a new draft template without the alias, and can publish it in one chain', async () => {
    const { data } = await t.resend.templates.create({
      name: 'Original',
      alias: 'original',
      subject: 'Hi',
      html: '<p>{{{NAME}}}</p>',
      variables: [{ key: 'NAME', type: 'string', fallbackValue: 'you' }],
    });
    await t.resend.templates.publish(data!.id);

    const copy = await t.resend.templates.duplicate('original');
    assert.equal(copy.error, null);
    assert.equal(copy.data!.object, 'template');
    assert.notEqual(copy.data!.id, data!.id);
    const dup = (await t.resend.templates.get(copy.data!.id)).data!;
    const orig = (await t.resend.templates.get(data!.id)).data!;
    assert.equal(dup.name, 'Original (Copy)');
    assert.equal(dup.alias, null);
    assert.equal(dup.status, 'draft');
    assert.equal(dup.html, orig.html);
    assert.equal(dup.subject, orig.subject);
    assert.deepEqual(
      dup.variables!.map((v) => [v.key, v.type, v.fallback_value]),
      [['NAME', 'string', 'you']],
    );
    const variableId = (v: unknown) => (v as { id: string }).id; // in the API's variables, beyond the SDK's type
    assert.notEqual(variableId(dup.variables![0]), variableId(orig.variables![0]));
    assert.notEqual(dup.current_version_id, orig.current_version_id);

    const chained = await t.resend.templates.duplicate(data!.id).publish();
    assert.equal(chained.error, null);
    assert.equal((await t.resend.templates.get(chained.data!.id)).data!.status, 'published');

    const createdAndPublished = await t.resend.templates.create({ name: 'Chained', html: '<p>x</p>' }).publish();
    assert.equal((await t.resend.templates.get(createdAndPublished.data!.id)).data!.status, 'published');
  });
});
