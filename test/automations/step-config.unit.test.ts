// The config of each automation step type, checked as it is written, without a server: what
// each type stores, the fields it refuses, header-bound text kept to one line (no CR/LF), the
// limits (998 characters, 50 variables, 50 reply-to addresses, 30 days), and `{var: …}`
// references where a value may come from the run.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { validation } from '../../src/api/errors.js';
import { isVarRef, parseStepConfig, STEP_TYPES, type StepType } from '../../src/automations/step-config.js';

const fail = (message: string) => validation(`Step \`s\`: ${message}`);
const parse = (type: StepType, config: unknown) => parseStepConfig(type, config, fail);
const refuses = (type: StepType, config: unknown, message: string | RegExp) =>
  assert.throws(
    () => parse(type, config),
    (err: any) =>
      err.errorName === 'validation_error' &&
      err.statusCode === 422 &&
      (typeof message === 'string' ? err.message === `Step \`s\`: ${message}` : message.test(err.message)),
    `${type} ${JSON.stringify(config)}`,
  );

const UUID = '0b6a4d0e-8f2c-4c3e-9a1b-2d3e4f5a6b7c';
const TEMPLATE = { template: { id: 'welcome' } };

describe('unit: step configs, every type', () => {
  it('knows the eight step types', () => {
    assert.deepEqual([...STEP_TYPES], ['trigger', 'send_email', 'delay', 'wait_for_event', 'condition', 'contact_update', 'contact_delete', 'add_to_segment']);
  });

  it('refuses a config that is not an object, for every type', () => {
    for (const type of STEP_TYPES) {
      for (const config of [null, undefined, [], 'x', 5]) refuses(type, config, '`config` must be an object.');
    }
  });
});

describe('unit: trigger and wait_for_event', () => {
  it('stores the event name, unicode included', () => {
    assert.deepEqual(parse('trigger', { event_name: 'user.created' }), { event_name: 'user.created' });
    assert.deepEqual(parse('trigger', { event_name: 'commande.payée 🎉' }), { event_name: 'commande.payée 🎉' });
  });

  it('refuses a missing, empty, multi-line, reserved, id-like or overlong event name', () => {
    refuses('trigger', {}, 'Missing `config.event_name` field.');
    refuses('trigger', { event_name: '  ' }, '`config.event_name` must not be empty.');
    refuses('trigger', { event_name: 'a\r\nb' }, '`config.event_name` must not contain control characters.');
    refuses('trigger', { event_name: 'RESEND:contact.created' }, '`config.event_name` cannot start with `resend:`: the prefix is reserved for system events.');
    refuses('trigger', { event_name: UUID }, '`config.event_name` must not look like an id.');
    refuses('trigger', { event_name: 'x'.repeat(256) }, '`config.event_name` must be at most 255 characters.');
    assert.deepEqual(parse('trigger', { event_name: 'x'.repeat(255) }), { event_name: 'x'.repeat(255) });
    refuses('trigger', { event_name: 'x', filter: 1 }, '`config.filter` is not a field of this step type.');
  });

  it('wait_for_event stores the event, an optional timeout and an optional filter rule', () => {
    assert.deepEqual(parse('wait_for_event', { event_name: 'paid' }), { event_name: 'paid' });
    assert.deepEqual(parse('wait_for_event', { event_name: 'paid', timeout: null, filter_rule: null }), { event_name: 'paid' });
    assert.deepEqual(parse('wait_for_event', { event_name: 'paid', timeout: '2d', filter_rule: { field: 'event.amount', operator: 'gte', value: 10 } }), {
      event_name: 'paid',
      timeout: '2d',
      filter_rule: { type: 'rule', field: 'event.amount', operator: 'gte', value: 10 },
    });
  });

  it('wait_for_event refuses a timeout that is no duration and a filter outside the namespaces', () => {
    refuses(
      'wait_for_event',
      { event_name: 'paid', timeout: 'soon' },
      '`config.timeout` must be a duration such as "30 minutes", "1 hour" or "3 days", at most 30 days.',
    );
    refuses(
      'wait_for_event',
      { event_name: 'paid', filter_rule: { field: 'amount', operator: 'exists' } },
      /`config\.filter_rule\.field` must be a string starting with `event\.`/,
    );
  });
});

