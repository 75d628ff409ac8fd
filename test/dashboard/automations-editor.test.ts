// The automation editor in a real browser: an automation made from nothing (trigger → send
// email with a published template → delay → condition, its "yes" and "no" branches each to a
// step), with the editor's own checks shown while editing (no name, a step nothing leads to),
// saved with POST and drawn on its page; a step edited and saved with PATCH; a config the API
// refuses, its message shown at the step it names; leaving with unsaved changes asks first (in
// the app and before unload); enable and disable; and an event sent for a contact starts a run
// of what was drawn. Every page and dialog is scanned by axe.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { runOf, runWhen, setUpSending, stepOf } from '../automations/support.js';
import { startDeliveryTest } from '../delivery/support.js';
import type { TestPostline } from '../support/postline.js';
import { assertAccessible, dismissReloadQuestion, launchChromium, screenshot, signInNewUser } from './browser.js';
import { overflowing } from './phone-width.js';

describe('dashboard: the automation editor', () => {
  let t: TestPostline;
  let browser: Browser;
  let page: Page;
  let segmentId: string;
  let templateId: string;
  let automationId: string;

  before(async () => {
    t = await startDeliveryTest();
    ({ templateId } = await setUpSending(t));
    // A draft is never offered: only a published template can be sent.
    const draft = await t.resend.templates.create({ name: 'Unfinished', html: '<p>Soon</p>' });
    assert.equal(draft.error, null, JSON.stringify(draft.error));
    const segment = await t.resend.segments.create({ name: 'Pro customers' });
    assert.equal(segment.error, null, JSON.stringify(segment.error));
    segmentId = segment.data!.id;
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await signInNewUser(context, { url: t.url, db: t.postline.db }, 'Default', 'ops@automation-editor.postline.test');
    page = await context.newPage();
  });
  after(async () => {
    await browser?.close();
    await t?.stop();
  });

  const palette = () => page.getByRole('group', { name: 'Add a step' });
  const panel = (title: string) => page.getByRole('region', { name: title });
  const drawing = () => page.getByRole('img', { name: /: \d+ steps, described/ });
  const addStep = async (type: string, after: string) => {
    await palette().getByLabel('Step', { exact: true }).selectOption({ label: type });
    await palette().getByLabel('After').selectOption({ label: after });
    await palette().getByRole('button', { name: 'Add step' }).click();
  };

  it('builds trigger → send email → delay → condition with two branches, checking as it goes, and creates it', async () => {
    await page.goto(`${t.url}/dashboard/automations`);
    await page.getByRole('link', { name: 'New automation' }).click();
    await page.getByRole('heading', { name: 'New automation' }).waitFor();
    // A new automation starts with its trigger, selected; without one, the editor says so as it happens.
    await panel('Trigger: start').getByRole('button', { name: 'Delete this step' }).click();
    await page.getByRole('dialog', { name: 'Delete the step start?' }).getByRole('button', { name: 'Delete step' }).click();
    await page.getByText('Before it can be saved:').waitFor();
    await page.getByText('Add a trigger: the event that starts each run.').waitFor();
    await palette().getByLabel('Step', { exact: true }).selectOption({ label: 'Trigger' });
    await palette().getByRole('button', { name: 'Add step' }).click();
    await panel('Trigger: trigger').getByLabel('Key').fill('start');
    const trigger = panel('Trigger: start');
    await trigger.getByLabel('Event that starts a run').fill('user.signed_up');
    assert.equal(await page.getByText('Before it can be saved:').count(), 0);

    // Saving without a name says so, and nothing is sent.
    await page.getByRole('button', { name: 'Create automation' }).click();
    await page.getByRole('alert').filter({ hasText: 'Give the automation a name.' }).waitFor();
    await page.getByLabel('Name', { exact: true }).fill('Welcome flow');

    await addStep('Send email', 'start');
    const send = panel('Send email: send_email');
    await send.getByLabel('Template', { exact: true }).selectOption({ label: 'Welcome' });
    const templates = await send.getByLabel('Template', { exact: true }).locator('option').allTextContents();
    assert.deepEqual(templates, ['Choose a published template…', 'Welcome'], 'drafts are not offered');
    await send.getByRole('button', { name: 'Add a variable' }).click();
    await send.getByLabel('Variable 1').fill('plan');
    await send.getByLabel('Value 1', { exact: true }).fill('event.plan');
    await send.getByLabel('from a field (for Value 1)').check();

    await addStep('Delay', 'send_email');
    await panel('Delay: delay').getByLabel('Wait for').fill('1 day');

    await addStep('Condition', 'delay');
    const condition = panel('Condition: condition');
    await condition.getByLabel('Field').fill('event.plan');
    await condition.getByLabel('Operator').selectOption({ label: 'is' });
    await condition.getByLabel('Value', { exact: true }).fill('pro');

    await addStep('Add to segment', 'condition (if yes)');
    await panel('Add to segment: add_to_segment').getByLabel('Segment').selectOption({ label: 'Pro customers' });
    await addStep('Send email', 'condition (if no)');
    const nudge = panel('Send email: send_email_2');
    await nudge.getByLabel('Key').fill('nudge');
    await panel('Send email: nudge').getByLabel('Template', { exact: true }).selectOption({ label: 'Welcome' });
    await panel('Send email: nudge').getByLabel("Subject (optional: the template's otherwise)").fill('Pro is waiting for you');

    // A step added with nothing before it is marked as not connected, in the list and the drawing.
    await addStep('Delete contact', 'Nothing yet (connect it later)');
    const steps = page.getByRole('list', { name: /steps: steps$/ });
    await steps.getByText('Not connected: no step leads to it').waitFor();
    assert.equal(await drawing().locator('.graph-node.warning').count(), 1, 'marked as a warning: it can be saved so');
    await assertAccessible(page, 'automation editor');
    await screenshot(page, 'automation-editor-01-building');
    // Deleted after a confirmation.
    await panel('Delete contact: contact_delete').getByRole('button', { name: 'Delete this step' }).click();
    const deleting = page.getByRole('dialog', { name: 'Delete the step contact_delete?' });
    await deleting.waitFor();
    await assertAccessible(page, 'delete step dialog');
    await deleting.getByRole('button', { name: 'Delete step' }).click();
    assert.equal(await drawing().locator('.graph-node').count(), 6);
    assert.equal(await drawing().locator('.graph-node.warning, .graph-node.problem').count(), 0);
    assert.deepEqual((await drawing().locator('.graph-edge-label').allTextContents()).sort(), ['no', 'yes']);
    await screenshot(page, 'automation-editor-02-built');

    await page.getByRole('button', { name: 'Create automation' }).click();
    await page.getByRole('heading', { name: 'Welcome flow', exact: true }).waitFor();
    automationId = page.url().split('/').at(-1)!;
    const saved = await t.resend.automations.get(automationId);
    assert.equal(saved.error, null, JSON.stringify(saved.error));
    assert.equal(saved.data!.status, 'disabled');
    assert.deepEqual(
      saved.data!.steps.map((s) => [s.key, s.type]),
      [
        ['start', 'trigger'],
        ['send_email', 'send_email'],
        ['delay', 'delay'],
        ['condition', 'condition'],
        ['add_to_segment', 'add_to_segment'],
        ['nudge', 'send_email'],
      ],
    );
    const configs = await t.sql(`SELECT steps FROM automations WHERE id = $1`, [automationId]);
    const config = (key: string) => (configs[0]!.steps as { key: string; config: unknown }[]).find((s) => s.key === key)!.config;
    assert.deepEqual(config('send_email'), { template: { id: templateId, variables: { plan: { var: 'event.plan' } } } });
    assert.deepEqual(config('condition'), { type: 'rule', field: 'event.plan', operator: 'eq', value: 'pro' });
    assert.deepEqual(config('add_to_segment'), { segment_id: segmentId });
    assert.deepEqual(config('nudge'), { template: { id: templateId }, subject: 'Pro is waiting for you' });
    assert.deepEqual(saved.data!.connections.map((c) => `${c.from}>${c.to}:${c.type}`).sort(), [
      'condition>add_to_segment:condition_met',
      'condition>nudge:condition_not_met',
      'delay>condition:default',
      'send_email>delay:default',
      'start>send_email:default',
    ]);
    // Drawn on its page.
    const graph = page.getByRole('img', { name: /The steps of Welcome flow: 6 steps/ });
    await graph.waitFor();
    assert.equal(await graph.locator('.graph-edge').count(), 5);
    // Its list names the template and the segment, not their ids.
    const list = page.getByRole('list', { name: 'The steps of Welcome flow: steps' });
    await list.getByText('add the contact to the segment “Pro customers”').waitFor();
    await list.getByText('send the template “Welcome” with the subject “Pro is waiting for you”').waitFor();
    await screenshot(page, 'automation-editor-03-saved');
  });

  it("shows the API's refusal at the step it names, then saves the step edited", async () => {
    await page.getByRole('link', { name: 'Edit', exact: true }).click();
    await page.getByRole('heading', { name: 'Edit Welcome flow' }).waitFor();
    await page.getByRole('button', { name: 'Edit step delay' }).click();
    const delay = panel('Delay: delay');
    await delay.getByLabel('Wait for').fill('soon');
    await page.getByRole('button', { name: 'Save changes' }).click();
    const refusal = delay.getByRole('alert');
    await refusal.waitFor();
    assert.equal(
      await refusal.textContent(),
      'The `steps[2].config.duration` field must be a duration such as "30 minutes", "1 hour" or "3 days", at most 30 days, not "soon".',
    );
    assert.equal(await delay.getByLabel('Wait for').getAttribute('aria-invalid'), 'true');
    assert.equal(await drawing().locator('.graph-node.problem').count(), 1);
    assert.match((await drawing().locator('.graph-node.problem').textContent())!, /delay/);
    assert.equal((await t.resend.automations.get(automationId)).data!.steps[2]!.config.duration, '1 day', 'nothing was saved');
    await assertAccessible(page, 'editor with the API refusal');
    await screenshot(page, 'automation-editor-04-refused');

    // Editing the step takes the message away; saved, the page shows the change.
    await delay.getByLabel('Wait for').fill('2 days');
    assert.equal(await delay.getByRole('alert').count(), 0);
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('heading', { name: 'Welcome flow', exact: true }).waitFor();
    await page.getByText('wait 2 days').waitFor();
    assert.equal((await t.resend.automations.get(automationId)).data!.steps[2]!.config.duration, '2 days');
  });

  it('asks before unsaved changes are lost: a link in the app, Back, and a reload', async () => {
    await page.getByRole('link', { name: 'Edit', exact: true }).click();
    await page.getByLabel('Name', { exact: true }).fill('Welcome flow v2');
    const leaving = page.getByRole('dialog', { name: 'Leave without saving?' });

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Automations' }).click();
    await leaving.waitFor();
    await assertAccessible(page, 'leave dialog');
    await screenshot(page, 'automation-editor-05-leave');
    await leaving.getByRole('button', { name: 'Cancel' }).click();
    assert.equal(await page.getByLabel('Name', { exact: true }).inputValue(), 'Welcome flow v2');
    assert.match(page.url(), /\/edit$/);

    await page.goBack();
    await leaving.waitFor();
    assert.match(page.url(), /\/edit$/, 'the address is put back while the dialog asks');
    await leaving.getByRole('button', { name: 'Cancel' }).click();

    // The browser's own question before a reload; dismissed, the page and its changes stay.
    await dismissReloadQuestion(page);
    assert.equal(await page.getByLabel('Name', { exact: true }).inputValue(), 'Welcome flow v2');

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Automations' }).click();
    await leaving.getByRole('button', { name: 'Leave' }).click();
    await page.getByRole('heading', { name: 'Automations', exact: true }).waitFor();
    assert.equal((await t.resend.automations.get(automationId)).data!.name, 'Welcome flow', 'the change was not saved');
  });

  it('reads at phone width', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${t.url}/dashboard/automations/${automationId}/edit`);
    await page.getByRole('heading', { name: 'Edit Welcome flow' }).waitFor();
    await page.getByRole('button', { name: 'Edit step condition' }).click();
    assert.deepEqual(await overflowing(page), [], 'the editor does not scroll sideways');
    await screenshot(page, 'automation-editor-06-phone');
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('is enabled, runs for an event sent for a contact, and is disabled', async () => {
    await page.goto(`${t.url}/dashboard/automations/${automationId}`);
    await page.getByRole('button', { name: 'Enable' }).click();
    await page.locator('.facts').getByText('enabled').waitFor();
    assert.equal((await t.resend.automations.get(automationId)).data!.status, 'enabled');

    const sent = await t.resend.events.send({ event: 'user.signed_up', email: 'ann@example.org', payload: { plan: 'pro' } });
    assert.equal(sent.error, null, JSON.stringify(sent.error));
    const runId = await runOf(t, automationId, 'ann@example.org');
    const run = await runWhen(t, automationId, runId, (r) => stepOf(r, 'delay')?.status === 'waiting');
    assert.equal(stepOf(run, 'send_email')!.status, 'completed', 'the welcome email was sent');
    assert.equal(stepOf(run, 'send_email')!.output!.to, 'ann@example.org');
    const runLink = page.getByRole('link', { name: `${runId.slice(0, 8)} (run ${runId})` });
    await runLink.waitFor({ timeout: 10_000 });
    await assertAccessible(page, 'automation page, enabled');
    await screenshot(page, 'automation-editor-07-running');

    await page.getByRole('button', { name: 'Disable' }).click();
    await page.locator('.facts').getByText('disabled').waitFor();
    assert.equal((await t.resend.automations.get(automationId)).data!.status, 'disabled');
    assert.equal((await t.resend.automations.runs.get({ automationId, runId })).data!.status, 'running', 'disabling lets the runs under way go on');
  });
});
