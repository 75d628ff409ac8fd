// The Automations pages in a real browser: an automation created with the resend SDK is
// listed with its trigger, and its page draws the steps as a graph (a box per step, an arrow
// per connection with the condition's branches labelled) with the same graph written out as
// a list; events sent with the SDK start runs, whose pages show each step's state (done,
// waiting until …, failed with the reason); stop and duplicate, each after a confirmation,
// and the API agrees.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { createAutomation, runOf, runWhen, setUpSending, stepOf } from '../automations/support.js';
import { startDeliveryTest } from '../delivery/support.js';
import type { TestPostline } from '../support/postline.js';
import { assertAccessible, launchChromium, screenshot, signInNewUser } from './browser.js';
import { overflowing } from './phone-width.js';

describe('dashboard: automations, their graph and their runs', () => {
  let t: TestPostline;
  let browser: Browser;
  let page: Page;
  let automationId: string;
  let proRun: string;
  let freeRun: string;

  before(async () => {
    t = await startDeliveryTest();
    const { templateId } = await setUpSending(t);
    // A template deleted once the automation exists: the step that sends it fails when reached.
    const doomed = await t.resend.templates.create({ name: 'Nudge', from: 'Acme <hello@acme.test>', subject: 'Still there?', html: '<p>Hi</p>' }).publish();
    assert.equal(doomed.error, null, JSON.stringify(doomed.error));
    automationId = await createAutomation(t, {
      name: 'Onboarding',
      status: 'enabled',
      steps: [
        { key: 'start', type: 'trigger', config: { eventName: 'user.signed_up' } },
        { key: 'is_pro', type: 'condition', config: { type: 'rule', field: 'event.plan', operator: 'eq', value: 'pro' } },
        { key: 'wait_a_day', type: 'delay', config: { duration: '1 day' } },
        { key: 'welcome', type: 'send_email', config: { template: { id: templateId } } },
        { key: 'nudge', type: 'send_email', config: { template: { id: doomed.data!.id } } },
      ],
      connections: [
        { from: 'start', to: 'is_pro' },
        { from: 'is_pro', to: 'wait_a_day', type: 'condition_met' },
        { from: 'wait_a_day', to: 'welcome' },
        { from: 'is_pro', to: 'nudge', type: 'condition_not_met' },
      ],
    });
    assert.equal((await t.resend.templates.remove(doomed.data!.id)).error, null);
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await signInNewUser(context, { url: t.url, db: t.postline.db }, 'Default', 'ops@automations.postline.test');
    page = await context.newPage();
  });
  after(async () => {
    await browser?.close();
    await t?.stop();
  });

  it('lists the automation with its status and trigger', async () => {
    await page.goto(`${t.url}/dashboard/`);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Automations' }).click();
    const row = page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: 'Onboarding' }) });
    await row.getByText('user.signed_up').waitFor();
    assert.deepEqual((await row.getByRole('cell').allTextContents()).slice(0, 2), ['enabled', 'user.signed_up']);
    await assertAccessible(page, 'automations list');
    await screenshot(page, 'automations-01-list');
  });

  it("draws the automation's steps as a graph, with the branches labelled and written out as a list", async () => {
    await page.getByRole('link', { name: 'Onboarding' }).click();
    await page.getByRole('heading', { name: 'Onboarding' }).waitFor();
    const drawing = page.getByRole('img', { name: /The steps of Onboarding: 5 steps/ });
    await drawing.waitFor();
    assert.equal(await drawing.locator('.graph-node').count(), 5);
    assert.equal(await drawing.locator('.graph-edge').count(), 4);
    assert.deepEqual((await drawing.locator('.graph-edge-label').allTextContents()).sort(), ['no', 'yes']);
    // The boxes are in layers: the trigger on top, the condition under it, its two branches side by side.
    const y = async (key: string) => (await drawing.locator('.graph-node').filter({ hasText: key }).boundingBox())!.y;
    assert.ok((await y('start')) < (await y('is_pro')));
    assert.equal(await y('wait_a_day'), await y('nudge'));
    assert.ok((await y('wait_a_day')) < (await y('welcome')));
    const steps = page.getByRole('list', { name: 'The steps of Onboarding: steps' }).getByRole('listitem');
    assert.deepEqual(
      (await steps.allTextContents()).map((s) => s.split(':')[0]),
      ['start (Trigger)', 'is_pro (Condition)', 'wait_a_day (Delay)', 'nudge (Send email)', 'welcome (Send email)'],
    );
    assert.match((await steps.nth(1).textContent())!, /if event\.plan eq "pro"\.yes: then wait_a_day; no: then nudge/);
    await page.getByText('No runs yet').waitFor();
    await assertAccessible(page, 'automation page');
    await screenshot(page, 'automations-02-graph');
  });

  it("shows the runs events start, and each run's steps: done, waiting until …, failed with the reason", async () => {
    for (const [email, plan] of [
      ['ann@example.org', 'pro'],
      ['bob@example.org', 'free'],
    ]) {
      const sent = await t.resend.events.send({ event: 'user.signed_up', email, payload: { plan } });
      assert.equal(sent.error, null, JSON.stringify(sent.error));
    }
    proRun = await runOf(t, automationId, 'ann@example.org');
    freeRun = await runOf(t, automationId, 'bob@example.org');
    await runWhen(t, automationId, proRun, (r) => stepOf(r, 'wait_a_day')?.status === 'waiting');
    const failed = await runWhen(t, automationId, freeRun, (r) => r.status === 'failed');
    const reason = (stepOf(failed, 'nudge')!.error as { message: string }).message;

    // The runs list refreshes itself.
    const runLink = (id: string) => page.getByRole('link', { name: `${id.slice(0, 8)} (run ${id})` });
    await runLink(proRun).waitFor({ timeout: 10_000 });
    await runLink(freeRun).waitFor();
    const proRow = page.getByRole('row').filter({ has: runLink(proRun) });
    assert.equal(await proRow.getByRole('cell').first().textContent(), 'running');
    await screenshot(page, 'automations-03-runs');

    await runLink(proRun).click();
    await page.getByRole('heading', { name: /Run .* of Onboarding/ }).waitFor();
    const waiting = page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: 'wait_a_day' }) });
    assert.match((await waiting.getByRole('cell').nth(1).textContent())!, /^waiting Waiting until .+\.$/);
    const condition = page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: 'is_pro' }) });
    assert.match((await condition.getByRole('cell').nth(1).textContent())!, /^completed Done .*: condition met\.$/);
    const drawing = page.getByRole('img', { name: /This run's steps/ });
    assert.equal(await drawing.locator('.graph-node.state-completed').count(), 2);
    assert.equal(await drawing.locator('.graph-node.state-waiting').count(), 1);
    assert.equal(await drawing.locator('.graph-node.state-not_reached').count(), 2, 'welcome and nudge');
    const steps = page.getByRole('list', { name: "This run's steps: steps" });
    await steps.getByText('Not reached.').first().waitFor();
    await assertAccessible(page, 'run page (waiting)');
    await screenshot(page, 'automations-04-run-waiting');

    await page.goto(`${t.url}/dashboard/automations/${automationId}/runs/${freeRun}`);
    const nudge = page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: 'nudge' }) });
    await nudge.waitFor();
    assert.equal(await nudge.getByRole('cell').nth(1).textContent(), `failed Failed: ${reason}.`);
    await page.getByText('failed', { exact: true }).first().waitFor();
    await screenshot(page, 'automations-05-run-failed');
  });

  it('reads at phone width: the drawing is scaled to fit, the list follows it', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${t.url}/dashboard/automations/${automationId}`);
    const drawing = page.getByRole('img', { name: /The steps of Onboarding/ });
    await drawing.waitFor();
    assert.deepEqual(await overflowing(page), [], 'the page does not scroll sideways');
    const box = page.getByRole('region', { name: /The steps of Onboarding: drawing/ });
    const sideways = await box.evaluate((e) => e.scrollWidth - e.clientWidth);
    assert.ok(sideways <= 0, `the drawing fits its box, without scrolling sideways (${sideways}px too wide)`);
    const natural = Number(await drawing.getAttribute('width'));
    const { width } = (await drawing.boundingBox())!;
    assert.ok(natural > 390 && width < 390 && width >= 0.6 * natural, `scaled down, not past legibility (${width}px of ${natural})`);
    await screenshot(page, 'automations-06-phone');
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('stops the automation after a confirmation: disabled, its running run cancelled', async () => {
    await page.getByRole('button', { name: 'Stop' }).click();
    const dialog = page.getByRole('dialog', { name: 'Stop Onboarding?' });
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    assert.equal((await t.resend.automations.get(automationId)).data!.status, 'enabled', 'cancelling the dialog changes nothing');
    await page.getByRole('button', { name: 'Stop' }).click();
    await dialog.getByRole('button', { name: 'Stop' }).click();
    await page.locator('.facts').getByText('disabled').waitFor();
    assert.equal((await t.resend.automations.get(automationId)).data!.status, 'disabled');
    const run = await t.resend.automations.runs.get({ automationId, runId: proRun });
    assert.equal(run.data!.status, 'cancelled');
    await page
      .getByRole('row')
      .filter({ hasText: proRun.slice(0, 8) })
      .getByText('cancelled')
      .waitFor({ timeout: 10_000 });
  });

  it('duplicates it after a confirmation, and opens the copy', async () => {
    await page.getByRole('button', { name: 'Duplicate' }).click();
    await page.getByRole('dialog', { name: 'Duplicate Onboarding?' }).getByRole('button', { name: 'Duplicate' }).click();
    await page.getByRole('heading', { name: 'Onboarding (Copy)' }).waitFor();
    const copyId = page.url().split('/').at(-1)!;
    assert.notEqual(copyId, automationId);
    const copy = await t.resend.automations.get(copyId);
    assert.equal(copy.data!.name, 'Onboarding (Copy)');
    assert.equal(copy.data!.steps.length, 5);
    assert.equal(
      await page
        .getByRole('img', { name: /The steps of Onboarding \(Copy\): 5 steps/ })
        .locator('.graph-node')
        .count(),
      5,
    );
    await screenshot(page, 'automations-07-duplicate');
  });
});