describe('unit: delay', () => {
  it('stores the duration as written, up to 30 days', () => {
    assert.deepEqual(parse('delay', { duration: '30 days' }), { duration: '30 days' });
    assert.deepEqual(parse('delay', { duration: ' 2 HOURS ' }), { duration: ' 2 HOURS ' });
    assert.deepEqual(parse('delay', { duration: '1 hour and 30 minutes' }), { duration: '1 hour and 30 minutes' });
  });

  it('refuses a missing duration, a number, text that is no duration, and anything past 30 days', () => {
    const message = '`config.duration` must be a duration such as "30 minutes", "1 hour" or "3 days", at most 30 days.';
    refuses('delay', {}, '`config.duration` is required.');
    refuses('delay', { duration: null }, '`config.duration` is required.');
    for (const duration of [60, '60', '', 'tomorrow', '0 days', '30 days 1 ms', '5 weeks']) refuses('delay', { duration }, message);
    refuses('delay', { duration: '1 hour', seconds: 3 }, '`config.seconds` is not a field of this step type.');
  });
});

describe('unit: send_email', () => {
  it('stores the template reference and the optional fields given', () => {
    assert.deepEqual(parse('send_email', TEMPLATE), TEMPLATE);
    assert.deepEqual(parse('send_email', { ...TEMPLATE, subject: null, from: undefined, reply_to: null, topic_id: null }), TEMPLATE);
    assert.deepEqual(
      parse('send_email', {
        template: { id: 'welcome', variables: { NAME: { var: 'contact.first_name' }, COUNT: 3, VIP: true, CODE: 'X1' } },
        subject: 'Hello 👋',
        from: 'Acme <hello@acme.test>',
        reply_to: ['a@acme.test', 'b@acme.test'],
        topic_id: UUID.toUpperCase(),
      }),
      {
        template: { id: 'welcome', variables: { NAME: { var: 'contact.first_name' }, COUNT: 3, VIP: true, CODE: 'X1' } },
        subject: 'Hello 👋',
        from: 'Acme <hello@acme.test>',
        reply_to: ['a@acme.test', 'b@acme.test'],
        topic_id: UUID,
      },
    );
    assert.deepEqual(parse('send_email', { ...TEMPLATE, reply_to: 'r@acme.test' }), { ...TEMPLATE, reply_to: 'r@acme.test' });
  });

  it('refuses CR, LF or NUL in subject, from and each reply_to: they become header lines', () => {
    refuses('send_email', { ...TEMPLATE, subject: 'Hi\r\nBcc: victim@example.org' }, '`config.subject` must be one line of at most 998 characters.');
    refuses('send_email', { ...TEMPLATE, subject: 'Hi\nX-Evil: 1' }, '`config.subject` must be one line of at most 998 characters.');
    refuses('send_email', { ...TEMPLATE, subject: 'Hi\0' }, '`config.subject` must be one line of at most 998 characters.');
    refuses('send_email', { ...TEMPLATE, from: 'a@acme.test\rBcc: v@example.org' }, '`config.from` must be one line of at most 998 characters.');
    refuses(
      'send_email',
      { ...TEMPLATE, reply_to: ['ok@acme.test', 'x@acme.test\r\nBcc: v@example.org'] },
      '`config.reply_to` must be one line of at most 998 characters.',
    );
  });

  it('takes a subject of up to 998 characters, and refuses a blank one', () => {
    assert.deepEqual(parse('send_email', { ...TEMPLATE, subject: 'x'.repeat(998) }), { ...TEMPLATE, subject: 'x'.repeat(998) });
    refuses('send_email', { ...TEMPLATE, subject: 'x'.repeat(999) }, '`config.subject` must be one line of at most 998 characters.');
    refuses('send_email', { ...TEMPLATE, subject: '  ' }, '`config.subject` must be a non-empty string.');
    refuses('send_email', { ...TEMPLATE, subject: 5 }, '`config.subject` must be a non-empty string.');
  });

  it('takes 1 to 50 reply-to addresses', () => {
    assert.equal((parse('send_email', { ...TEMPLATE, reply_to: Array(50).fill('r@acme.test') }).reply_to as string[]).length, 50);
    refuses('send_email', { ...TEMPLATE, reply_to: [] }, '`config.reply_to` must be an address or 1 to 50 addresses.');
    refuses('send_email', { ...TEMPLATE, reply_to: Array(51).fill('r@acme.test') }, '`config.reply_to` must be an address or 1 to 50 addresses.');
    refuses('send_email', { ...TEMPLATE, reply_to: [5] }, '`config.reply_to` must be a non-empty string.');
  });

  it('refuses a template that is not `{id, variables?}` with a non-blank id', () => {
    refuses('send_email', {}, '`config.template` must be an object: `{id, variables?}`.');
    refuses('send_email', { template: 'welcome' }, '`config.template` must be an object: `{id, variables?}`.');
    refuses('send_email', { template: {} }, '`config.template.id` must be a template id or alias.');
    refuses('send_email', { template: { id: ' ' } }, '`config.template.id` must be a template id or alias.');
    refuses('send_email', { template: { id: 'x', alias: 'y' } }, '`config.template.alias` is not a field of a template reference.');
    refuses('send_email', { ...TEMPLATE, html: '<p>x</p>' }, '`config.html` is not a field of this step type.');
  });

  it('checks template variables: an object of at most 50 keys of [A-Za-z0-9_] up to 50 characters', () => {
    const keys = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`K${i}`, 1]));
    assert.equal(Object.keys((parse('send_email', { template: { id: 'x', variables: keys(50) } }).template as any).variables).length, 50);
    refuses('send_email', { template: { id: 'x', variables: keys(51) } }, '`config.template.variables` must have at most 50 variables.');
    refuses('send_email', { template: { id: 'x', variables: [] } }, '`config.template.variables` must be an object.');
    const badKey = '`config.template.variables` keys must be ASCII letters, digits and `_` (at most 50).';
    for (const key of ['A-B', 'prénom', 'a b', '', 'A'.repeat(51)]) refuses('send_email', { template: { id: 'x', variables: { [key]: 1 } } }, badKey);
    assert.deepEqual(parse('send_email', { template: { id: 'x', variables: { ['A'.repeat(50)]: 1 } } }), {
      template: { id: 'x', variables: { ['A'.repeat(50)]: 1 } },
    });
  });

  it('refuses variable values that are null, not finite, arrays, or references outside the namespaces', () => {
    const value = '`config.template.variables.V` must be a string, a number, a boolean or `{"var": …}`.';
    for (const v of [null, Infinity, NaN, [1]]) refuses('send_email', { template: { id: 'x', variables: { V: v } } }, value);
    const ref = '`config.template.variables.V` must be a value or `{"var": "event.<field>"}` (or `contact.<field>`, `wait_events.<event>.<field>`).';
    for (const v of [{ var: 'plan' }, { var: 'event.x', default: 1 }, { var: 5 }, {}])
      refuses('send_email', { template: { id: 'x', variables: { V: v } } }, ref);
  });

  it('lower-cases a topic id and refuses one that is no id', () => {
    assert.equal(parse('send_email', { ...TEMPLATE, topic_id: UUID.toUpperCase() }).topic_id, UUID);
    refuses('send_email', { ...TEMPLATE, topic_id: 'news' }, '`config.topic_id` must be a topic id.');
  });
});

