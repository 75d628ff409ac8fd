// The request check made from a route's documented schema (src/api/request-schema.ts): the
// first failure in Resend's error shape with the API's wording, nulls of optional fields read
// as absent, and the body the handler gets; query and path parameters likewise.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ApiError } from '../../src/api/errors.js';
import { pageQuery } from '../../src/api/pagination.js';
import { paramsCheck, queryCheck, requestCheck } from '../../src/api/request-schema.js';
import { array, boolean, input, integer, nullable, oneOfValues, SINGLE_LINE_TEXT, string, uuid } from '../../src/api/schema.js';
import { invalid, refusal as refusalOf } from '../support/refusal.js';

const check = requestCheck(
  input(
    {
      name: string({ minLength: 1, maxLength: 5 }),
      enabled: boolean(),
      size: integer({ minimum: 1, maximum: 10 }),
      kind: oneOfValues(['a', 'b']),
      note: nullable(string()),
      id: uuid(),
      tags: array(input({ name: string(), value: string() }, ['name']), { maxItems: 2 }),
      code: string({ pattern: '^[A-Z]+$', 'x-message': 'be upper-case letters' }),
      line: string({ pattern: SINGLE_LINE_TEXT, maxLength: 100_000 }),
    },
    ['name'],
  ),
);

const refusal = (body: unknown) => refusalOf(check, body);

describe('unit: a request checked against its schema', () => {
  it('reads no body, or a JSON null, as an empty object, and names the body itself when it is not one', () => {
    const missing = { statusCode: 422, name: 'missing_required_field', message: 'Missing `name` field.' };
    assert.deepEqual(refusal(undefined), missing);
    assert.deepEqual(refusal(null), missing);
    assert.deepEqual(refusal('x'), { statusCode: 422, name: 'validation_error', message: 'The request body must be an object.' });
    assert.deepEqual(refusal([{ name: 'x' }]), { statusCode: 422, name: 'validation_error', message: 'The request body must be an object.' });
  });

  it('answers the body it was given, without the nulls of optional fields that do not allow null', () => {
    assert.deepEqual(check({ name: 'x', enabled: null, note: null, tags: [{ name: 'a', value: null }] }), { name: 'x', note: null, tags: [{ name: 'a' }] });
  });

  it("words each failure as the API does, in Resend's shape", () => {
    assert.deepEqual(refusal({}), { statusCode: 422, name: 'missing_required_field', message: 'Missing `name` field.' });
    assert.equal(refusal({ name: null }).message, 'Missing `name` field.');
    assert.deepEqual(refusal({ name: 'x', colour: 1 }), { statusCode: 422, name: 'validation_error', message: 'Unknown field `colour`.' });
    assert.equal(refusal({ name: 'x', tags: [{ name: 'a', extra: 1 }] }).message, 'Unknown field `tags[0].extra`.');
    assert.equal(refusal({ name: 'x', tags: [{ value: 'v' }] }).message, 'Missing `tags[0].name` field.');
    assert.equal(refusal({ name: 3 }).message, 'The `name` field must be a string.');
    assert.equal(refusal({ name: '' }).message, 'The `name` field must not be empty.');
    assert.equal(refusal({ name: 'toolong' }).message, 'The `name` field must be at most 5 characters.');
    assert.equal(refusal({ name: 'x', enabled: 'yes' }).message, 'The `enabled` field must be a boolean.');
    assert.equal(refusal({ name: 'x', size: 1.5 }).message, 'The `size` field must be an integer.');
    assert.equal(refusal({ name: 'x', size: 11 }).message, 'The `size` field must be at most 10.');
    assert.equal(refusal({ name: 'x', kind: 'c' }).message, 'The `kind` field must be one of "a" | "b", not "c".');
    assert.equal(refusal({ name: 'x', note: 5 }).message, 'The `note` field must be a string or null.');
    assert.equal(refusal({ name: 'x', id: 'nope' }).message, 'The `id` field must be an id, not "nope".');
    assert.equal(refusal({ name: 'x', tags: [{ name: 'a' }, { name: 'b' }, { name: 'c' }] }).message, 'The `tags` field must have at most 2 items.');
    assert.equal(refusal({ name: 'x', code: 'abc' }).message, 'The `code` field must be upper-case letters, not "abc".');
    assert.equal(refusal({ name: '😀😀😀😀😀😀' }).message, 'The `name` field must be at most 5 characters.');
    assert.deepEqual(check({ name: '😀😀😀😀😀' }), { name: '😀😀😀😀😀' }, 'lengths in characters: an emoji is one');
  });

  it("says a missing field in the schema's own words where Resend has its own", () => {
    const own = requestCheck(input({ title: string({ 'x-missing': 'Missing "title" field' }) }, ['title']));
    assert.throws(
      () => own({}),
      (err: ApiError) => err.toBody().message === 'Missing "title" field' && err.errorName === 'missing_required_field',
    );
  });

  it('checks a single line of text in linear time, whatever the value', () => {
    const started = performance.now();
    assert.equal(refusal({ name: 'x', line: `${'a'.repeat(50_000)}\n` }).message.startsWith('The `line` field must have the documented form'), true);
    assert.equal(refusal({ name: 'x', line: ' '.repeat(50_000) }).message.startsWith('The `line` field must have the documented form'), true);
    assert.ok(performance.now() - started < 1_000, `${performance.now() - started} ms`);
    assert.deepEqual(check({ name: 'x', line: ' one line ' }), { name: 'x', line: ' one line ' });
  });
});

