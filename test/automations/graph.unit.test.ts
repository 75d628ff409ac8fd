// An automation's workflow graph, checked as a whole without a server: step and connection
// shapes, unique keys, exactly one trigger with nothing leading into it, connection types per
// step type, duplicates, cycles (named, self-loops included) against diamonds that are fine,
// the limits, and which steps a completed step leads to.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { requestCheck } from '../../src/api/request-schema.js';
import { CREATE_AUTOMATION_SCHEMA } from '../../src/automations/automation-fields.js';
import { CONNECTION_TYPES, type ConnectionDef, type ConnectionInput, parseGraph, type StepInput, successors } from '../../src/automations/graph.js';

// A graph as a request gives it: its shape checked by the routes' schema (request-schema.ts),
// then judged as a whole by parseGraph, as POST /automations does.
const check = requestCheck(CREATE_AUTOMATION_SCHEMA);
function checkedGraph(steps: unknown, connections: unknown) {
  const body = check({ name: 'x', steps, connections }) as { steps: StepInput[]; connections: ConnectionInput[] };
  return parseGraph(body.steps, body.connections);
}

const TRIGGER = { key: 'start', type: 'trigger', config: { event_name: 'user.created' } };
const step = (key: string, type = 'delay', config: unknown = { duration: '1 hour' }) => ({ key, type, config });
const refuses = (steps: unknown, connections: unknown, message: string, name = 'validation_error') =>
  assert.throws(
    () => checkedGraph(steps, connections),
    (err: any) => err.errorName === name && err.statusCode === 422 && err.message === message,
    message,
  );

describe('unit: parseGraph, the shape', () => {
  it('returns a lone trigger with its event', () => {
    assert.deepEqual(checkedGraph([TRIGGER], []), { steps: [TRIGGER], connections: [], triggerEvent: 'user.created' });
  });

  it("fills in a connection's type as default and contact_delete's missing config as {}", () => {
    const graph = checkedGraph([TRIGGER, { key: 'bye', type: 'contact_delete' }], [{ from: 'start', to: 'bye' }]);
    assert.deepEqual(graph.steps[1], { key: 'bye', type: 'contact_delete', config: {} });
    assert.deepEqual(graph.connections, [{ from: 'start', to: 'bye', type: 'default' }]);
    assert.deepEqual(checkedGraph([TRIGGER, { key: 'bye', type: 'contact_delete', config: null }], []).steps[1]!.config, {});
  });

  it('names steps and connections missing', () => {
    refuses(undefined, [], 'Missing `steps` field.', 'missing_required_field');
    refuses(null, null, 'Missing `steps` field.', 'missing_required_field');
    refuses([TRIGGER], undefined, 'Missing `connections` field.', 'missing_required_field');
  });

  it('takes 1 to 150 steps and at most 500 connections', () => {
    refuses([], [], 'The `steps` field must be an array of 1 to 150 steps, not [].');
    refuses({ 0: TRIGGER }, [], `The \`steps\` field must be an array of 1 to 150 steps, not ${JSON.stringify({ 0: TRIGGER })}.`);
    const many = (n: number) => [TRIGGER, ...Array.from({ length: n - 1 }, (_, i) => ({ key: `s${i}`, type: 'contact_delete' }))];
    assert.equal(checkedGraph(many(150), []).steps.length, 150);
    refuses(many(151), [], 'The `steps` field must be an array of 1 to 150 steps.');
    refuses([TRIGGER], {}, 'The `connections` field must be an array of at most 500 connections, not {}.');
    refuses([TRIGGER], Array(501).fill({ from: 'start', to: 'x' }), 'The `connections` field must be an array of at most 500 connections.');
  });

  it('refuses a step that is not `{key, type, config}`, naming its index', () => {
    refuses([TRIGGER, 'delay'], [], 'The `steps[1]` field must be an object: `{key, type, config}`, not "delay".');
    refuses([TRIGGER, { ...step('a'), next: 'b' }], [], 'Unknown field `steps[1].next`.');
  });

  it('takes keys of 1 to 100 ASCII letters, digits, _ - . and :', () => {
    assert.equal(checkedGraph([TRIGGER, step('a-b_c.d:e')], []).steps[1]!.key, 'a-b_c.d:e');
    assert.equal(checkedGraph([TRIGGER, step('k'.repeat(100))], []).steps[1]!.key, 'k'.repeat(100));
    const message = 'The `steps[1].key` field must be 1 to 100 ASCII letters, digits, `_`, `-`, `.` or `:`';
    for (const key of ['', 'a b', 'ü', 'a/b', 'a\nb', 5]) refuses([TRIGGER, step(key as string)], [], `${message}, not ${JSON.stringify(key)}.`);
    // A value too long to quote is not repeated; a key left out is missing.
    refuses([TRIGGER, step('k'.repeat(101))], [], `${message}.`);
    refuses([TRIGGER, step(undefined as unknown as string)], [], 'Missing `steps[1].key` field.', 'missing_required_field');
  });

  it('refuses an unknown step type, case included, naming the step by its index', () => {
    refuses(
      [TRIGGER, step('hook', 'webhook', {})],
      [],
      'The `steps[1].type` field must be one of "trigger" | "send_email" | "delay" | "wait_for_event" | "condition" | "contact_update" | "contact_delete" | "add_to_segment", not "webhook".',
    );
    assert.throws(() => checkedGraph([TRIGGER, step('a', 'Delay')], []), /`steps\[1\]\.type` field must be one of .*, not "Delay"\./);
  });

  it("names a config's field by its path, and a config left out as missing", () => {
    refuses(
      [TRIGGER, step('wait', 'delay', { duration: 5 })],
      [],
      'The `steps[1].config.duration` field must be a duration such as "30 minutes", "1 hour" or "3 days", at most 30 days, not 5.',
    );
    refuses(
      [TRIGGER, step('wait', 'delay', { duration: '31 days' })],
      [],
      'The `steps[1].config.duration` field must be a duration such as "30 minutes", "1 hour" or "3 days", at most 30 days, not "31 days".',
    );
    refuses([TRIGGER, { key: 'wait', type: 'delay' }], [], 'Missing `steps[1].config` field.', 'missing_required_field');
  });

  it('refuses two steps with one key', () => {
    refuses([TRIGGER, step('a'), step('a', 'contact_delete', {})], [], 'Step `a`: another step has the same key.');
  });

  it('needs exactly one trigger', () => {
    refuses([step('a')], [], 'An automation needs exactly one `trigger` step; it has 0.');
    refuses([TRIGGER, { ...TRIGGER, key: 'again' }], [], 'An automation needs exactly one `trigger` step; it has 2.');
  });
});

