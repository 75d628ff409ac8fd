import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Resend } from 'resend';
import { createAccount } from '../../src/accounts/accounts.js';
import { rawRequest, startTestPostline, type TestPostline } from '../support/postline.js';

const TIMESTAMP = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+\+00$/;

describe('managing templates by id and by alias', () => {
  let t: TestPostline;
  before(async () => {
    t = await startTestPostline({ roles: ['api'] });
  });
  after(() => t.stop());

  it('creates a template with every field and reads it back by id and by alias', async () => {
    const created = await t.resend.templates.create({
      name: 'Order confirmation',
      alias: 'order-confirmation',
      from: 'Acme Store <store@acme.test>',
      subject: 'Thanks for your order, {{{NAME}}}!',
      replyTo: ['support@acme.test', 'help@acme.test'],
      html: '<p>Hi {{{NAME}}}</p><p>Total: {{{PRICE}}}</p>',
      text: 'Hi {{{NAME}}}. Total: {{{PRICE}}}',
      variables: [
        { key: 'NAME', type: 'string', fallbackValue: 'there' },
        { key: 'PRICE', type: 'number', fallbackValue: 25 },
      ],
    });
    assert.equal(created.error, null, JSON.stringify(created.error));
    assert.equal(created.data!.object, 'template');
    const id = created.data!.id;
    assert.match(id, /^[0-9a-f-]{36}$/);

    const byId = await t.resend.templates.get(id);
    assert.equal(byId.error, null);
    const tpl = byId.data!;
    assert.equal(tpl.object, 'template');
    assert.equal(tpl.id, id);
    assert.equal(tpl.name, 'Order confirmation');
    assert.equal(tpl.alias, 'order-confirmation');
    assert.equal(tpl.from, 'Acme Store <store@acme.test>');
    assert.equal(tpl.subject, 'Thanks for your order, {{{NAME}}}!');
    assert.deepEqual(tpl.reply_to, ['support@acme.test', 'help@acme.test']);
    assert.equal(tpl.html, '<p>Hi {{{NAME}}}</p><p>Total: {{{PRICE}}}</p>');
    assert.equal(tpl.text, 'Hi {{{NAME}}}. Total: {{{PRICE}}}');
    assert.equal(tpl.status, 'draft');
    assert.equal(tpl.published_at, null);
    assert.equal(tpl.has_unpublished_versions, true);
    assert.match(tpl.current_version_id, /^[0-9a-f-]{36}$/);
    assert.match(tpl.created_at, TIMESTAMP);
    assert.match(tpl.updated_at, TIMESTAMP);
    assert.deepEqual(
      tpl.variables!.map(({ key, type, fallback_value }) => ({ key, type, fallback_value })),
      [
        { key: 'NAME', type: 'string', fallback_value: 'there' },
        { key: 'PRICE', type: 'number', fallback_value: 25 },
      ],
    );
    for (const v of tpl.variables!) {
      assert.match((v as { id?: string }).id ?? '', /^[0-9a-f-]{36}$/);
      assert.match(v.created_at, TIMESTAMP);
    }

    const byAlias = await t.resend.templates.get('order-confirmation');
    assert.deepEqual(byAlias.data, tpl);
  });

  it('creates with only name and html: every other field null, an empty variables list', async () => {
    const created = await t.resend.templates.create({ name: 'Minimal', html: '<p>Hello</p>' });
    assert.equal(created.error, null);
    const got = await t.resend.templates.get(created.data!.id);
    assert.equal(got.data!.alias, null);
    assert.equal(got.data!.from, null);
    assert.equal(got.data!.subject, null);
    assert.equal(got.data!.reply_to, null);
    assert.equal(got.data!.text, null);
    assert.deepEqual(got.data!.variables, []);
    // A single reply_to string is stored as a one-element list.
    const one = await t.resend.templates.create({ name: 'One reply-to', html: '<p>x</p>', replyTo: 'a@acme.test' });
    assert.deepEqual((await t.resend.templates.get(one.data!.id)).data!.reply_to, ['a@acme.test']);
  });

  it('updates by id or alias, keeps unchanged fields, clears with null, and renames the alias', async () => {
    const { data } = await t.resend.templates.create({
      name: 'Welcome',
      alias: 'welcome',
      subject: 'Welcome',
      html: '<p>Welcome {{{NAME}}}</p>',
      variables: [{ key: 'NAME', type: 'string', fallbackValue: 'friend' }],
    });
    const id = data!.id;
    const before0 = (await t.resend.templates.get(id)).data!;

    const byAlias = await t.resend.templates.update('welcome', { name: 'Welcome v2', subject: 'Hello there' });
    assert.deepEqual(byAlias.data, { object: 'template', id });
    const after1 = (await t.resend.templates.get(id)).data!;
    assert.equal(after1.name, 'Welcome v2');
    assert.equal(after1.subject, 'Hello there');
    assert.equal(after1.html, before0.html, 'fields not sent are kept');
    assert.deepEqual(after1.variables, before0.variables, 'variables not sent are kept');

    // Replacing the variables keeps the id and created_at of a key that stays.
    await t.resend.templates.update(id, {
      html: '<p>Welcome {{{NAME}}} from {{{CITY}}}</p>',
      variables: [
        { key: 'NAME', type: 'string', fallbackValue: 'pal' },
        { key: 'CITY', type: 'string' },
      ],
    });
    const after2 = (await t.resend.templates.get(id)).data!;
    const name0 = before0.variables!.find((v) => v.key === 'NAME') as unknown as { id: string; created_at: string };
    const name2 = after2.variables!.find((v) => v.key === 'NAME') as unknown as { id: string; created_at: string; fallback_value: unknown };
    assert.equal(name2.id, name0.id);
    assert.equal(name2.created_at, name0.created_at);
    assert.equal(name2.fallback_value, 'pal');
    assert.equal(after2.variables!.find((v) => v.key === 'CITY')!.fallback_value, null);

    const cleared = await rawRequest(t, 'PATCH', `/templates/${id}`, { body: { subject: null, alias: 'welcome-new' } });
    assert.equal(cleared.status, 200, JSON.stringify(cleared.body));
    const after3 = (await t.resend.templates.get('welcome-new')).data!;
    assert.equal(after3.subject, null);
    assert.equal(after3.id, id);
    assert.equal((await t.resend.templates.get('welcome')).error?.statusCode, 404, 'the old alias is free');
  });

  it('lists templates newest first, always paginated, with the summary fields', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await t.resend.templates.create({ name: `List ${i}`, html: '<p>x</p>' })).data!.id);
    const first = await t.resend.templates.list({ limit: 2 });
    assert.equal(first.error, null);
    assert.equal(first.data!.object, 'list');
    assert.equal(first.data!.has_more, true);
    assert.deepEqual(
      first.data!.data.map((x) => x.id),
      [ids[2], ids[1]],
    );
    assert.deepEqual(Object.keys(first.data!.data[0]!).sort(), ['alias', 'created_at', 'id', 'name', 'published_at', 'status', 'updated_at']);
    assert.equal(first.data!.data[0]!.status, 'draft');
    const next = await t.resend.templates.list({ limit: 1, after: ids[1] });
    assert.deepEqual(
      next.data!.data.map((x) => x.id),
      [ids[0]],
    );
    const back = await t.resend.templates.list({ limit: 1, before: ids[0] });
    assert.deepEqual(
      back.data!.data.map((x) => x.id),
      [ids[1]],
    );
    const all = await t.resend.templates.list();
    assert.ok(all.data!.data.length <= 20);
    const bad = await rawRequest(t, 'GET', '/templates?limit=0');
    assert.equal(bad.status, 422);
  });

  it('deletes by alias or id; then it is gone (404 Template not found)', async () => {
    const { data } = await t.resend.templates.create({ name: 'Doomed', alias: 'doomed', html: '<p>x</p>' });
    const removed = await t.resend.templates.remove('doomed');
    assert.deepEqual(removed.data, { object: 'template', id: data!.id, deleted: true });
    const gone = await t.resend.templates.get(data!.id);
    assert.deepEqual(gone.error, { statusCode: 404, message: 'Template not found', name: 'not_found' });
    const again = await t.resend.templates.remove(data!.id);
    assert.equal(again.error?.statusCode, 404);
    // The alias can be used again.
    const reused = await t.resend.templates.create({ name: 'Reborn', alias: 'doomed', html: '<p>x</p>' });
    assert.equal(reused.error, null);
  });

  it('answers 404 Template not found for unknown ids and aliases on every route', async () => {
    const unknown = '00000000-0000-4000-8000-000000000000';
    const expected = { statusCode: 404, message: 'Template not found', name: 'not_found' };
    assert.deepEqual((await t.resend.templates.get(unknown)).error, expected);
    assert.deepEqual((await t.resend.templates.get('no-such-alias')).error, expected);
    assert.deepEqual((await t.resend.templates.update('no-such-alias', { name: 'x' })).error, expected);
    assert.deepEqual((await t.resend.templates.publish(unknown)).error, expected);
    assert.deepEqual((await t.resend.templates.duplicate('no-such-alias')).error, expected);
    assert.deepEqual((await t.resend.templates.remove('no-such-alias')).error, expected);
  });

  it('refuses an alias already used in the account (422), on create and on update, and keeps accounts apart', async () => {
    await t.resend.templates.create({ name: 'A', alias: 'taken', html: '<p>a</p>' });
    const clash = await t.resend.templates.create({ name: 'B', alias: 'taken', html: '<p>b</p>' });
    assert.deepEqual(clash.error, { statusCode: 422, message: 'A template with the alias `taken` already exists.', name: 'validation_error' });
    const other = await t.resend.templates.create({ name: 'C', alias: 'free', html: '<p>c</p>' });
    const renamed = await t.resend.templates.update(other.data!.id, { alias: 'taken' });
    assert.equal(renamed.error?.statusCode, 422);
    assert.equal((await t.resend.templates.get('free')).data!.name, 'C', 'the failed update changed nothing');

    const stranger = await createAccount(t.postline.db, 'stranger');
    const client = new Resend(stranger.token, { baseUrl: t.url });
    assert.equal((await client.templates.get('taken')).error?.statusCode, 404);
    assert.equal((await client.templates.get(other.data!.id)).error?.statusCode, 404);
    assert.equal((await client.templates.remove('taken')).error?.statusCode, 404);
    const own = await client.templates.create({ name: 'Mine', alias: 'taken', html: '<p>m</p>' });
    assert.equal(own.error, null, 'aliases are unique per account, not per installation');
    assert.ok(!(await client.templates.list()).data!.data.some((x) => x.name === 'A'));
  });

  it('validates fields and variables with Resend-style errors, writing nothing', async () => {
    const count = async () => (await t.sql('SELECT count(*)::int AS n FROM templates'))[0].n as number;
    const n0 = await count();
    const post = (body: object) => rawRequest(t, 'POST', '/templates', { body });
    const expect = async (body: object, status: number, name: string, message?: RegExp | string) => {
      const res = await post(body);
      assert.equal(res.status, status, JSON.stringify(res.body));
      assert.equal(res.body.name, name);
      assert.equal(res.body.statusCode, status);
      if (typeof message === 'string') assert.equal(res.body.message, message);
      else if (message) assert.match(res.body.message, message);
    };
    const ok = { name: 'T', html: '<p>x</p>' };
    await expect({ html: '<p>x</p>' }, 422, 'missing_required_field', 'Missing `name` field.');
    await expect({ name: 'T' }, 422, 'missing_required_field', 'Missing `html` field.');
    await expect({ ...ok, html: '  ' }, 422, 'validation_error', /`html` field must not be empty/);
    await expect({ ...ok, react: {} }, 422, 'validation_error', 'Unknown field `react`.');
    await expect({ ...ok, subject: 'a\r\nBcc: x@y.z' }, 422, 'validation_error', /`subject` field must not contain line breaks/);
    await expect({ ...ok, from: 'not an address' }, 422, 'validation_error', /Invalid `from` field/);
    await expect({ ...ok, reply_to: ['a@b.co', 5] }, 422, 'validation_error', 'The `reply_to[1]` field must be a string.');
    await expect({ ...ok, alias: '00000000-0000-4000-8000-000000000000' }, 422, 'validation_error', /alias/);
    await expect({ ...ok, alias: 'has space' }, 422, 'validation_error', /alias/);

    const vars = (n: number) => Array.from({ length: n }, (_, i) => ({ key: `V${i}`, type: 'string' }));
    await expect(
      { ...ok, variables: vars(51) },
      422,
      'validation_error',
      'The `variables` field must be an array of at most 50 `{key, type, fallback_value}` objects.',
    );
    const fifty = await post({ ...ok, variables: vars(50) });
    assert.equal(fifty.status, 201, 'exactly 50 variables is fine');
    await expect({ ...ok, variables: [{ key: 'has-dash', type: 'string' }] }, 422, 'validation_error', /ASCII letters, digits and underscores/);
    await expect({ ...ok, variables: [{ key: 'K'.repeat(51), type: 'string' }] }, 422, 'validation_error', /at most 50 characters/);
    for (const reserved of ['FIRST_NAME', 'LAST_NAME', 'EMAIL', 'UNSUBSCRIBE_URL', 'contact', 'this']) {
      await expect({ ...ok, variables: [{ key: reserved, type: 'string' }] }, 422, 'validation_error', `The variable key \`${reserved}\` is reserved.`);
    }
    await expect(
      {
        ...ok,
        variables: [
          { key: 'A', type: 'string' },
          { key: 'A', type: 'number' },
        ],
      },
      422,
      'validation_error',
      /defined more than once/,
    );
    await expect({ ...ok, variables: [{ key: 'A', type: 'boolean' }] }, 422, 'validation_error', /"string" \| "number"/);
    await expect({ ...ok, variables: [{ key: 'A' }] }, 422, 'missing_required_field', 'Missing `variables[0].type` field.');
    await expect({ ...ok, variables: [{ key: 'A', type: 'string', extra: 1 }] }, 422, 'validation_error', 'Unknown field `variables[0].extra`.');
    await expect({ ...ok, variables: [{ key: 'A', type: 'number', fallback_value: 'ten' }] }, 422, 'validation_error', /must be a number/);
    await expect({ ...ok, variables: [{ key: 'A', type: 'string', fallback_value: 10 }] }, 422, 'validation_error', /must be a string/);
    await expect({ ...ok, variables: [{ key: 'A', type: 'string', fallback_value: 'x'.repeat(2001) }] }, 422, 'validation_error', /at most 2000 characters/);
    await expect({ ...ok, variables: [{ key: 'A', type: 'number', fallback_value: 2 ** 53 }] }, 422, 'validation_error', /at most 9007199254740991/);
    await expect(
      { ...ok, html: '<h1>Welcome {{{user_email}}}!</h1>', variables: [{ key: 'user_name', type: 'string' }] },
      422,
      'validation_error',
      "Variable 'user_email' is used in the template but not defined in the variables list",
    );
    // Reserved keys may be used (broadcasts fill them from the contact) without being defined.
    assert.equal((await post({ ...ok, html: '<p>Hi {{{FIRST_NAME|there}}}</p>' })).status, 201);
    assert.equal(await count(), n0 + 2, 'only the two valid templates were written');

    const { data } = await t.resend.templates.create({ name: 'Patch me', html: '<p>{{{A}}}</p>', variables: [{ key: 'A', type: 'string' }] });
    const patch = (body: object) => rawRequest(t, 'PATCH', `/templates/${data!.id}`, { body });
    // A name can be changed, not cleared: null is refused, not read as left out.
    const noName = await patch({ name: null });
    assert.equal(noName.status, 422);
    assert.deepEqual(noName.body, {
      statusCode: 422,
      name: 'validation_error',
      message: 'The `name` field must keep a value (it cannot be cleared), not null.',
    });
    assert.equal((await patch({ html: '' })).status, 422);
    assert.equal((await patch({ unknown: 1 })).body.message, 'Unknown field `unknown`.');
    // null clears an optional field, as the dashboard's editor sends it.
    assert.equal((await patch({ alias: null, from: null, subject: null, text: null })).status, 200);
    const dropsUsed = await patch({ variables: [] });
    assert.equal(dropsUsed.status, 422, 'the html still uses A');
    assert.match(dropsUsed.body.message, /Variable 'A' is used/);
  });
});
