// The config of each automation step type, checked as POST /automations checks it, without a
// server: the route's body schema (each type's STEP_CONFIG_SCHEMAS entry, request-schema.ts),
// then parseGraph's parseStepConfig (durations, rule trees). What each type stores, the fields
// it refuses, header-bound text kept to one line (no CR/LF), the limits (998 characters, 50
// variables, 50 reply-to addresses, 30 days), and `{var: …}` references where a value may come
// from the run. step-config-schema.unit.test.ts checks the schemas alone.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { requestCheck } from '../../src/api/request-schema.js';
import { CREATE_AUTOMATION_SCHEMA } from '../../src/automations/automation-fields.js';
import { type ConnectionInput, parseGraph, type StepInput } from '../../src/automations/graph.js';
import { isVarRef, STEP_TYPES, type StepType } from '../../src/automations/step-config.js';

const check = requestCheck(CREATE_AUTOMATION_SCHEMA);
const TRIGGER = { key: 't', type: 'trigger', config: { event_name: 'x' } };
/** A trigger is the only step (steps[0]); any other type follows a trigger (steps[1]). */
const at = (type: StepType) => (type === 'trigger' ? 'steps[0].config' : 'steps[1].config');
const C = at('delay');
const T = at('trigger');

/** The stored config of a lone step of `type` (after a trigger), as POST /automations makes it. */
function parse(type: StepType, config: unknown) {
  const step = { key: 's', type, ...(config === undefined ? {} : { config }) };
  const body = check({ name: 'n', steps: type === 'trigger' ? [step] : [TRIGGER, step], connections: [] }) as {
    steps: StepInput[];
    connections: ConnectionInput[];
  };
  return parseGraph(body.steps, body.connections).steps.at(-1)!.config;
}
const refuses = (type: StepType, config: unknown, message: string | RegExp, name = 'validation_error') =>
  assert.throws(
    () => parse(type, config),
    (err: any) => err.errorName === name && err.statusCode === 422 && (typeof message === 'string' ? err.message === message : message.test(err.message)),
    `${type} ${JSON.stringify(config)}`,
  );
const missing = (type: StepType, config: unknown, field: string) => refuses(type, config, `Missing \`${field}\` field.`, 'missing_required_field');

const UUID = '0b6a4d0e-8f2c-4c3e-9a1b-2d3e4f5a6b7c';
const TEMPLATE = { template: { id: 'welcome' } };
const EVENT_NAME =
  'be an event name: at most 255 characters on one line, not blank, not shaped like an id, and not starting with `resend:` (the prefix of system events)';
const DURATION = 'be a duration such as "30 minutes", "1 hour" or "3 days", at most 30 days';
const TEXT = 'be one line of text, not blank, of at most 998 characters';

describe('unit: step configs, every type', () => {
  it('knows the eight step types', () => {
    assert.deepEqual([...STEP_TYPES], ['trigger', 'send_email', 'delay', 'wait_for_event', 'condition', 'contact_update', 'contact_delete', 'add_to_segment']);
  });

  it('refuses a config that is not an object, and a missing one but for contact_delete, for every type', () => {
    for (const type of STEP_TYPES) {
      for (const config of [[], 'x', 5]) refuses(type, config, `The \`${at(type)}\` field must be an object.`);
      // A null config is one left out (request-schema.ts).
      if (type === 'contact_delete') continue;
      for (const config of [null, undefined]) missing(type, config, at(type));
    }
  });
});