describe('unit: parseGraph, the connections', () => {
  it('knows the five connection types', () => {
    assert.deepEqual([...CONNECTION_TYPES], ['default', 'condition_met', 'condition_not_met', 'timeout', 'event_received']);
  });

  it('refuses a connection that is not `{from, to, type?}` between existing steps', () => {
    const steps = [TRIGGER, step('a')];
    refuses(steps, ['start->a'], 'The `connections[0]` field must be an object: `{from, to, type?}`, not "start->a".');
    refuses(steps, [{ from: 'start', to: 'a', label: 'x' }], 'Unknown field `connections[0].label`.');
    refuses(steps, [{ from: 'start' }], 'Missing `connections[0].to` field.', 'missing_required_field');
    refuses(steps, [{ from: 5, to: 'a' }], 'The `connections[0].from` field must be a step key, not 5.');
    refuses(
      steps,
      [
        { from: 'start', to: 'a' },
        { from: 'a', to: 'ghost' },
      ],
      'The `connections[1].to` field names no step: `ghost`.',
    );
    refuses(
      steps,
      [{ from: 'start', to: 'a', type: 'next' }],
      'The `connections[0].type` field must be one of "default" | "condition_met" | "condition_not_met" | "timeout" | "event_received", not "next".',
    );
  });

  it('does not take keys from the prototype for steps', () => {
    for (const key of ['toString', '__proto__', 'constructor']) {
      refuses([TRIGGER, step('a')], [{ from: key, to: 'a' }], `The \`connections[0].from\` field names no step: \`${key}\`.`);
    }
  });

  it('reads a null type as default', () => {
    assert.deepEqual(checkedGraph([TRIGGER, step('a')], [{ from: 'start', to: 'a', type: null }]).connections, [{ from: 'start', to: 'a', type: 'default' }]);
  });

  it('lets each step type lead on only by its own connection types', () => {
    const check = { key: 'check', type: 'condition', config: { field: 'event.plan', operator: 'exists' } };
    const wait = { key: 'wait', type: 'wait_for_event', config: { event_name: 'paid', timeout: '1 day' } };
    refuses(
      [TRIGGER, check, step('a')],
      [{ from: 'check', to: 'a' }],
      'Step `check` (condition): its connections must be of type "condition_met" | "condition_not_met", not "default" (`connections[0]`).',
    );
    refuses(
      [TRIGGER, step('a')],
      [{ from: 'start', to: 'a', type: 'timeout' }],
      'Step `start` (trigger): its connections must be of type "default", not "timeout" (`connections[0]`).',
    );
    refuses(
      [TRIGGER, step('d'), step('a')],
      [{ from: 'd', to: 'a', type: 'condition_met' }],
      'Step `d` (delay): its connections must be of type "default", not "condition_met" (`connections[0]`).',
    );
    const graph = checkedGraph(
      [TRIGGER, wait, step('got'), step('late'), step('also')],
      [
        { from: 'start', to: 'wait' },
        { from: 'wait', to: 'got', type: 'event_received' },
        { from: 'wait', to: 'late', type: 'timeout' },
        { from: 'wait', to: 'also' },
      ],
    );
    assert.deepEqual(
      graph.connections.map((c) => c.type),
      ['default', 'event_received', 'timeout', 'default'],
    );
  });

  it('lets nothing lead into the trigger', () => {
    refuses(
      [TRIGGER, step('a')],
      [
        { from: 'start', to: 'a' },
        { from: 'a', to: 'start' },
      ],
      'Step `start` (trigger): nothing may lead into the trigger (`connections[1]`).',
    );
  });

  it('refuses the same connection twice, and allows two types between the same steps', () => {
    refuses(
      [TRIGGER, step('a')],
      [
        { from: 'start', to: 'a' },
        { from: 'start', to: 'a', type: 'default' },
      ],
      'The connection from `start` to `a` (default) is given twice.',
    );
    const check = { key: 'check', type: 'condition', config: { field: 'event.plan', operator: 'exists' } };
    const graph = checkedGraph(
      [TRIGGER, check, step('a')],
      [
        { from: 'check', to: 'a', type: 'condition_met' },
        { from: 'check', to: 'a', type: 'condition_not_met' },
      ],
    );
    assert.equal(graph.connections.length, 2);
  });

  it('refuses cycles, naming the steps around them, self-loops included', () => {
    const steps = [TRIGGER, step('a'), step('b'), step('c')];
    refuses(
      steps,
      [
        { from: 'start', to: 'a' },
        { from: 'a', to: 'b' },
        { from: 'b', to: 'c' },
        { from: 'c', to: 'a' },
      ],
      'The connections form a cycle: `a` → `b` → `c` → `a`. Automations must not loop.',
    );
    refuses(steps, [{ from: 'b', to: 'b' }], 'The connections form a cycle: `b` → `b`. Automations must not loop.');
    refuses(
      steps,
      [
        { from: 'b', to: 'c' },
        { from: 'c', to: 'b' },
      ],
      'The connections form a cycle: `b` → `c` → `b`. Automations must not loop.',
      'validation_error',
    );
  });

  it('accepts a diamond: two branches joining again is no cycle', () => {
    const check = { key: 'check', type: 'condition', config: { field: 'event.x', operator: 'exists' } };
    const graph = checkedGraph(
      [TRIGGER, check, step('yes'), step('no'), { key: 'end', type: 'contact_delete' }],
      [
        { from: 'start', to: 'check' },
        { from: 'check', to: 'yes', type: 'condition_met' },
        { from: 'check', to: 'no', type: 'condition_not_met' },
        { from: 'yes', to: 'end' },
        { from: 'no', to: 'end' },
      ],
    );
    assert.deepEqual(
      graph.connections.map((c) => `${c.from}>${c.to}`),
      ['start>check', 'check>yes', 'check>no', 'yes>end', 'no>end'],
    );
  });

  it('accepts steps that nothing leads to', () => {
    assert.equal(checkedGraph([TRIGGER, step('orphan')], []).steps.length, 2);
  });

  it('checks a long chain of 150 steps without a stack problem', () => {
    const steps = [TRIGGER, ...Array.from({ length: 149 }, (_, i) => step(`s${i}`))];
    const connections = steps.slice(1).map((s, i) => ({ from: steps[i]!.key, to: s.key }));
    assert.equal(checkedGraph(steps, connections).connections.length, 149);
  });
});

describe('unit: successors', () => {
  const connections: ConnectionDef[] = [
    { from: 'wait', to: 'got', type: 'event_received' },
    { from: 'wait', to: 'also', type: 'default' },
    { from: 'wait', to: 'late', type: 'timeout' },
    { from: 'check', to: 'yes', type: 'condition_met' },
    { from: 'check', to: 'no', type: 'condition_not_met' },
    { from: 'other', to: 'x', type: 'default' },
  ];

  it("follows a wait_for_event's event_received and default connections when the event came", () => {
    assert.deepEqual(successors(connections, 'wait', 'event_received'), ['got', 'also']);
  });

  it('follows only the connections of the type taken', () => {
    assert.deepEqual(successors(connections, 'wait', 'timeout'), ['late']);
    assert.deepEqual(successors(connections, 'wait', 'default'), ['also']);
    assert.deepEqual(successors(connections, 'check', 'condition_met'), ['yes']);
    assert.deepEqual(successors(connections, 'check', 'condition_not_met'), ['no']);
  });

  it('leads nowhere from a last step or an unknown one', () => {
    assert.deepEqual(successors(connections, 'yes', 'default'), []);
    assert.deepEqual(successors([], 'start', 'default'), []);
  });
});
