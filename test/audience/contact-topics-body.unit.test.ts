// The body of PATCH /contacts/:contact/topics, checked by its documented schema (http/routes.ts,
// api/request-schema.ts) before the handler runs: the SDK's bare array `[{id, subscription}]`
// or the contract's `{topics: [...]}`, each refused in its own terms. How many choices a bare
// array holds is the handler's check (properties-and-topics.test.ts).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { requestCheck } from '../../src/api/request-schema.js';
import { updateContactTopics } from '../../src/audience/update-contact-topics.js';
import type { Db } from '../../src/db/database.js';
import { invalid, missing, refusal as refusalOf } from '../support/refusal.js';

const route = updateContactTopics({} as Db);
const check = requestCheck(route.doc!.body!);
const ID = '00000000-0000-4000-8000-000000000000';

const refusal = (body: unknown) => refusalOf(check, body);

describe('unit: PATCH /contacts/:contact/topics, checked by its schema', () => {
  it('validates its body with the schema it documents', () => {
    assert.equal(route.doc?.bodyCheckedByHandler, undefined);
  });

  it('takes the object form, refusing in terms of `topics`', () => {
    assert.deepEqual(check({ topics: [{ id: ID, subscription: 'opt_in' }] }), { topics: [{ id: ID, subscription: 'opt_in' }] });
    assert.deepEqual(refusal({}), missing('topics'));
    assert.deepEqual(refusal({ topics: [] }), invalid('The `topics` field must have at least 1 item.'));
    assert.deepEqual(refusal({ topics: [{ id: ID, subscription: 'opt_in' }], extra: 1 }), invalid('Unknown field `extra`.'));
    assert.deepEqual(refusal({ topics: [{ id: 'nope', subscription: 'opt_in' }] }), invalid('The `topics[0].id` field must be an id, not "nope".'));
    assert.deepEqual(refusal({ topics: [{ id: ID, subscription: null }] }), missing('topics[0].subscription'));
    assert.deepEqual(refusal({ topics: Array(101).fill({ id: ID, subscription: 'opt_in' }) }), invalid('The `topics` field must have at most 100 items.'));
  });

  it('takes the bare array, refusing each choice by its index', () => {
    assert.deepEqual(check([{ id: ID, subscription: 'opt_out' }]), [{ id: ID, subscription: 'opt_out' }]);
    assert.deepEqual(check([]), [], 'an empty array is the handler’s to refuse, in terms of `topics`');
    assert.deepEqual(refusal([{ subscription: 'opt_in' }]), missing('[0].id'));
    assert.deepEqual(
      refusal([{ id: ID, subscription: 'sometimes' }]),
      invalid('The `[0].subscription` field must be one of "opt_in" | "opt_out", not "sometimes".'),
    );
    assert.deepEqual(refusal([{ id: ID, subscription: 'opt_in', colour: 'red' }]), invalid('Unknown field `[0].colour`.'));
    assert.deepEqual(refusal(['opt_in']), invalid('The `[0]` field must be an object.'));
  });
});