describe('unit: trigger and wait_for_event', () => {
  it('stores the event name, unicode included', () => {
    assert.deepEqual(parse('trigger', { event_name: 'user.created' }), { event_name: 'user.created' });
    assert.deepEqual(parse('trigger', { event_name: 'commande.payée 🎉' }), { event_name: 'commande.payée 🎉' });
  });

  it('refuses a missing, empty, multi-line, reserved, id-like or overlong event name, as the /events routes do', () => {
    missing('trigger', {}, `${T}.event_name`);
    for (const name of ['  ', 'a\r\nb', 'RESEND:contact.created', UUID])
      refuses('trigger', { event_name: name }, `The \`${T}.event_name\` field must ${EVENT_NAME}, not ${JSON.stringify(name)}.`);
    refuses('trigger', { event_name: 'x'.repeat(256) }, `The \`${T}.event_name\` field must ${EVENT_NAME}.`);
    assert.deepEqual(parse('trigger', { event_name: 'x'.repeat(255) }), { event_name: 'x'.repeat(255) });
    refuses('trigger', { event_name: 'x', filter: 1 }, `Unknown field \`${T}.filter\`.`);
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
    refuses('wait_for_event', { event_name: 'paid', timeout: 'soon' }, `The \`${C}.timeout\` field must ${DURATION}, not "soon".`);
    refuses('wait_for_event', { event_name: 'paid', timeout: 5 }, `The \`${C}.timeout\` field must ${DURATION}, not 5.`);
    refuses(
      'wait_for_event',
      { event_name: 'paid', filter_rule: { field: 'amount', operator: 'exists' } },
      'The `steps[1].config.filter_rule.field` must be a string starting with `event.`, `contact.` or `wait_events.`.',
    );
    refuses('wait_for_event', { event_name: 'paid', filter_rule: 'event.x' }, `The \`${C}.filter_rule\` field must be an object or null.`);
  });
});

describe('unit: delay', () => {
  it('stores the duration as written, up to 30 days', () => {
    assert.deepEqual(parse('delay', { duration: '30 days' }), { duration: '30 days' });
    assert.deepEqual(parse('delay', { duration: ' 2 HOURS ' }), { duration: ' 2 HOURS ' });
    assert.deepEqual(parse('delay', { duration: '1 hour and 30 minutes' }), { duration: '1 hour and 30 minutes' });
  });

  it('refuses a missing duration, a number, text that is no duration, and anything past 30 days', () => {
    missing('delay', {}, `${C}.duration`);
    for (const duration of [null, 60, '60', '', 'tomorrow', '0 days', '30 days 1 ms', '5 weeks']) {
      refuses('delay', { duration }, `The \`${C}.duration\` field must ${DURATION}, not ${JSON.stringify(duration)}.`);
    }
    refuses('delay', { duration: '1 hour', seconds: 3 }, `Unknown field \`${C}.seconds\`.`);
  });
});

