// Each step type's config schema (STEP_CONFIG_SCHEMAS) as the routes' body schemas carry it:
// the request check alone (request-schema.ts), before any handler, on POST and PATCH
// /automations. For every type: a good config passes, a typical bad one is refused with a
// message naming the field, an unknown field is refused; and the schema of another type never
// applies. What the schemas leave to parseStepConfig (a duration's form, rule trees) is
// step-config.unit.test.ts's.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { requestCheck } from '../../src/api/request-schema.js';
import type { JsonSchema } from '../../src/api/schema.js';
import { CREATE_AUTOMATION_SCHEMA, PATCH_AUTOMATION_SCHEMA } from '../../src/automations/automation-fields.js';
import { STEP_CONFIG_SCHEMAS, STEP_TYPES, type StepType } from '../../src/automations/step-config.js';

const UUID = '0b6a4d0e-8f2c-4c3e-9a1b-2d3e4f5a6b7c';
const TRIGGER = { key: 't', type: 'trigger', config: { event_name: 'x' } };

/** Per type: a good config, a typical bad one and the message it gets (its path is `steps[1].config`). */
const CASES: Record<StepType, { good: unknown; bad: unknown; message: string; name?: string }> = {
  trigger: {
    good: { event_name: 'user.created' },
    bad: { event_name: 'resend:contact.created' },
    message:
      'The `steps[1].config.event_name` field must be an event name: at most 255 characters on one line, not blank, not shaped like an id, and not starting with `resend:` (the prefix of system events), not "resend:contact.created".',
  },
  send_email: {
    good: { template: { id: 'welcome', variables: { NAME: { var: 'contact.first_name' }, N: 1 } }, subject: 'Hi', reply_to: ['a@acme.test'], topic_id: UUID },
    bad: { template: { id: 'welcome' }, subject: 'Hi\r\nBcc: victim@example.org' },
    message: 'The `steps[1].config.subject` field must be one line of text, not blank, of at most 998 characters, not "Hi\\r\\nBcc: victim@example.org".',
  },
  delay: {
    good: { duration: '3 days' },
    bad: { duration: 3 },
    message: 'The `steps[1].config.duration` field must be a duration such as "30 minutes", "1 hour" or "3 days", at most 30 days, not 3.',
  },
  wait_for_event: {
    good: { event_name: 'paid', timeout: '1 day', filter_rule: { field: 'event.amount', operator: 'gte', value: 10 } },
    bad: { timeout: '1 day' },
    message: 'Missing `steps[1].config.event_name` field.',
    name: 'missing_required_field',
  },
  condition: {
    good: { type: 'and', rules: [{ field: 'contact.plan', operator: 'eq', value: 'pro' }] },
    bad: ['contact.plan'],
    message: 'The `steps[1].config` field must be an object.',
  },
  contact_update: {
    good: { first_name: { var: 'event.first_name' }, last_name: null, unsubscribed: false, properties: { plan: 'pro' } },
    bad: { unsubscribed: 'yes' },
    message: 'The `steps[1].config.unsubscribed` field must be a boolean or `{"var": …}`, not "yes".',
  },
  contact_delete: { good: {}, bad: 5, message: 'The `steps[1].config` field must be an object.' },
  add_to_segment: {
    good: { segment_id: UUID },
    bad: { segment_id: 'vip' },
    message: 'The `steps[1].config.segment_id` field must be a segment id, not "vip".',
  },
};

const routes = [
  ['POST', requestCheck(CREATE_AUTOMATION_SCHEMA)],
  ['PATCH', requestCheck(PATCH_AUTOMATION_SCHEMA)],
] as const;

/** A body whose second step is of `type` (a trigger's own test puts it after a delay: the schema does not count triggers). */
function body(type: StepType, config: unknown) {
  const first = type === 'trigger' ? { key: 'd', type: 'delay', config: { duration: '1 hour' } } : TRIGGER;
  return { name: 'n', steps: [first, { key: 's', type, config }], connections: [] };
}

function refuses(check: (body: unknown) => unknown, value: unknown, message: string, name = 'validation_error') {
  assert.throws(
    () => check(value),
    (err: any) => err.errorName === name && err.statusCode === 422 && err.message === message,
    `${message}: ${JSON.stringify(value)}`,
  );
}

describe('unit: step config schemas, in the routes’ bodies', () => {
  it('has a schema for every step type, none of which takes unknown fields but the rule tree', () => {
    assert.deepEqual(Object.keys(STEP_CONFIG_SCHEMAS), [...STEP_TYPES]);
    for (const type of STEP_TYPES) {
      const schema = STEP_CONFIG_SCHEMAS[type];
      assert.equal(schema.type, 'object', type);
      assert.ok(schema.description, `${type} is described`);
      // The rule grammar is rules.ts parseRule's: its schema documents it, and refuses nothing but a non-object.
      if (type !== 'condition') assert.equal(schema.additionalProperties, false, type);
    }
  });

  it('documents each type in the step schema as `if: {type: T} then: {config: schema of T}`', () => {
    const step = (CREATE_AUTOMATION_SCHEMA.properties!.steps as JsonSchema).items!;
    const branches = step.allOf as (JsonSchema & { if: JsonSchema; then: JsonSchema })[];
    assert.deepEqual(
      branches.map((b) => b.if.properties!.type!.const),
      [...STEP_TYPES],
    );
    for (const [i, type] of STEP_TYPES.entries()) assert.equal(branches[i]!.then.properties!.config, STEP_CONFIG_SCHEMAS[type]);
    assert.equal(PATCH_AUTOMATION_SCHEMA.properties!.steps, CREATE_AUTOMATION_SCHEMA.properties!.steps);
  });

  for (const [method, check] of routes) {
    describe(`${method} /automations`, () => {
      for (const type of STEP_TYPES) {
        const { good, bad, message, name } = CASES[type];
        it(`${type}: takes a good config, refuses a bad one and an unknown field`, () => {
          assert.doesNotThrow(() => check(body(type, good)));
          refuses(check, body(type, bad), message, name);
          const withExtra = type === 'condition' ? undefined : { ...(good as object), colour: 'red' };
          if (withExtra) refuses(check, body(type, withExtra), 'Unknown field `steps[1].config.colour`.');
        });
      }

      it("judges a config by its own step's type only", () => {
        // A delay's config on a trigger, a trigger's on a delay.
        refuses(check, body('trigger', { duration: '1 hour' }), 'Missing `steps[1].config.event_name` field.', 'missing_required_field');
        refuses(check, body('delay', { event_name: 'x' }), 'Missing `steps[1].config.duration` field.', 'missing_required_field');
        // An unknown type: no config schema applies, the type is named.
        refuses(
          check,
          body('webhook' as StepType, { url: 'https://example.org' }),
          'The `steps[1].type` field must be one of "trigger" | "send_email" | "delay" | "wait_for_event" | "condition" | "contact_update" | "contact_delete" | "add_to_segment", not "webhook".',
        );
      });

      it('needs a config for every type but contact_delete; null is one left out', () => {
        for (const type of STEP_TYPES) {
          const step = { key: 's', type };
          const steps = [type === 'trigger' ? { key: 'd', type: 'delay', config: { duration: '1 hour' } } : TRIGGER, step];
          for (const config of [undefined, null]) {
            const value = { name: 'n', steps: [steps[0], { ...step, ...(config === null ? { config } : {}) }], connections: [] };
            if (type === 'contact_delete') assert.doesNotThrow(() => check(value));
            else refuses(check, value, 'Missing `steps[1].config` field.', 'missing_required_field');
          }
        }
      });
    });
  }
});
