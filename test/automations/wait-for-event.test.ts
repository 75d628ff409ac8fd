// wait_for_event: a run holds until an event of the given name arrives for its contact (and
// passes the filter_rule), then goes on along `event_received` with the payload available as
// wait_events.<name>.*; without it, `timeout` is taken when the timeout ends.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestPostline, type TestPostline } from '../support/postline.js';
import { createAutomation, eventually, runOf, runWhen, stepOf } from './support.js';

describe('wait_for_event', () => {
  let t: TestPostline;
  let automationId: string;
  before(async () => {
    t = await startTestPostline();
    automationId = await createAutomation(t, {
      name: 'Trial',
      status: 'enabled',
      steps: [
        { key: 'start', type: 'trigger', config: { eventName: 'trial.started' } },
        {
          key: 'converted',
          type: 'wait_for_event',
          config: { eventName: 'trial.converted', timeout: '3 seconds', filterRule: { type: 'rule', field: 'event.plan', operator: 'eq', value: 'pro' } },
        },
        { key: 'thank', type: 'contact_update', config: { firstName: { var: 'wait_events.trial.converted.name' } } },
        { key: 'expire', type: 'contact_update', config: { lastName: 'Expired' } },
      ],
      connections: [
        { from: 'start', to: 'converted' },
        { from: 'converted', to: 'thank', type: 'event_received' },
        { from: 'converted', to: 'expire', type: 'timeout' },
      ],
    });
  });
  after(() => t.stop());

  it('goes on along event_received when the awaited event arrives and passes the filter', async () => {
    await t.resend.events.send({ event: 'trial.started', email: 'ann@example.org' });
    const run = await runOf(t, automationId, 'ann@example.org');
    const waiting = await runWhen(t, automationId, run, (r) => stepOf(r, 'converted')?.status === 'waiting');
    assert.deepEqual(stepOf(waiting, 'converted')!.output!.event_name, 'trial.converted');

    // Not the awaited event, another contact's, and one the filter refuses: still waiting.
    await t.resend.events.send({ event: 'trial.other', email: 'ann@example.org', payload: { plan: 'pro' } });
    await t.resend.events.send({ event: 'trial.converted', email: 'someone@example.org', payload: { plan: 'pro' } });
    await t.resend.events.send({ event: 'trial.converted', email: 'ann@example.org', payload: { plan: 'basic' } });
    await t.resend.events.send({ event: 'trial.converted', email: 'ann@example.org', payload: { plan: 'pro', name: 'Converted Ann' } });

    const done = await runWhen(t, automationId, run, (r) => r.status === 'completed');
    assert.deepEqual(
      done.steps.map((s) => [s.key, s.status]),
      [
        ['start', 'completed'],
        ['converted', 'completed'],
        ['thank', 'completed'],
      ],
    );
    assert.deepEqual(stepOf(done, 'converted')!.output, { event: 'trial.converted', payload: { plan: 'pro', name: 'Converted Ann' } });
    const contact = await t.resend.contacts.get({ email: 'ann@example.org' });
    assert.equal(contact.data!.first_name, 'Converted Ann', 'wait_events.<name>.<field> read by a later step');
    assert.equal(contact.data!.last_name, null, 'the timeout branch never ran');
  });

  it('goes on along timeout when nothing arrives in time, and ignores the event afterwards', async () => {
    const sentAt = Date.now();
    await t.resend.events.send({ event: 'trial.started', email: 'bob@example.org' });
    const run = await runOf(t, automationId, 'bob@example.org');
    const done = await runWhen(t, automationId, run, (r) => r.status === 'completed');
    assert.ok(Date.now() - sentAt >= 3000, 'not before the timeout');
    assert.deepEqual(
      done.steps.map((s) => [s.key, s.status]),
      [
        ['start', 'completed'],
        ['converted', 'completed'],
        ['expire', 'completed'],
      ],
    );
    assert.deepEqual(stepOf(done, 'converted')!.output, { event_name: 'trial.converted', timed_out: true });
    assert.equal((await t.resend.contacts.get({ email: 'bob@example.org' })).data!.last_name, 'Expired');

    await t.resend.events.send({ event: 'trial.converted', email: 'bob@example.org', payload: { plan: 'pro', name: 'Late' } });
    const inbox = async () => (await t.sql('SELECT count(*)::int AS n FROM received_events'))[0].n as number;
    await eventually(async () => ((await inbox()) === 0 ? true : undefined), 15_000, 'the late event taken from the inbox');
    const after = (await t.resend.automations.runs.get({ automationId, runId: run })).data!;
    assert.deepEqual(
      after.steps.map((s) => s.key),
      ['start', 'converted', 'expire'],
      'a late event changes nothing',
    );
    assert.equal((await t.resend.contacts.get({ email: 'bob@example.org' })).data!.first_name, null);
  });
});