describe('unit: send_email', () => {
  it('stores the template reference and the optional fields given', () => {
    assert.deepEqual(parse('send_email', TEMPLATE), TEMPLATE);
    assert.deepEqual(
      parse('send_email', { template: { id: 'welcome', variables: null }, subject: null, reply_to: null, topic_id: null, from: null }),
      TEMPLATE,
    );
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
    for (const subject of ['Hi\r\nBcc: victim@example.org', 'Hi\nX-Evil: 1', 'Hi\0']) {
      refuses('send_email', { ...TEMPLATE, subject }, `The \`${C}.subject\` field must ${TEXT}, not ${JSON.stringify(subject)}.`);
    }
    refuses(
      'send_email',
      { ...TEMPLATE, from: 'a@acme.test\rBcc: v@example.org' },
      `The \`${C}.from\` field must ${TEXT}, not "a@acme.test\\rBcc: v@example.org".`,
    );
    refuses(
      'send_email',
      { ...TEMPLATE, reply_to: ['ok@acme.test', 'x@acme.test\r\nBcc: v'] },
      `The \`${C}.reply_to[1]\` field must ${TEXT}, not "x@acme.test\\r\\nBcc: v".`,
    );
    refuses(
      'send_email',
      { ...TEMPLATE, reply_to: 'x@acme.test\nBcc: v' },
      /`steps\[1\]\.config\.reply_to` field must be an address, or an array of 1 to 50 addresses, each one line/,
    );
  });

  it('takes a subject of up to 998 characters, and refuses a blank one', () => {
    assert.deepEqual(parse('send_email', { ...TEMPLATE, subject: 'x'.repeat(998) }), { ...TEMPLATE, subject: 'x'.repeat(998) });
    refuses('send_email', { ...TEMPLATE, subject: 'x'.repeat(999) }, `The \`${C}.subject\` field must ${TEXT}.`);
    refuses('send_email', { ...TEMPLATE, subject: '  ' }, `The \`${C}.subject\` field must ${TEXT}, not "  ".`);
    refuses('send_email', { ...TEMPLATE, subject: 5 }, `The \`${C}.subject\` field must ${TEXT}, not 5.`);
  });

  it('takes 1 to 50 reply-to addresses', () => {
    assert.equal((parse('send_email', { ...TEMPLATE, reply_to: Array(50).fill('r@acme.test') }).reply_to as string[]).length, 50);
    const message = `The \`${C}.reply_to\` field must be an address, or an array of 1 to 50 addresses, each one line`;
    refuses('send_email', { ...TEMPLATE, reply_to: [] }, `${message}, not [].`);
    refuses('send_email', { ...TEMPLATE, reply_to: Array(51).fill('r@acme.test') }, `${message}.`);
    refuses('send_email', { ...TEMPLATE, reply_to: [5] }, `The \`${C}.reply_to[0]\` field must ${TEXT}, not 5.`);
  });

  it('refuses a template that is not `{id, variables?}` with a non-blank id', () => {
    missing('send_email', {}, `${C}.template`);
    refuses('send_email', { template: 'welcome' }, `The \`${C}.template\` field must be an object: \`{id, variables?}\`, not "welcome".`);
    missing('send_email', { template: {} }, `${C}.template.id`);
    refuses('send_email', { template: { id: ' ' } }, `The \`${C}.template.id\` field must be a template id or alias, not " ".`);
    refuses('send_email', { template: { id: 'x', alias: 'y' } }, `Unknown field \`${C}.template.alias\`.`);
    refuses('send_email', { ...TEMPLATE, html: '<p>x</p>' }, `Unknown field \`${C}.html\`.`);
  });

  it('checks template variables: an object of at most 50 keys of [A-Za-z0-9_] up to 50 characters', () => {
    const keys = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`K${i}`, 1]));
    assert.equal(Object.keys((parse('send_email', { template: { id: 'x', variables: keys(50) } }).template as any).variables).length, 50);
    refuses('send_email', { template: { id: 'x', variables: keys(51) } }, `The \`${C}.template.variables\` field must be an object of at most 50 variables.`);
    refuses('send_email', { template: { id: 'x', variables: [] } }, `The \`${C}.template.variables\` field must be an object of at most 50 variables, not [].`);
    for (const key of ['A-B', 'prénom', 'a b', '', 'A'.repeat(51)]) {
      refuses(
        'send_email',
        { template: { id: 'x', variables: { [key]: 1 } } },
        `The \`${C}.template.variables\` field must have keys of ASCII letters, digits and \`_\` (at most 50), not ${JSON.stringify(key)}.`,
      );
    }
    assert.deepEqual(parse('send_email', { template: { id: 'x', variables: { ['A'.repeat(50)]: 1 } } }), {
      template: { id: 'x', variables: { ['A'.repeat(50)]: 1 } },
    });
  });

  // (JSON carries no Infinity or NaN.)
  it('refuses variable values that are null, arrays, or references outside the namespaces', () => {
    const variable = (v: unknown) => ({ template: { id: 'x', variables: { V: v } } });
    for (const v of [null, [1]]) {
      refuses(
        'send_email',
        variable(v),
        `The \`${C}.template.variables.V\` field must be a string, a number, a boolean or \`{"var": …}\`, not ${JSON.stringify(v)}.`,
      );
    }
    const namespaces = 'name a field: `event.<field>`, `contact.<field>` or `wait_events.<event>.<field>`';
    refuses('send_email', variable({ var: 'plan' }), `The \`${C}.template.variables.V.var\` field must ${namespaces}, not "plan".`);
    refuses('send_email', variable({ var: 5 }), `The \`${C}.template.variables.V.var\` field must ${namespaces}, not 5.`);
    refuses('send_email', variable({ var: 'event.x', default: 1 }), `Unknown field \`${C}.template.variables.V.default\`.`);
    missing('send_email', variable({}), `${C}.template.variables.V.var`);
  });

  it('lower-cases a topic id and refuses one that is no id', () => {
    assert.equal(parse('send_email', { ...TEMPLATE, topic_id: UUID.toUpperCase() }).topic_id, UUID);
    refuses('send_email', { ...TEMPLATE, topic_id: 'news' }, `The \`${C}.topic_id\` field must be a topic id, not "news".`);
  });
});

