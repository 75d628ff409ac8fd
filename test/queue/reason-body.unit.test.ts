// The body of the queue's repairs that take a reason (fail, pause), checked by its documented
// schema (api/request-schema.ts) before the handlers run: one line, not blank,
// at most 500 characters, nothing else.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { requestCheck } from '../../src/api/request-schema.js';
import type { Db } from '../../src/db/database.js';
import { ProviderTable } from '../../src/providers/providers.js';
import { queueRoutes } from '../../src/queue/routes.js';
import { invalid, refusal } from '../support/refusal.js';

const ROUTES = queueRoutes({} as Db, new ProviderTable());
const WITH_REASON = ['/queue/destinations/:destination/fail', '/queue/destinations/:destination/pause', '/queue/emails/:id/fail'];

describe('unit: the queue’s reason bodies, checked by their schema', () => {
  for (const url of WITH_REASON) {
    it(`POST ${url}`, () => {
      const route = ROUTES.find((r) => r.method === 'POST' && r.url === url);
      assert.ok(route?.doc?.body && route.doc.bodyCheckedByHandler === undefined, 'checked by its documented schema');
      const check = requestCheck(route.doc.body);
      assert.deepEqual(refusal(check, {}), { statusCode: 422, name: 'missing_required_field', message: 'Missing `reason` field.' });
      assert.deepEqual(refusal(check, { reason: null }), { statusCode: 422, name: 'missing_required_field', message: 'Missing `reason` field.' });
      assert.deepEqual(refusal(check, { reason: 5 }), invalid('The `reason` field must be a string.'));
      assert.deepEqual(refusal(check, { reason: ' ' }), invalid('The `reason` field must be a non-blank line of text, not " ".'));
      assert.deepEqual(refusal(check, { reason: 'a\r\nBcc: x' }), invalid('The `reason` field must be a non-blank line of text, not "a\\r\\nBcc: x".'));
      assert.deepEqual(refusal(check, { reason: 'x'.repeat(501) }), invalid('The `reason` field must be at most 500 characters.'));
      assert.deepEqual(refusal(check, { reason: 'ok', extra: 1 }), invalid('Unknown field `extra`.'));
      assert.deepEqual(check({ reason: ' blocklisted ' }), { reason: ' blocklisted ' });
    });
  }
});
