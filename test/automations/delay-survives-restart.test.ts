// A run lives only in the database: a Postline that stops while a run waits in a delay, and
// starts again after the delay has ended, carries on and sends the email, once.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { startTestPostline, type TestPostline } from '../support/postline.js';
import { createAutomation, eventually, runOf, runWhen, setUpSending, stepOf } from './support.js';

describe('a delay across a restart', () => {
  let t: TestPostline;
  let templateId: string;
  before(async () => {
    t = await startTestPostline();
    ({ templateId } = await setUpSending(t));
  });
  after(() => t.stop());

  it('fires after Postline comes back, exactly once', async () => {
    const automationId = await createAutomation(t, {
      name: 'Reminder',
      status: 'enabled',
      steps: [
        { key: 'start', type: 'trigger', config: { eventName: 'cart.abandoned' } },
        { key: 'later', type: 'delay', config: { duration: '3 seconds' } },
        { key: 'remind', type: 'send_email', config: { template: { id: templateId }, subject: 'You forgot something' } },
      ],
      connections: [
        { from: 'start', to: 'later' },
        { from: 'later', to: 'remind' },
      ],
    });
    await t.resend.events.send({ event: 'cart.abandoned', email: 'carl@example.org', payload: { plan: 'basic' } });
    const runId = await runOf(t, automationId, 'carl@example.org');
    await runWhen(t, automationId, runId, (r) => stepOf(r, 'later')?.status === 'waiting');
    const dueAt = Date.now() + 3000;

    await t.postline.stop();
    // Waiting for the clock, not for a state: the delay ends while Postline is down.
    await sleep(Math.max(0, dueAt - Date.now()) + 500);
    assert.equal(t.sink.messages.length, 0);
    await t.restart();

    await t.sink.waitFor(1, 15_000);
    const raw = t.sink.messages[0]!.raw.toString();
    assert.match(raw, /^Subject: You forgot something\r$/m);
    assert.match(raw, /plan basic/);
    const done = await runWhen(t, automationId, runId, (r) => r.status === 'completed');
    assert.deepEqual(
      done.steps.map((s) => [s.key, s.status]),
      [
        ['start', 'completed'],
        ['later', 'completed'],
        ['remind', 'completed'],
      ],
    );

    // The run is over, so every email it made exists: one, delivered once and done with.
    const emails = await t.sql(`SELECT id FROM emails WHERE source = 'automation'`);
    assert.equal(emails.length, 1);
    await eventually(async () => (await t.resend.emails.get(emails[0].id)).data?.last_event === 'delivered', 15_000, 'the reminder delivered');
    assert.equal(t.sink.messages.length, 1, 'sent once');
    await eventually(
      async () => {
        const list = await t.resend.automations.runs.list({ automationId, status: 'completed' });
        return list.data!.data.length === 1 ? true : undefined;
      },
      15_000,
      'the run listed as completed',
    );
  });
});