describe('unit: query parameters checked against their schemas', () => {
  const checkQuery = queryCheck({
    ...pageQuery(20),
    status: oneOfValues(['enabled', 'disabled']),
    search: string({ maxLength: 5 }),
    unread: boolean(),
    labels: array(string()),
    folders: array(oneOfValues(['inbox', 'sent', 'trash'])),
  });
  const refusedQuery = (query: Record<string, string>) => refusalOf((q) => checkQuery(q as Record<string, string>), query);
  const parameter = (message: string) => ({ statusCode: 422, name: 'invalid_parameter', message });

  it('reads strings as the types their schemas document, and lets other parameters through', () => {
    for (const query of [
      {},
      { limit: '1' },
      { limit: '100' },
      { unread: 'true' },
      { labels: 'a,b' },
      { folders: 'inbox, sent,trash' },
      { folders: 'inbox' },
      { status: 'enabled' },
      { anything: 'else' },
    ]) {
      assert.doesNotThrow(() => checkQuery(query), JSON.stringify(query));
    }
  });

  it("answers pagination's limit and cursors in Resend's words", () => {
    const limit = invalid('The pagination limit must be a number between 1 and 100. See https://resend.com/docs/pagination for more information.');
    for (const value of ['0', '101', 'abc', '', '2.5']) assert.deepEqual(refusedQuery({ limit: value }), limit, value);
    assert.deepEqual(refusedQuery({ after: 'nope' }), parameter('The `after` parameter must be a valid id.'));
    assert.deepEqual(refusedQuery({ before: '' }), parameter('The `before` parameter must be a valid id.'));
  });

  it('names any other refused parameter as one', () => {
    assert.deepEqual(refusedQuery({ status: 'paused' }), parameter('The `status` parameter must be one of "enabled" | "disabled", not "paused".'));
    assert.deepEqual(refusedQuery({ search: 'longer' }), parameter('The `search` parameter must be at most 5 characters.'));
    assert.deepEqual(refusedQuery({ unread: 'yes' }), parameter('The `unread` parameter must be a boolean.'));
    // A comma-separated list is checked item by item.
    assert.deepEqual(refusedQuery({ folders: 'inbox,spam' }), parameter('The `folders[1]` parameter must be one of "inbox" | "sent" | "trash", not "spam".'));
  });
});

describe('unit: path parameters checked against their schemas', () => {
  const checkParams = paramsCheck({
    id: uuid(),
    contact: string({ description: 'The contact id, or its address.' }),
    log: { ...uuid(), 'x-error': { name: 'validation_error', message: 'The `logId` must be a valid UUID.' } },
    message_id: string({ pattern: '^msg_[A-Za-z0-9]+$' }),
    position: integer({ minimum: 0 }),
  });
  const refusedParams = (params: Record<string, string>) => refusalOf((p) => checkParams(p as Record<string, string>), params);
  const ID = '0b2a4a5e-7a35-4a8e-9f4e-2c4b1a0e9d11';

  it('lets through what the schemas take, and a parameter no schema names', () => {
    const taken: Record<string, string>[] = [
      { id: ID },
      { id: ID.toUpperCase() },
      { contact: 'a+b@example.com' },
      { contact: ID },
      { message_id: 'msg_abc', position: '3' },
      { other: 'anything' },
    ];
    for (const params of taken) {
      assert.doesNotThrow(() => checkParams(params), JSON.stringify(params));
    }
  });

  it("answers a malformed id in Resend's words, or the schema's own", () => {
    const invalidId = invalid('The `id` must be a valid UUID.');
    for (const value of ['not-a-uuid', '', `${ID}x`, ID.slice(1)]) assert.deepEqual(refusedParams({ id: value }), invalidId, value);
    assert.deepEqual(refusedParams({ log: 'nope' }), invalid('The `logId` must be a valid UUID.'));
  });

  it('names any other refused parameter as one, and leaves the strings as they were', () => {
    const parameter = (message: string) => ({ statusCode: 422, name: 'invalid_parameter', message });
    assert.deepEqual(refusedParams({ message_id: 'abc' }), parameter('The `message_id` parameter must have the documented form, not "abc".'));
    assert.deepEqual(refusedParams({ position: 'first' }), parameter('The `position` parameter must be an integer.'));
    const params = { id: ID, position: '3' };
    checkParams(params);
    assert.deepEqual(params, { id: ID, position: '3' }, 'read as numbers on a copy');
  });
});
