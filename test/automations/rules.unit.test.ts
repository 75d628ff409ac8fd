// The rule trees of condition steps and wait_for_event filters, without a server: what
// parseRule accepts and how it names what it refuses (fields, operators, values, depth, size),
// and what evaluateRule decides for each operator, absent fields and numbers sent as text.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { validation } from '../../src/api/errors.js';
import { evaluateRule, FIELD, parseRule, type Rule } from '../../src/automations/rules.js';

const fail = (message: string) => validation(`Step \`check\` (condition): ${message}`);
const parse = (value: unknown) => parseRule(value, 'config', fail);
const refuses = (value: unknown, message: string) =>
  assert.throws(
    () => parse(value),
    (err: any) => err.errorName === 'validation_error' && err.statusCode === 422 && err.message === `Step \`check\` (condition): ${message}`,
    JSON.stringify(value),
  );

const leaf = (operator: string, value?: unknown): Rule => ({ type: 'rule', field: 'event.x', operator, ...(value === undefined ? {} : { value }) }) as Rule;
/** evaluateRule on one leaf over `event.x`, with `actual` as the field's value (absent when undefined). */
const holds = (operator: string, value: unknown, actual: unknown) => evaluateRule(leaf(operator, value), (f) => (f === 'event.x' ? actual : undefined));