describe('unit: condition', () => {
  it('stores the rule tree', () => {
    assert.deepEqual(parse('condition', { type: 'or', rules: [{ field: 'contact.email', operator: 'ends_with', value: '@acme.test' }] }), {
      type: 'or',
      rules: [{ type: 'rule', field: 'contact.email', operator: 'ends_with', value: '@acme.test' }],
    });
  });

  it('refuses an empty config and names the path inside it', () => {
    refuses('condition', {}, '`config.type` must be one of "rule" | "and" | "or".');
    refuses('condition', { field: 'event.x', operator: 'gt', value: '1' }, '`config.value` must be a number with the `gt` operator.');
  });
});

describe('unit: contact_update, contact_delete, add_to_segment', () => {
  it('stores names, unsubscribed and properties as values or references', () => {
    assert.deepEqual(
      parse('contact_update', {
        first_name: 'Zoë',
        last_name: null,
        unsubscribed: { var: 'event.unsub' },
        properties: { plan: 'pro', n: 3, b: false, z: null, v: { var: 'contact.plan' } },
      }),
      {
        first_name: 'Zoë',
        last_name: null,
        unsubscribed: { var: 'event.unsub' },
        properties: { plan: 'pro', n: 3, b: false, z: null, v: { var: 'contact.plan' } },
      },
    );
  });

  it('refuses a change of nothing, unknown fields and values of the wrong kind', () => {
    refuses('contact_update', {}, '`config` must change at least one of first_name, last_name, unsubscribed, properties.');
    refuses('contact_update', { email: 'x@example.org' }, '`config.email` is not a field of this step type.');
    refuses('contact_update', { first_name: 5 }, '`config.first_name` must be a string, null or `{"var": …}`.');
    refuses('contact_update', { unsubscribed: 'yes' }, '`config.unsubscribed` must be a boolean or `{"var": …}`.');
    refuses('contact_update', { properties: [] }, '`config.properties` must be an object of property keys to values.');
    refuses('contact_update', { properties: { x: [1] } }, '`config.properties.x` must be a string, a number, a boolean, null or `{"var": …}`.');
  });

  // The contacts API refuses line breaks and names over 256 characters (contact-fields.ts
  // parseName); the step refuses them when the automation is written, not at every run.
  it('refuses a literal name the contacts API refuses: a line break, or more than 256 characters', () => {
    refuses('contact_update', { first_name: 'Ann\r\nBcc: victim@example.org' }, /`config\.first_name`.*line breaks/);
    refuses('contact_update', { last_name: 'x'.repeat(257) }, /`config\.last_name`.*256/);
  });

  it('contact_delete takes an empty config and nothing else', () => {
    assert.deepEqual(parse('contact_delete', {}), {});
    refuses('contact_delete', { contact_id: UUID }, '`config.contact_id` is not a field of this step type.');
  });

  it('add_to_segment takes a segment id and nothing else', () => {
    assert.deepEqual(parse('add_to_segment', { segment_id: UUID }), { segment_id: UUID });
    refuses('add_to_segment', {}, '`config.segment_id` must be a segment id.');
    refuses('add_to_segment', { segment_id: 'vip' }, '`config.segment_id` must be a segment id.');
    refuses('add_to_segment', { segment_id: UUID, name: 'VIP' }, '`config.name` is not a field of this step type.');
  });
});

describe('unit: isVarRef', () => {
  it('is an object with exactly one string field, var', () => {
    assert.equal(isVarRef({ var: 'event.x' }), true);
    assert.equal(isVarRef({ var: 'anything' }), true, 'the namespace is checked where it is parsed');
    for (const value of [{ var: 1 }, { var: 'event.x', y: 1 }, {}, null, [], 'event.x', ['event.x']]) {
      assert.equal(isVarRef(value), false, JSON.stringify(value));
    }
  });
});
