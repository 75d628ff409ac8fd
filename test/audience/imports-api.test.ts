import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Resend } from 'resend';
import { createAccount } from '../../src/accounts/accounts.js';
import { eventually } from '../support/eventually.js';
import { rawRequest, startTestPostline, type TestPostline } from '../support/postline.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const TIMESTAMP = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+\+00$/;

const csv = (text: string) => new Blob([text], { type: 'text/csv' });

/** Polls the import until it has ended (completed or failed). */
function finished(resend: Resend, id: string) {
  return eventually(
    async () => {
      const got = await resend.contacts.imports.get(id);
      assert.equal(got.error, null, JSON.stringify(got.error));
      if (got.data!.status === 'completed' || got.data!.status === 'failed')
        return got.data! as typeof got.data & { errors: { line: number | null; message: string }[] };
      throw new Error(`still ${got.data!.status}`);
    },
    30_000,
    `import ${id} to end`,
  );
}

/** POST /contacts/imports with a FormData built by hand (what the SDK cannot send). */
async function postForm(t: TestPostline, fields: [string, string | Blob][], headers: Record<string, string> = {}) {
  const form = new FormData();
  for (const [name, value] of fields) form.append(name, value);
  const res = await fetch(`${t.url}/contacts/imports`, { method: 'POST', headers: { authorization: `Bearer ${t.apiKey}`, ...headers }, body: form });
  return { status: res.status, body: await res.json() };
}

