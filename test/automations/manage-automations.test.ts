// The /automations routes (resend-compat-notes §2.12) through the SDK: create, read, list by
// status, update, duplicate, stop, remove; and every malformed graph refused with a 422
// naming the step, writing nothing.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Resend, type AutomationStep, type CreateAutomationOptions } from 'resend';
import { createAccount } from '../../src/accounts/accounts.js';
import { rawRequest, startTestPostline, type TestPostline } from '../support/postline.js';
import { setUpSending } from './support.js';

const TIMESTAMP = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+\+00$/;

describe('managing automations', () => {
  let t: TestPostline;
  let templateId: string;
  before(async () => {
    t = await startTestPostline({ roles: ['api'] });
    ({ templateId } = await setUpSending(t));
  });
  after(() => t.stop());

  const welcome = (name = 'Welcome series'): CreateAutomationOptions => ({
    name,
    steps: [
      { key: 'start', type: 'trigger', config: { eventName: 'user.created' } },
      { key: 'wait', type: 'delay', config: { duration: '1 day' } },
      { key: 'check', type: 'condition', config: { type: 'and', rules: [{ type: 'rule', field: 'event.plan', operator: 'eq', value: 'pro' }] } },
      { key: 'hello', type: 'send_email', config: { template: { id: templateId, variables: { GREETING: { var: 'event.greeting' } } }, subject: 'Hi' } },
      { key: 'tag', type: 'contact_update', config: { properties: { plan: { var: 'event.plan' } }, unsubscribed: false } },
    ],
    connections: [
      { from: 'start', to: 'wait' },
      { from: 'wait', to: 'check', type: 'default' },
      { from: 'check', to: 'hello', type: 'condition_met' },
      { from: 'check', to: 'tag', type: 'condition_not_met' },
    ],
  });

  it('creates a disabled automation and returns its graph as stored', async () => {
    const created = await t.resend.automations.create(welcome());
    assert.equal(created.error, null, JSON.stringify(created.error));
    assert.deepEqual(Object.keys(created.data!).sort(), ['id', 'object']);
    const got = await t.resend.automations.get(created.data!.id);
    assert.equal(got.error, null);
    const a = got.data!;
    assert.equal(a.object, 'automation');
    assert.equal(a.name, 'Welcome series');
    assert.equal(a.status, 'disabled');
    assert.match(a.created_at, TIMESTAMP);
    assert.match(a.updated_at!, TIMESTAMP);
    assert.deepEqual(
      a.steps.map((s) => [s.key, s.type]),
      [
        ['start', 'trigger'],
        ['wait', 'delay'],
        ['check', 'condition'],
        ['hello', 'send_email'],
        ['tag', 'contact_update'],
      ],
    );
    assert.deepEqual(a.steps[0]!.config, { event_name: 'user.created' });
    assert.deepEqual(a.steps[3]!.config, { template: { id: templateId, variables: { GREETING: { var: 'event.greeting' } } }, subject: 'Hi' });
    assert.deepEqual(a.connections[0], { from: 'start', to: 'wait', type: 'default' }, 'type defaults to "default"');
  });

  it('lists by status, updates name, status and graph, duplicates, stops and removes', async () => {
    const id = (await t.resend.automations.create({ ...welcome('Second'), status: 'enabled' })).data!.id;
    const enabled = await t.resend.automations.list({ status: 'enabled' });
    assert.deepEqual(
      enabled.data!.data.map((a) => a.name),
      ['Second'],
    );
    assert.deepEqual(Object.keys(enabled.data!.data[0]!).sort(), ['created_at', 'id', 'name', 'status', 'updated_at']);
    assert.ok((await t.resend.automations.list()).data!.data.length >= 2);
    assert.equal((await rawRequest(t, 'GET', '/automations?status=paused')).status, 422);

    assert.deepEqual((await t.resend.automations.update(id, { name: 'Renamed', status: 'disabled' })).data, { object: 'automation', id });
    const steps: AutomationStep[] = [
      { key: 'go', type: 'trigger', config: { eventName: 'order.paid' } },
      { key: 'bye', type: 'contact_delete', config: {} },
    ];
    assert.equal((await t.resend.automations.update(id, { steps, connections: [{ from: 'go', to: 'bye' }] })).error, null);
    const got = (await t.resend.automations.get(id)).data!;
    assert.equal(got.name, 'Renamed');
    assert.equal(got.status, 'disabled');
    assert.deepEqual(got.steps, [
      { key: 'go', type: 'trigger', config: { event_name: 'order.paid' } },
      { key: 'bye', type: 'contact_delete', config: {} },
    ]);
    const alone = await t.resend.automations.update(id, { steps });
    assert.equal(alone.error?.statusCode, 422, 'steps without connections');
    assert.match(alone.error!.message, /together/);
    assert.equal((await rawRequest(t, 'PATCH', `/automations/${id}`, { body: {} })).status, 422);

    const copy = await t.resend.automations.duplicate(id);
    assert.equal(copy.error, null);
    const copied = (await t.resend.automations.get(copy.data!.id)).data!;
    assert.equal(copied.name, 'Renamed (Copy)');
    assert.equal(copied.status, 'disabled');
    assert.deepEqual(copied.steps, got.steps);

    await t.resend.automations.update(id, { status: 'enabled' });
    assert.deepEqual((await t.resend.automations.stop(id)).data, { object: 'automation', id, status: 'disabled' });
    assert.equal((await t.resend.automations.get(id)).data!.status, 'disabled');

    assert.deepEqual((await t.resend.automations.remove(id)).data, { object: 'automation', id, deleted: true });
    assert.deepEqual((await t.resend.automations.get(id)).error, { statusCode: 404, message: 'Automation not found', name: 'not_found' });
    assert.equal((await t.resend.automations.get('not-an-id')).error?.statusCode, 422, 'a malformed id');
    assert.equal((await t.resend.automations.runs.list({ automationId: id })).error?.statusCode, 404);
  });

  it("keeps accounts apart: another account's automation is not found", async () => {
    const mine = (await t.resend.automations.create(welcome('Mine'))).data!.id;
    const stranger = new Resend((await createAccount(t.postline.db, 'stranger')).token, { baseUrl: t.url });
    assert.equal((await stranger.automations.get(mine)).error?.statusCode, 404);
    assert.equal((await stranger.automations.update(mine, { name: 'theirs' })).error?.statusCode, 404);
    assert.equal((await stranger.automations.duplicate(mine)).error?.statusCode, 404);
    assert.equal((await stranger.automations.stop(mine)).error?.statusCode, 404);
    assert.equal((await stranger.automations.remove(mine)).error?.statusCode, 404);
    assert.equal((await stranger.automations.runs.list({ automationId: mine })).error?.statusCode, 404);
    assert.deepEqual((await stranger.automations.list()).data!.data, []);
    const theirs = await stranger.automations.create(welcome('Theirs'));
    assert.equal(theirs.error?.statusCode, 422, 'my template is not theirs to send');
    assert.match(theirs.error!.message, /no template/);
    assert.equal((await t.resend.automations.get(mine)).data!.name, 'Mine');
  });

  it('refuses malformed graphs with a 422 naming the step or the field, and writes nothing', async () => {
    const count = async () => (await t.sql('SELECT count(*)::int AS n FROM automations'))[0].n as number;
    const before = await count();
    const base = welcome();
    const withStep = (key: string, step: unknown) => ({ ...base, steps: base.steps.map((s) => (s.key === key ? step : s)) }) as CreateAutomationOptions;
    const cases: [string, CreateAutomationOptions, RegExp][] = [
      ['a cycle', { ...base, connections: [...base.connections, { from: 'tag', to: 'wait' }] }, /cycle: `wait` → `check` → `tag` → `wait`/],
      [
        'a number as duration',
        withStep('wait', { key: 'wait', type: 'delay', config: { duration: 5 } }),
        /`steps\[1\]\.config\.duration` field must be a duration/,
      ],
      [
        'a duration past 30 days',
        withStep('wait', { key: 'wait', type: 'delay', config: { duration: '31 days' } }),
        /`steps\[1\]\.config\.duration` field .*at most 30 days, not "31 days"/,
      ],
      [
        'a string compared with gt',
        withStep('check', { key: 'check', type: 'condition', config: { type: 'rule', field: 'event.amount', operator: 'gt', value: '10' } }),
        /`steps\[2\]\.config\.value` must be a number/,
      ],
      [
        'a field outside the namespaces',
        withStep('check', { key: 'check', type: 'condition', config: { type: 'rule', field: 'plan', operator: 'exists' } }),
        /`steps\[2\]\.config\.field` must be a string starting with/,
      ],
      [
        'a template without id',
        withStep('hello', { key: 'hello', type: 'send_email', config: { template: {} } }),
        /^Missing `steps\[3\]\.config\.template\.id` field\.$/,
      ],
      ['an unknown template', withStep('hello', { key: 'hello', type: 'send_email', config: { template: { id: 'nope' } } }), /Step `hello`.*no template/],
      [
        'a topic that is not an id',
        withStep('hello', { key: 'hello', type: 'send_email', config: { template: { id: templateId }, topicId: 'news' } } as any),
        /`steps\[3\]\.config\.topic_id` field must be a topic id/,
      ],
      [
        'unsubscribed as a string',
        withStep('tag', { key: 'tag', type: 'contact_update', config: { unsubscribed: 'yes' } }),
        /`steps\[4\]\.config\.unsubscribed` field must be a boolean/,
      ],
      [
        'an unknown config field',
        withStep('wait', { key: 'wait', type: 'delay', config: { duration: '1 hour', seconds: 3 } }),
        /Unknown field `steps\[1\]\.config\.seconds`/,
      ],
      ['a second trigger', withStep('tag', { key: 'tag', type: 'trigger', config: { eventName: 'x' } }), /exactly one `trigger`/],
      ['no trigger', { ...base, steps: base.steps.slice(1), connections: base.connections.slice(1) }, /exactly one `trigger`/],
      ['a connection to an unknown step', { ...base, connections: [...base.connections, { from: 'hello', to: 'ghost' }] }, /ghost/],
      [
        'a default connection out of a condition',
        { ...base, connections: [...base.connections.slice(0, 2), { from: 'check', to: 'hello' }] },
        /Step `check` \(condition\).*"condition_met" \| "condition_not_met"/,
      ],
      ['a connection into the trigger', { ...base, connections: [...base.connections, { from: 'hello', to: 'start' }] }, /Step `start` \(trigger\)/],
      ['a duplicate key', withStep('tag', { key: 'hello', type: 'contact_delete', config: {} }), /Step `hello`: another step has the same key/],
      [
        'a reserved trigger event',
        withStep('start', { key: 'start', type: 'trigger', config: { eventName: 'resend:contact.created' } }),
        /`steps\[0\]\.config\.event_name` field must be an event name.*resend:/,
      ],
      [
        'a wait timeout that is no duration',
        withStep('wait', { key: 'wait', type: 'wait_for_event', config: { eventName: 'x', timeout: 'soon' } }),
        /`steps\[1\]\.config\.timeout` field must be a duration/,
      ],
      [
        'a segment id that is no id',
        withStep('tag', { key: 'tag', type: 'add_to_segment', config: { segmentId: 'vip' } }),
        /`steps\[4\]\.config\.segment_id` field must be a segment id/,
      ],
    ];
    for (const [what, body, message] of cases) {
      const res = await t.resend.automations.create(body);
      assert.equal(res.error?.statusCode, 422, `${what}: ${JSON.stringify(res.error ?? res.data)}`);
      // A config's field left out is missing, as any field of the body is.
      assert.equal(res.error?.name, res.error!.message.startsWith('Missing') ? 'missing_required_field' : 'validation_error', what);
      assert.match(res.error!.message, message, what);
    }
    const draft = await t.resend.templates.create({ name: 'Draft', html: '<p>x</p>' });
    const unpublished = await t.resend.automations.create(
      withStep('hello', { key: 'hello', type: 'send_email', config: { template: { id: draft.data!.id } } }),
    );
    assert.match(unpublished.error!.message, /not been published/);
    // The SDK sends null for a step type it does not know; a raw request names it.
    const unknownType = await rawRequest(t, 'POST', '/automations', {
      body: {
        name: 'x',
        steps: [
          { key: 'start', type: 'trigger', config: { event_name: 'x' } },
          { key: 'hook', type: 'webhook', config: {} },
        ],
        connections: [],
      },
    });
    assert.equal(unknownType.status, 422);
    assert.equal(unknownType.body.name, 'validation_error');
    assert.match(unknownType.body.message, /^The `steps\[1\]\.type` field must be one of "trigger" \| .*, not "webhook"\.$/);
    const noName = await rawRequest(t, 'POST', '/automations', { body: { steps: base.steps, connections: [] } });
    assert.deepEqual(noName.body, { statusCode: 422, message: 'Missing `name` field.', name: 'missing_required_field' });
    assert.equal(await count(), before, 'nothing was written');
  });
});