describe('unit: condition', () => {
  it('stores the rule tree', () => {
    assert.deepEqual(parse('condition', { type: 'or', rules: [{ field: 'contact.email', operator: 'ends_with', value: '@acme.test' }] }), {
      type: 'or',
      rules: [{ type: 'rule', field: 'contact.email', operator: 'ends_with', value: '@acme.test' }],
    });
  });

  // The rule grammar is rules.ts parseRule's (rules.unit.test.ts), with the step's path.
  it('refuses an empty config and names the path inside it', () => {
    refuses('condition', {}, 'The `steps[1].config.type` must be one of "rule" | "and" | "or".');
    refuses('condition', { field: 'event.x', operator: 'gt', value: '1' }, 'The `steps[1].config.value` must be a number with the `gt` operator.');
    refuses(
      'condition',
      { type: 'and', rules: [{ field: 'event.x', operator: 'exists', value: null }] },
      'The `steps[1].config.rules[0].value` must be left out with the `exists` operator.',
    );
  });
});

describe('unit: contact_update, contact_delete, add_to_segment', () => {
  it('stores names, unsubscribed and properties as values or references', () => {
    const config = {
      first_name: 'Zoë',
      last_name: null,
      unsubscribed: { var: 'event.unsub' },
      properties: { plan: 'pro', n: 3, b: false, z: null, v: { var: 'contact.plan' } },
    };
    assert.deepEqual(parse('contact_update', config), config);
  });

  it('refuses a change of nothing, unknown fields and values of the wrong kind', () => {
    refuses('contact_update', {}, `The \`${C}\` field must change at least one of first_name, last_name, unsubscribed, properties, not {}.`);
    refuses('contact_update', { email: 'x@example.org' }, `Unknown field \`${C}.email\`.`);
    refuses('contact_update', { first_name: 5 }, `The \`${C}.first_name\` field must be a string, null or \`{"var": …}\`, not 5.`);
    refuses('contact_update', { unsubscribed: 'yes' }, `The \`${C}.unsubscribed\` field must be a boolean or \`{"var": …}\`, not "yes".`);
    refuses('contact_update', { unsubscribed: null }, `The \`${C}.unsubscribed\` field must be a boolean or \`{"var": …}\`, not null.`);
    refuses('contact_update', { properties: [] }, `The \`${C}.properties\` field must be an object of property keys to values, not [].`);
    refuses('contact_update', { properties: null }, `The \`${C}.properties\` field must be an object of property keys to values, not null.`);
    refuses(
      'contact_update',
      { properties: { x: [1] } },
      `The \`${C}.properties.x\` field must be a string, a number, a boolean, null or \`{"var": …}\`, not [1].`,
    );
  });

  // The contacts API refuses line breaks and names over 256 characters (contact-fields.ts
  // NAME_SCHEMA); the step refuses them when the automation is written, not at every run.
  it('refuses a literal name the contacts API refuses: a line break, or more than 256 characters', () => {
    refuses('contact_update', { first_name: 'Ann\r\nBcc: v' }, `The \`${C}.first_name\` field must not contain line breaks, not "Ann\\r\\nBcc: v".`);
    refuses('contact_update', { last_name: 'x'.repeat(257) }, `The \`${C}.last_name\` field must be at most 256 characters.`);
    assert.deepEqual(parse('contact_update', { last_name: 'x'.repeat(256) }), { last_name: 'x'.repeat(256) });
  });

  it('contact_delete takes an empty or missing config and nothing else', () => {
    for (const config of [{}, null, undefined]) assert.deepEqual(parse('contact_delete', config), {});
    refuses('contact_delete', { contact_id: UUID }, `Unknown field \`${C}.contact_id\`.`);
  });

  it('add_to_segment takes a segment id and nothing else', () => {
    assert.deepEqual(parse('add_to_segment', { segment_id: UUID }), { segment_id: UUID });
    missing('add_to_segment', {}, `${C}.segment_id`);
    refuses('add_to_segment', { segment_id: 'vip' }, `The \`${C}.segment_id\` field must be a segment id, not "vip".`);
    refuses('add_to_segment', { segment_id: UUID, name: 'VIP' }, `Unknown field \`${C}.name\`.`);
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