describe('unit: parseRule', () => {
  it('returns a leaf with its type filled in when it was left out', () => {
    assert.deepEqual(parse({ field: 'event.plan', operator: 'eq', value: 'pro' }), { type: 'rule', field: 'event.plan', operator: 'eq', value: 'pro' });
  });

  it('returns nested and/or trees as given', () => {
    const tree = {
      type: 'or',
      rules: [
        { field: 'contact.email', operator: 'ends_with', value: '@acme.test' },
        { type: 'and', rules: [{ type: 'rule', field: 'wait_events.paid.amount', operator: 'gte', value: 10 }] },
      ],
    };
    assert.deepEqual(parse(tree), {
      type: 'or',
      rules: [
        { type: 'rule', field: 'contact.email', operator: 'ends_with', value: '@acme.test' },
        { type: 'and', rules: [{ type: 'rule', field: 'wait_events.paid.amount', operator: 'gte', value: 10 }] },
      ],
    });
  });

  it('refuses what is not a rule object', () => {
    for (const value of [null, undefined, [], 'event.x', 5]) refuses(value, '`config` must be a rule object.');
    refuses({}, '`config.type` must be one of "rule" | "and" | "or".');
    refuses({ type: 'xor', rules: [] }, '`config.type` must be one of "rule" | "and" | "or".');
  });

  it('accepts fields in the event, contact and wait_events namespaces, unicode included', () => {
    for (const field of ['event.plan', 'contact.first_name', 'wait_events.order.paid.total', 'event.ünï', 'event.a.b.c']) {
      assert.equal(FIELD.test(field), true, field);
    }
  });

  it('refuses fields outside the namespaces, empty after the dot, or with whitespace', () => {
    for (const field of ['plan', 'events.plan', 'event', 'event.', 'event..x', 'event.a b', 'event.x\n', ' event.x', 'Event.x']) {
      refuses({ field, operator: 'exists' }, '`config.field` must be a string starting with `event.`, `contact.` or `wait_events.`.');
    }
    refuses({ field: 5, operator: 'exists' }, '`config.field` must be a string starting with `event.`, `contact.` or `wait_events.`.');
  });

  it('refuses unknown operators and unknown fields of a rule', () => {
    refuses(
      { field: 'event.x', operator: 'like', value: 'a' },
      '`config.operator` must be one of "eq" | "neq" | "gt" | "gte" | "lt" | "lte" | "contains" | "starts_with" | "ends_with" | "exists" | "is_empty".',
    );
    refuses({ field: 'event.x', operator: 'eq', value: 1, negate: true }, '`config.negate` is not a field of a rule.');
    refuses({ type: 'and', rules: [{ field: 'event.x', operator: 'exists' }], field: 'event.x' }, '`config.field` is not a field of an `and` rule.');
  });

  it('checks the value against the operator', () => {
    refuses({ field: 'event.x', operator: 'gt', value: '10' }, '`config.value` must be a number with the `gt` operator.');
    refuses({ field: 'event.x', operator: 'lte', value: NaN }, '`config.value` must be a number with the `lte` operator.');
    refuses({ field: 'event.x', operator: 'gte', value: Infinity }, '`config.value` must be a number with the `gte` operator.');
    refuses({ field: 'event.x', operator: 'contains', value: 5 }, '`config.value` must be a string with the `contains` operator.');
    refuses({ field: 'event.x', operator: 'eq' }, '`config.value` must be a string, number, boolean or null with the `eq` operator.');
    refuses({ field: 'event.x', operator: 'neq', value: { a: 1 } }, '`config.value` must be a string, number, boolean or null with the `neq` operator.');
    refuses({ field: 'event.x', operator: 'exists', value: true }, '`config.value` must be left out with the `exists` operator.');
    refuses({ field: 'event.x', operator: 'is_empty', value: null }, '`config.value` must be left out with the `is_empty` operator.');
    assert.deepEqual(parse({ field: 'event.x', operator: 'eq', value: null }), leaf('eq', null));
    assert.deepEqual(parse({ field: 'event.x', operator: 'neq', value: false }), leaf('neq', false));
  });

  it('takes 1 to 50 rules per group', () => {
    const rules = (n: number) => Array.from({ length: n }, () => ({ field: 'event.x', operator: 'exists' }));
    refuses({ type: 'and', rules: [] }, '`config.rules` must be an array of 1 to 50 rules.');
    refuses({ type: 'or', rules: rules(51) }, '`config.rules` must be an array of 1 to 50 rules.');
    refuses({ type: 'or', rules: 'event.x' }, '`config.rules` must be an array of 1 to 50 rules.');
    assert.equal((parse({ type: 'or', rules: rules(50) }) as { rules: Rule[] }).rules.length, 50);
  });

  it('nests groups 5 levels deep and no deeper, naming the path', () => {
    const nest = (levels: number, leafRule: object = { field: 'event.x', operator: 'exists' }) => {
      let rule: unknown = leafRule;
      for (let i = 0; i < levels; i++) rule = { type: 'and', rules: [rule] };
      return rule;
    };
    assert.deepEqual(parse(nest(5)), nest(5, { type: 'rule', field: 'event.x', operator: 'exists' }));
    refuses(nest(6), '`config.rules[0].rules[0].rules[0].rules[0].rules[0]` nests rules more than 5 levels deep.');
  });

  it('names the path of a bad rule deep in a tree', () => {
    refuses(
      {
        type: 'and',
        rules: [
          { field: 'event.x', operator: 'exists' },
          { type: 'or', rules: [{ field: 'x', operator: 'exists' }] },
        ],
      },
      '`config.rules[1].rules[0].field` must be a string starting with `event.`, `contact.` or `wait_events.`.',
    );
  });
});

