// POST /automations/:id/stop cancels the runs under way; the contact steps change the
// contact through the audience (segments, updates, deletion); a step that cannot be carried
// out fails with its error, and its run with it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestPostline, type TestPostline } from '../support/postline.js';
import { createAutomation, eventually, runOf, runWhen, setUpSending, stepOf } from './support.js';

describe('stopping automations, contact steps and failures', () => {
  let t: TestPostline;
  let templateId: string;
  before(async () => {
    t = await startTestPostline();
    ({ templateId } = await setUpSending(t));
  });
  after(() => t.stop());

  it('stop disables the automation and cancels its running runs', async () => {
    const automationId = await createAutomation(t, {
      name: 'Slow',
      status: 'enabled',
      steps: [
        { key: 'start', type: 'trigger', config: { eventName: 'slow.start' } },
        { key: 'nap', type: 'delay', config: { duration: '1 hour' } },
        { key: 'mail', type: 'send_email', config: { template: { id: templateId } } },
      ],
      connections: [
        { from: 'start', to: 'nap' },
        { from: 'nap', to: 'mail' },
      ],
    });
    await t.resend.events.send({ event: 'slow.start', email: 'sam@example.org' });
    const runId = await runOf(t, automationId, 'sam@example.org');
    await runWhen(t, automationId, runId, (r) => stepOf(r, 'nap')?.status === 'waiting');

    const stopped = await t.resend.automations.stop(automationId);
    assert.deepEqual(stopped.data, { object: 'automation', id: automationId, status: 'disabled' });
    const run = (await t.resend.automations.runs.get({ automationId, runId })).data!;
    assert.equal(run.status, 'cancelled');
    assert.ok(run.completed_at);
    assert.equal(stepOf(run, 'nap')!.status, 'skipped');
    assert.deepEqual(
      (await t.resend.automations.runs.list({ automationId, status: ['cancelled'] })).data!.data.map((r) => r.id),
      [runId],
    );

    await t.resend.events.send({ event: 'slow.start', email: 'sue@example.org' });
    await eventually(async () => ((await t.sql('SELECT 1 FROM received_events')).length === 0 ? true : undefined), 15_000, 'the event taken');
    assert.equal((await t.resend.automations.runs.list({ automationId })).data!.data.length, 1, 'no new run once stopped');
  });

  it('adds to a segment, updates and deletes the contact', async () => {
    const segment = await t.resend.segments.create({ name: 'VIP' });
    const automationId = await createAutomation(t, {
      name: 'Contact steps',
      status: 'enabled',
      steps: [
        { key: 'start', type: 'trigger', config: { eventName: 'vip.joined' } },
        { key: 'join', type: 'add_to_segment', config: { segmentId: segment.data!.id } },
        { key: 'rename', type: 'contact_update', config: { firstName: { var: 'event.name' }, unsubscribed: true } },
      ],
      connections: [
        { from: 'start', to: 'join' },
        { from: 'join', to: 'rename' },
      ],
    });
    await t.resend.events.send({ event: 'vip.joined', email: 'vera@example.org', payload: { name: 'Vera' } });
    const runId = await runOf(t, automationId, 'vera@example.org');
    const done = await runWhen(t, automationId, runId, (r) => r.status === 'completed');
    assert.deepEqual(
      done.steps.map((s) => s.status),
      ['completed', 'completed', 'completed'],
    );
    const contact = (await t.resend.contacts.get({ email: 'vera@example.org' })).data!;
    assert.equal(contact.first_name, 'Vera');
    assert.equal(contact.unsubscribed, true);
    const members = await t.resend.contacts.segments.list({ email: 'vera@example.org' });
    assert.deepEqual(
      members.data!.data.map((s) => s.id),
      [segment.data!.id],
    );

    const farewell = await createAutomation(t, {
      name: 'Farewell',
      status: 'enabled',
      steps: [
        { key: 'start', type: 'trigger', config: { eventName: 'account.closed' } },
        { key: 'forget', type: 'contact_delete', config: {} },
      ],
      connections: [{ from: 'start', to: 'forget' }],
    });
    await t.resend.events.send({ event: 'account.closed', email: 'vera@example.org' });
    // The contact is gone once the run is done: its one run is found through the API.
    const farewellRun = await eventually(
      async () => (await t.resend.automations.runs.list({ automationId: farewell })).data!.data[0]?.id,
      15_000,
      'the farewell run',
    );
    const gone = await runWhen(t, farewell, farewellRun, (r) => r.status === 'completed');
    assert.equal(stepOf(gone, 'forget')!.status, 'completed');
    assert.equal((await t.resend.contacts.get({ email: 'vera@example.org' })).error?.statusCode, 404);
  });

  it('skips emails to unsubscribed contacts, and fails a step that cannot be carried out', async () => {
    const automationId = await createAutomation(t, {
      name: 'Send',
      status: 'enabled',
      steps: [
        { key: 'start', type: 'trigger', config: { eventName: 'news' } },
        { key: 'mail', type: 'send_email', config: { template: { id: templateId } } },
        { key: 'bad_from', type: 'send_email', config: { template: { id: templateId }, from: 'x@unverified.test' } },
      ],
      connections: [
        { from: 'start', to: 'mail' },
        { from: 'mail', to: 'bad_from' },
      ],
    });
    await t.resend.contacts.create({ email: 'gone@example.org', unsubscribed: true });
    await t.resend.events.send({ event: 'news', email: 'gone@example.org' });
    const skippedRun = await runOf(t, automationId, 'gone@example.org');
    const skipped = await runWhen(t, automationId, skippedRun, (r) => r.status !== 'running');
    assert.equal(skipped.status, 'completed');
    assert.deepEqual(
      skipped.steps.map((s) => s.status),
      ['completed', 'skipped', 'skipped'],
      'an unsubscribed contact gets no automation email',
    );
    assert.deepEqual(stepOf(skipped, 'mail')!.output, { reason: 'The contact is unsubscribed.' });

    await t.resend.events.send({ event: 'news', email: 'dan@example.org' });
    const runId = await runOf(t, automationId, 'dan@example.org');
    const failed = await runWhen(t, automationId, runId, (r) => r.status !== 'running');
    assert.equal(failed.status, 'failed');
    assert.equal(stepOf(failed, 'mail')!.status, 'completed');
    const bad = stepOf(failed, 'bad_from')!;
    assert.equal(bad.status, 'failed');
    assert.equal(bad.error!.name, 'validation_error');
    assert.match(bad.error!.message as string, /unverified\.test/);
    assert.ok(failed.completed_at);
    await t.sink.waitFor(1);
    assert.deepEqual(
      t.sink.messages.map((m) => m.to),
      [['dan@example.org']],
    );
  });
});
