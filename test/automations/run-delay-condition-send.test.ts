// A run end to end: an event sent through the SDK starts a run of the enabled automation it
// triggers; trigger → delay (2 s) → condition → send_email delivers the published template,
// rendered with the contact's and the event's variables, to the MX sink; the other branch
// updates the contact. Every step's status and output is visible in GET …/runs/:run_id.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestPostline, type TestPostline } from '../support/postline.js';
import { createAutomation, eventually, runOf, runWhen, setUpSending, stepOf } from './support.js';

describe('an automation run: trigger → delay → condition → send_email', () => {
  let t: TestPostline;
  let templateId: string;
  before(async () => {
    t = await startTestPostline();
    ({ templateId } = await setUpSending(t));
  });
  after(() => t.stop());

  it('waits, branches on the payload, sends the template to the contact and records every step', async () => {
    const automationId = await createAutomation(t, {
      name: 'Onboarding',
      status: 'enabled',
      steps: [
        { key: 'start', type: 'trigger', config: { eventName: 'user.created' } },
        { key: 'wait', type: 'delay', config: { duration: '2 seconds' } },
        { key: 'is_pro', type: 'condition', config: { type: 'rule', field: 'event.plan', operator: 'eq', value: 'pro' } },
        { key: 'welcome', type: 'send_email', config: { template: { id: templateId, variables: { GREETING: { var: 'event.greeting' } } } } },
        { key: 'mark_free', type: 'contact_update', config: { lastName: { var: 'event.plan' } } },
      ],
      connections: [
        { from: 'start', to: 'wait' },
        { from: 'wait', to: 'is_pro' },
        { from: 'is_pro', to: 'welcome', type: 'condition_met' },
        { from: 'is_pro', to: 'mark_free', type: 'condition_not_met' },
      ],
    });
    const disabled = await createAutomation(t, {
      name: 'Off',
      steps: [
        { key: 'start', type: 'trigger', config: { eventName: 'user.created' } },
        { key: 'bye', type: 'contact_delete', config: {} },
      ],
      connections: [{ from: 'start', to: 'bye' }],
    });
    const ann = await t.resend.contacts.create({ email: 'ann@example.org', firstName: 'Ann' });
    assert.equal(ann.error, null, JSON.stringify(ann.error));

    const sentAt = Date.now();
    const pro = await t.resend.events.send({ event: 'user.created', contactId: ann.data!.id, payload: { plan: 'pro', greeting: 'Welcome aboard!' } });
    assert.deepEqual(pro.data, { object: 'event', event: 'user.created' });
    const free = await t.resend.events.send({ event: 'user.created', email: 'bob@example.org', payload: { plan: 'free' } });
    assert.equal(free.error, null);

    const annRun = await runOf(t, automationId, 'ann@example.org');
    const waiting = await runWhen(t, automationId, annRun, (r) => stepOf(r, 'wait')?.status === 'waiting');
    assert.equal(waiting.status, 'running');
    assert.equal(stepOf(waiting, 'start')!.status, 'completed');
    assert.deepEqual(stepOf(waiting, 'start')!.output, { event: 'user.created', payload: { plan: 'pro', greeting: 'Welcome aboard!' } });

    await t.sink.waitFor(1, 15_000);
    assert.ok(Date.now() - sentAt >= 2000, 'not before the delay ended');
    const message = t.sink.messages[0]!;
    assert.deepEqual(message.to, ['ann@example.org']);
    const raw = message.raw.toString();
    assert.match(raw, /^Subject: Welcome Ann\r$/m);
    assert.match(raw, /^From: Acme <hello@acme\.test>\r$/m);
    assert.match(raw, /Hi Ann, plan pro\. Welcome aboard!/);

    const done = await runWhen(t, automationId, annRun, (r) => r.status === 'completed');
    assert.equal(done.object, 'automation_run');
    assert.deepEqual(
      done.steps.map((s) => [s.key, s.type, s.status]),
      [
        ['start', 'trigger', 'completed'],
        ['wait', 'delay', 'completed'],
        ['is_pro', 'condition', 'completed'],
        ['welcome', 'send_email', 'completed'],
      ],
    );
    assert.deepEqual(stepOf(done, 'is_pro')!.output, { result: true });
    const emailId = stepOf(done, 'welcome')!.output!.email_id as string;
    const email = await t.resend.emails.get(emailId);
    assert.equal(email.data!.subject, 'Welcome Ann');
    assert.deepEqual(email.data!.to, ['ann@example.org']);
    assert.ok(done.completed_at && done.started_at);
    for (const step of done.steps) assert.equal(step.error, null);
    // The contact's activity lists the run and the email it sent.
    const activity = await (await fetch(`${t.url}/contacts/ann@example.org/activity`, { headers: { authorization: `Bearer ${t.apiKey}` } })).json();
    assert.deepEqual(
      activity.automation_runs.map((r: any) => [r.id, r.automation_name, r.status]),
      [[annRun, 'Onboarding', 'completed']],
    );
    assert.deepEqual(
      activity.emails.map((e: any) => e.id),
      [emailId],
    );

    const bobRun = await runOf(t, automationId, 'bob@example.org');
    const bobDone = await runWhen(t, automationId, bobRun, (r) => r.status === 'completed');
    assert.deepEqual(
      bobDone.steps.map((s) => s.key),
      ['start', 'wait', 'is_pro', 'mark_free'],
    );
    assert.deepEqual(stepOf(bobDone, 'is_pro')!.output, { result: false });
    const bob = await t.resend.contacts.get({ email: 'bob@example.org' });
    assert.equal(bob.data!.last_name, 'free', 'the contact created by the event, updated by the run');

    const completed = await t.resend.automations.runs.list({ automationId, status: ['completed', 'failed'] });
    assert.deepEqual(completed.data!.data.map((r) => r.id).sort(), [annRun, bobRun].sort());
    assert.deepEqual(Object.keys(completed.data!.data[0]!).sort(), ['completed_at', 'created_at', 'id', 'started_at', 'status']);
    assert.deepEqual((await t.resend.automations.runs.list({ automationId, status: 'running' })).data!.data, []);
    assert.deepEqual((await t.resend.automations.runs.list({ automationId: disabled })).data!.data, [], 'a disabled automation starts no run');
    assert.equal((await t.resend.automations.runs.get({ automationId: disabled, runId: annRun })).error?.statusCode, 404, "another automation's run");

    // Both runs are over, so every email they made exists: one, delivered once and done with.
    const emails = await t.sql(`SELECT count(*)::int AS n FROM emails WHERE source = 'automation'`);
    assert.equal(emails[0].n, 1, 'one email for the two runs');
    await eventually(async () => (await t.resend.emails.get(emailId)).data?.last_event === 'delivered', 15_000, 'the welcome email delivered');
    assert.equal(t.sink.messages.length, 1, 'delivered once');
  });
});