describe('unit: evaluateRule', () => {
  it('eq and neq compare strictly, but a number matches its text and null matches an absent field', () => {
    assert.equal(holds('eq', 'pro', 'pro'), true);
    assert.equal(holds('eq', 'pro', 'Pro'), false);
    assert.equal(holds('eq', 5, '5'), true);
    assert.equal(holds('eq', '5', 5), true);
    assert.equal(holds('eq', 5, '5.0'), true);
    assert.equal(holds('eq', true, 'true'), false, 'booleans do not match their text');
    assert.equal(holds('eq', null, undefined), true);
    assert.equal(holds('eq', null, null), true);
    assert.equal(holds('eq', null, ''), false);
    assert.equal(holds('neq', null, undefined), false);
    assert.equal(holds('neq', 'pro', undefined), true);
  });

  it('does not read blank text as the number 0', () => {
    assert.equal(holds('eq', 0, ''), false);
    assert.equal(holds('eq', 0, '   '), false);
    assert.equal(holds('eq', '', 0), false);
    assert.equal(holds('lte', 0, ''), false);
  });

  it('gt, gte, lt and lte compare numbers and numeric text, and are false for anything else', () => {
    assert.equal(holds('gt', 5, 6), true);
    assert.equal(holds('gt', 5, 5), false);
    assert.equal(holds('gte', 5, 5), true);
    assert.equal(holds('lt', 5, '4.5'), true);
    assert.equal(holds('lte', 5, 5), true);
    for (const actual of [undefined, null, 'abc', true, [6], 'Infinity', NaN]) {
      assert.equal(holds('gt', 0, actual), false, String(actual));
      assert.equal(holds('lt', 0, actual), false, String(actual));
    }
  });

  it('contains looks inside text and arrays; starts_with and ends_with are case-sensitive and text-only', () => {
    assert.equal(holds('contains', 'b', 'abc'), true);
    assert.equal(holds('contains', 'b', ['a', 'b']), true);
    assert.equal(holds('contains', 'b', ['abc']), false, 'array items must equal the value');
    assert.equal(holds('contains', '5', 15), false);
    assert.equal(holds('contains', 'x', undefined), false);
    assert.equal(holds('starts_with', 'Éc', 'Éclair'), true);
    assert.equal(holds('starts_with', 'éc', 'Éclair'), false);
    assert.equal(holds('ends_with', '@acme.test', 'ann@acme.test'), true);
    assert.equal(holds('ends_with', 'Z', 'abz'), false);
    assert.equal(holds('ends_with', '1', 11), false);
  });

  it('exists is true for any present value but null; is_empty for absent, null, blank text, [] and {}', () => {
    for (const actual of ['', 0, false, [], {}]) assert.equal(holds('exists', undefined, actual), true, JSON.stringify(actual));
    assert.equal(holds('exists', undefined, null), false);
    assert.equal(holds('exists', undefined, undefined), false);
    for (const actual of [undefined, null, '', '  \t', [], {}]) assert.equal(holds('is_empty', undefined, actual), true, JSON.stringify(actual));
    for (const actual of [0, false, 'a', [0], { a: 1 }]) assert.equal(holds('is_empty', undefined, actual), false, JSON.stringify(actual));
  });

  it('and needs every rule, or needs one, over different fields', () => {
    const data: Record<string, unknown> = { 'event.plan': 'pro', 'contact.email': 'ann@acme.test', 'event.amount': '20' };
    const read = (f: string) => data[f];
    const plan: Rule = { type: 'rule', field: 'event.plan', operator: 'eq', value: 'pro' };
    const rich: Rule = { type: 'rule', field: 'event.amount', operator: 'gt', value: 100 };
    assert.equal(evaluateRule({ type: 'and', rules: [plan, rich] }, read), false);
    assert.equal(evaluateRule({ type: 'or', rules: [plan, rich] }, read), true);
    assert.equal(
      evaluateRule(
        { type: 'and', rules: [plan, { type: 'or', rules: [rich, { type: 'rule', field: 'contact.email', operator: 'ends_with', value: '@acme.test' }] }] },
        read,
      ),
      true,
    );
  });

  // "A number matches its decimal string" (rules.ts): Number() alone would read hex and
  // binary text too, so eq 5 would hold for "0x5" and gt 5 for "0x10".
  it('matches a number only against its decimal text, not "0x5" or "0b101"', () => {
    assert.equal(holds('eq', 5, '0x5'), false);
    assert.equal(holds('eq', 5, '0b101'), false);
    assert.equal(holds('gt', 5, '0x10'), false);
  });
});