describe('POST /contacts/imports: CSV files of contacts, imported by the worker', () => {
  let t: TestPostline;
  before(async () => {
    t = await startTestPostline();
  });
  after(() => t.stop());

  it('imports through the SDK: mapped columns, properties, segments and topics; bad rows reported by line, the rest imported', async () => {
    await t.resend.contactProperties.create({ key: 'plan', type: 'string' });
    await t.resend.contactProperties.create({ key: 'seats', type: 'number' });
    const segment = await t.resend.segments.create({ name: 'Imported' });
    const topic = await t.resend.topics.create({ name: 'Product news', defaultSubscription: 'opt_out' });
    const file = csv(
      [
        'Email,First Name,Surname,Plan,Seats,Unsubscribed',
        'ada@example.com,Ada,Lovelace,pro,3,false',
        '"Grace@Example.com","Grace","Hopper, Rear Admiral",team,10,no',
        'not-an-email,X,Y,pro,1,false',
        'linus@example.com,Linus,,free,many,false',
        'ken@example.com,Ken,Thompson,,,maybe',
        '',
        'ADA@example.com,Augusta,,,,',
      ].join('\r\n'),
    );
    const created = await t.resend.contacts.imports.create({
      file,
      columnMap: {
        email: 'Email',
        firstName: 'First Name',
        lastName: 'Surname',
        unsubscribed: 'Unsubscribed',
        properties: { plan: { column: 'Plan' }, seats: { column: 'Seats', type: 'number' } },
      },
      onConflict: 'upsert',
      segments: [{ id: segment.data!.id }],
      topics: [{ id: topic.data!.id, subscription: 'opt_in' }],
    });
    assert.equal(created.error, null, JSON.stringify(created.error));
    assert.deepEqual(Object.keys(created.data!).sort(), ['id', 'object']);
    assert.equal(created.data!.object, 'contact_import');
    assert.match(created.data!.id, UUID);

    const done = await finished(t.resend, created.data!.id);
    assert.equal(done.status, 'completed');
    assert.deepEqual(done.counts, { total: 6, created: 2, updated: 1, skipped: 0, failed: 3 });
    assert.match(done.created_at, TIMESTAMP);
    assert.match(done.completed_at!, TIMESTAMP);
    assert.deepEqual(
      done.errors.map((e) => [e.line, e.message]),
      [
        [4, '"not-an-email" is not a valid email address.'],
        [5, 'The property `seats` must be a number, got "many".'],
        [6, 'The unsubscribed value "maybe" is not true or false.'],
      ],
    );

    // The repeated address (line 8) upserted the contact of line 2: given cells replace, empty ones keep.
    const ada = await t.resend.contacts.get({ email: 'ada@example.com' });
    assert.equal(ada.error, null, JSON.stringify(ada.error));
    assert.deepEqual(
      { first: ada.data!.first_name, last: ada.data!.last_name, unsubscribed: ada.data!.unsubscribed, properties: (ada.data as any).properties },
      { first: 'Augusta', last: 'Lovelace', unsubscribed: false, properties: { plan: { type: 'string', value: 'pro' }, seats: { type: 'number', value: 3 } } },
    );
    const grace = await t.resend.contacts.get({ email: 'grace@example.com' });
    assert.equal(grace.data!.last_name, 'Hopper, Rear Admiral');
    assert.deepEqual((grace.data as any).properties, { plan: { type: 'string', value: 'team' }, seats: { type: 'number', value: 10 } });
    assert.equal((await t.resend.contacts.get({ email: 'linus@example.com' })).error?.statusCode, 404, 'a failed row writes nothing');

    const members = await t.resend.contacts.list({ segmentId: segment.data!.id });
    assert.deepEqual(members.data!.data.map((c) => c.email).sort(), ['ada@example.com', 'grace@example.com']);
    const topics = await t.resend.contacts.topics.list({ email: 'grace@example.com' });
    assert.deepEqual(
      topics.data!.data.map((x) => [x.id, x.subscription]),
      [[topic.data!.id, 'opt_in']],
    );

    // As at Resend, imports record no contact.* events (no webhook per imported row).
    assert.equal((await t.sql(`SELECT count(*)::int AS n FROM events WHERE type LIKE 'contact.%'`))[0].n, 0);
    assert.equal((await t.sql('SELECT count(*)::int AS n FROM contact_import_chunks'))[0].n, 0, 'the stored file is deleted when done');
  });

  it('skips existing contacts by default, finds columns by their names, and upserts nothing twice', async () => {
    await t.resend.contacts.create({ email: 'existing@example.com', firstName: 'Keep' });
    const before = (await t.sql(`SELECT count(*)::int AS n FROM events WHERE type LIKE 'contact.%'`))[0].n;
    const created = await t.resend.contacts.imports.create({
      file: csv('email,first_name,last_name\nexisting@example.com,Changed,Name\nnew.one@example.com,New,One\nnew.one@example.com,Again,Twice\n,,\n , ,\n'),
    });
    assert.equal(created.error, null, JSON.stringify(created.error));
    const done = await finished(t.resend, created.data!.id);
    assert.deepEqual(done.counts, { total: 3, created: 1, updated: 0, skipped: 2, failed: 0 });
    assert.equal((await t.resend.contacts.get({ email: 'existing@example.com' })).data!.first_name, 'Keep');
    const fresh = await t.resend.contacts.get({ email: 'new.one@example.com' });
    assert.deepEqual([fresh.data!.first_name, fresh.data!.last_name], ['New', 'One']);
    const after = (await t.sql(`SELECT count(*)::int AS n FROM events WHERE type LIKE 'contact.%'`))[0].n;
    assert.equal(after, before, 'imports record no contact events');

    // Upserting the same row again changes nothing: counted as updated.
    const again = await t.resend.contacts.imports.create({ file: csv('email,first_name\nnew.one@example.com,New\n'), onConflict: 'upsert' });
    assert.deepEqual((await finished(t.resend, again.data!.id)).counts, { total: 1, created: 0, updated: 1, skipped: 0, failed: 0 });
    assert.equal((await t.sql(`SELECT count(*)::int AS n FROM events WHERE type LIKE 'contact.%'`))[0].n, after);
  });

  it('fails an import whose file cannot be mapped or read, and keeps what can be read of a broken last row', async () => {
    const missing = await t.resend.contacts.imports.create({ file: csv('Mail,Name\na@example.com,A\n'), columnMap: { email: 'E-mail' } });
    const failed = await finished(t.resend, missing.data!.id);
    assert.equal(failed.status, 'failed');
    assert.match(failed.completed_at!, TIMESTAMP);
    assert.deepEqual(failed.counts, { total: 0, created: 0, updated: 0, skipped: 0, failed: 0 });
    assert.deepEqual(failed.errors, [{ line: 1, message: 'The file has no column "E-mail" (column_map.email).' }]);

    const noEmail = await t.resend.contacts.imports.create({ file: csv('Name,Company\nA,B\n') });
    assert.match((await finished(t.resend, noEmail.data!.id)).errors[0]!.message, /no email column/);

    const headerOnly = await t.resend.contacts.imports.create({ file: csv('email\n') });
    const empty = await finished(t.resend, headerOnly.data!.id);
    assert.equal(empty.status, 'completed');
    assert.equal(empty.counts.total, 0);

    const unclosed = await t.resend.contacts.imports.create({ file: csv('email,first_name\nquote.ok@example.com,Fine\n"quote.bad@example.com,Broken\n') });
    const partly = await finished(t.resend, unclosed.data!.id);
    assert.equal(partly.status, 'completed');
    assert.deepEqual(partly.counts, { total: 2, created: 1, updated: 0, skipped: 0, failed: 1 });
    assert.match(partly.errors[0]!.message, /never closed/);

    const runaway = await t.resend.contacts.imports.create({ file: csv(`email,first_name\nr1@example.com,"${'x'.repeat(70_000)}\nr2@example.com,B\n`) });
    const unreadable = await finished(t.resend, runaway.data!.id);
    assert.equal(unreadable.status, 'failed');
    assert.match(unreadable.errors.at(-1)!.message, /longer than 65536 characters/);
  });

  it('refuses malformed forms before queueing anything', async () => {
    const file = csv('email\nx@example.com\n');
    const cases: [[string, string | Blob][], number, string, RegExp][] = [
      [[['column_map', '{}']], 422, 'missing_required_field', /Missing `file` field/],
      [
        [
          ['file', file],
          ['priority', 'high'],
        ],
        422,
        'validation_error',
        /Unknown field `priority`/,
      ],
      [
        [
          ['file', file],
          ['file', file],
        ],
        422,
        'validation_error',
        /more than once/,
      ],
      [[['file', 'email\nx@example.com']], 422, 'validation_error', /must be a file/],
      [[['file', csv('')]], 422, 'validation_error', /empty file/],
      [
        [
          ['file', file],
          ['column_map', '{email:'],
        ],
        422,
        'validation_error',
        /`column_map` field must be a JSON string/,
      ],
      [
        [
          ['file', file],
          ['column_map', '{"mail":"E"}'],
        ],
        422,
        'validation_error',
        /Unknown field `column_map.mail`/,
      ],
      [
        [
          ['file', file],
          ['column_map', '{"properties":{"plan":{"column":"P","type":"boolean"}}}'],
        ],
        422,
        'validation_error',
        /cannot be "boolean"/,
      ],
      [
        [
          ['file', file],
          ['column_map', '{"properties":{"nope":{"column":"P"}}}'],
        ],
        422,
        'validation_error',
        /property `nope` does not exist/,
      ],
      [
        [
          ['file', file],
          ['column_map', '{"properties":{"plan":{"column":"P","type":"number"}}}'],
        ],
        422,
        'validation_error',
        /must be "string"/,
      ],
      [
        [
          ['file', file],
          ['on_conflict', 'merge'],
        ],
        422,
        'validation_error',
        /`on_conflict` field must be one of "upsert" \| "skip"/,
      ],
      [
        [
          ['on_conflict', 'merge'],
          ['file', file],
        ],
        422,
        'validation_error',
        /`on_conflict` field/,
      ],
      [
        [
          ['file', file],
          ['segments', '[{"id":"7f1b2d2e-3a64-4b5e-9c1d-0a2b3c4d5e6f"}]'],
        ],
        404,
        'not_found',
        /Segment not found/,
      ],
      [
        [
          ['file', file],
          ['topics', '[{"id":"7f1b2d2e-3a64-4b5e-9c1d-0a2b3c4d5e6f","subscription":"maybe"}]'],
        ],
        422,
        'validation_error',
        /subscription/,
      ],
      [
        [
          ['file', file],
          ['topics', '[{"id":"7f1b2d2e-3a64-4b5e-9c1d-0a2b3c4d5e6f","subscription":"opt_in"}]'],
        ],
        404,
        'not_found',
        /Topic not found/,
      ],
    ];
    for (const [fields, status, name, message] of cases) {
      const res = await postForm(t, fields);
      assert.equal(res.status, status, JSON.stringify(fields.map(([n]) => n)) + JSON.stringify(res.body));
      assert.equal(res.body.name, name);
      assert.match(res.body.message, message);
    }
    const json = await rawRequest(t, 'POST', '/contacts/imports', { body: { file: 'email\nx@example.com' } });
    assert.equal(json.status, 415);
    assert.equal(json.body.name, 'validation_error');

    // Past 50 MB the upload is refused while it streams, and what was stored of it is deleted.
    const big = await postForm(t, [['file', new Blob([Buffer.alloc(50 * 1024 * 1024 + 1, 'a')])]]);
    assert.equal(big.status, 413);
    assert.match(big.body.message, /larger than 52428800 bytes/);
    assert.deepEqual(await t.sql(`SELECT status FROM contact_imports WHERE status = 'uploading'`), []);
    assert.equal((await t.sql('SELECT count(*)::int AS n FROM contact_import_chunks'))[0].n, 0);
  });

  it('lists imports newest first with ?status, gets one by id, and keeps them to their account', async () => {
    const list = await t.resend.contacts.imports.list();
    assert.equal(list.error, null, JSON.stringify(list.error));
    assert.equal(list.data!.object, 'list');
    assert.ok(list.data!.data.length >= 8);
    const first = list.data!.data[0]!;
    assert.deepEqual(Object.keys(first).sort(), ['completed_at', 'counts', 'created_at', 'id', 'object', 'status']);
    assert.equal(first.object, 'contact_import');
    const times = list.data!.data.map((i) => i.created_at);
    assert.deepEqual(times, [...times].sort().reverse());

    const failed = await t.resend.contacts.imports.list({ status: 'failed' });
    assert.ok(failed.data!.data.length >= 3);
    assert.ok(failed.data!.data.every((i) => i.status === 'failed'));
    const page = await t.resend.contacts.imports.list({ limit: 2 });
    assert.equal(page.data!.data.length, 2);
    assert.equal(page.data!.has_more, true);
    const next = await t.resend.contacts.imports.list({ limit: 2, after: page.data!.data[1]!.id });
    assert.notEqual(next.data!.data[0]!.id, page.data!.data[1]!.id);
    assert.equal((await rawRequest(t, 'GET', '/contacts/imports?status=done')).status, 422);

    const got = await t.resend.contacts.imports.get(first.id);
    assert.deepEqual(Object.keys(got.data!).sort(), ['completed_at', 'counts', 'created_at', 'errors', 'id', 'object', 'status']);
    assert.equal((await t.resend.contacts.imports.get('7f1b2d2e-3a64-4b5e-9c1d-0a2b3c4d5e6f')).error?.statusCode, 404);
    assert.equal((await rawRequest(t, 'GET', '/contacts/imports/nope')).status, 422, 'a malformed id');
    assert.equal((await rawRequest(t, 'DELETE', '/contacts/imports')).status, 405, 'not the contact "imports"');

    const stranger = new Resend((await createAccount(t.postline.db, 'stranger')).token, { baseUrl: t.url });
    assert.equal((await stranger.contacts.imports.get(first.id)).error?.statusCode, 404);
    assert.deepEqual((await stranger.contacts.imports.list()).data!.data, []);
  });

  it('logs the upload request with the file summarised, never its bytes', async () => {
    const text = 'email\nlogged.secret@example.com\n';
    await t.resend.contacts.imports.create({ file: csv(text), onConflict: 'skip' });
    const rows = await eventually(
      async () => {
        const found = await t.sql(
          `SELECT request_body FROM request_logs WHERE method = 'POST' AND endpoint = '/contacts/imports' AND request_body::text LIKE '%"skip"%'`,
        );
        return found.length > 0 && found;
      },
      5_000,
      'the upload in the request log',
    );
    assert.equal(rows.length, 1);
    assert.deepEqual(rows[0].request_body, { file: { filename: 'blob', mime_type: 'text/csv', bytes: Buffer.byteLength(text) }, on_conflict: 'skip' });
  });
});
