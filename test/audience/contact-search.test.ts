// GET /contacts?search=: contacts whose address or name holds the text, case-insensitively,
// newest first and paginated like the plain list, with a segment too; LIKE's wildcards are
// plain characters; another account's contacts never match.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createAccount } from '../../src/accounts/accounts.js';
import { rawRequest, startTestPostline, type TestPostline } from '../support/postline.js';

describe('GET /contacts?search=', () => {
  let t: TestPostline;
  let segmentId: string;
  before(async () => {
    t = await startTestPostline({ roles: ['api'] });
    segmentId = (await t.resend.segments.create({ name: 'Team' })).data!.id;
    const contacts = [
      { email: 'ada@lovelace.example', firstName: 'Ada', lastName: 'Lovelace' },
      { email: 'grace@navy.example', firstName: 'Grace', lastName: 'Hopper', segments: [{ id: segmentId }] },
      { email: 'alan@bletchley.example', firstName: 'Alan', lastName: 'Turing', segments: [{ id: segmentId }] },
      { email: '100%_real@odd.example' },
      { email: 'adam@garden.example' },
    ];
    for (const c of contacts) assert.equal((await t.resend.contacts.create(c as any)).error, null);
  });
  after(() => t.stop());

  const search = async (query: string, key = t.apiKey) => {
    const res = await rawRequest(t, 'GET', `/contacts?${query}`, { auth: key });
    return { status: res.status, body: res.body, emails: (res.body.data ?? []).map((c: any) => c.email) };
  };

  it('finds by part of the address, the first name, the last name or both, whatever the case', async () => {
    assert.deepEqual((await search('search=AD')).emails, ['adam@garden.example', 'ada@lovelace.example']);
    assert.deepEqual((await search('search=hopper')).emails, ['grace@navy.example']);
    assert.deepEqual((await search('search=alan%20turing')).emails, ['alan@bletchley.example']);
    assert.deepEqual((await search('search=navy.example')).emails, ['grace@navy.example']);
    assert.deepEqual((await search('search=nobody')).body, { object: 'list', has_more: false, data: [] });
  });

  it('takes % and _ as plain characters', async () => {
    assert.deepEqual((await search('search=%25_')).emails, ['100%_real@odd.example']);
    assert.deepEqual((await search('search=_')).emails, ['100%_real@odd.example']);
  });

  it('pages through the matches and combines with a segment', async () => {
    const first = await search('search=a&limit=2');
    assert.equal(first.body.has_more, true);
    const last = first.body.data.at(-1).id;
    const second = await search(`search=a&limit=2&after=${last}`);
    const all = await search('search=a');
    assert.deepEqual([...first.emails, ...second.emails], all.emails.slice(0, 4));
    assert.deepEqual((await search(`search=a&segment_id=${segmentId}`)).emails, ['alan@bletchley.example', 'grace@navy.example']);
  });

  it('treats a blank search as none and refuses one too long', async () => {
    assert.equal((await search('search=%20')).emails.length, 5);
    const long = await search(`search=${'a'.repeat(255)}`);
    assert.equal(long.status, 422);
    assert.deepEqual(long.body, { statusCode: 422, message: 'The `search` parameter must be at most 254 characters.', name: 'invalid_parameter' });
  });

  it("never finds another account's contacts", async () => {
    const stranger = await createAccount(t.postline.db, 'stranger');
    assert.deepEqual((await search('search=ada', stranger.token)).body, { object: 'list', has_more: false, data: [] });
  });
});
