// Suppressions and API request logs in a real browser. An address added in the UI is on the
// API's list (and a send to it is suppressed), is found by the look-up, filtered by reason,
// and removed after a confirmation, after which the API no longer has it. A hard bounce
// suppresses an address by itself, shown with its reason. A bad request made with the resend
// SDK (422) is found on the Logs page by filtering on status 422, and its page shows the
// request and response bodies as stored.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { FROM, publishMx, send, startDeliveryTest, waitForLastEvent } from '../delivery/support.js';
import type { TestPostline } from '../support/postline.js';
import { assertAccessible, launchChromium, screenshot, signInNewUser, watchFailures } from './browser.js';

describe('dashboard: suppressions and request logs', () => {
  let t: TestPostline;
  let browser: Browser;
  let page: Page;

  before(async () => {
    t = await startDeliveryTest();
    publishMx(t, 'bouncy.test', [{ name: 'mx.bouncy.test', priority: 10, address: '127.0.0.1' }]);
    t.sink.onRecipient = (rcpt) => (rcpt.startsWith('gone@') ? { code: 550, message: '5.1.1 No such user' } : undefined);
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await signInNewUser(context, { url: t.url, db: t.postline.db }, 'Default', 'ops@suppressions.postline.test');
    page = await context.newPage();
  });
  after(async () => {
    await browser?.close();
    await t?.stop();
  });

  const listed = async () => (await t.resend.suppressions.list()).data!.data.map((s) => `${s.email} ${s.origin}`).sort();

  it('says what to do when nothing is suppressed', async () => {
    await page.goto(`${t.url}/dashboard/`);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Suppressions' }).click();
    await page.getByText('No address is suppressed.').waitFor();
    await screenshot(page, 'suppressions-01-empty');
  });

  it('adds an address in the UI, and the API has it (a send to it is suppressed)', async () => {
    await page.getByLabel('Address', { exact: true }).first().fill('Someone@Example.com');
    await page.getByRole('button', { name: 'Suppress' }).click();
    await page.getByRole('status').getByText('someone@example.com is suppressed.').waitFor();
    await page.getByRole('rowheader', { name: 'someone@example.com' }).waitFor();
    assert.deepEqual(await listed(), ['someone@example.com manual']);
    const id = await send(t, { to: 'someone@example.com' });
    await waitForLastEvent(t, id, 'suppressed');
  });

  it('shows a hard-bounced address with its reason, filters by reason, and looks one address up', async () => {
    const id = await send(t, { to: 'gone@bouncy.test', from: FROM });
    await waitForLastEvent(t, id, 'bounced');
    await page.reload();
    const bounced = page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: 'gone@bouncy.test' }) });
    assert.match((await bounced.getByRole('cell').first().textContent())!, new RegExp(`^Hard bounceemail ${id}$`));
    await page.getByLabel('Reason').selectOption('bounce');
    await page.getByRole('rowheader', { name: 'someone@example.com' }).waitFor({ state: 'detached' });
    await bounced.waitFor();
    await page.getByLabel('Reason').selectOption('');
    await page.getByRole('rowheader', { name: 'someone@example.com' }).waitFor();

    const lookup = page.getByRole('form', { name: 'Is an address suppressed?' });
    await lookup.getByLabel('Address').fill('nobody@example.com');
    // "Not suppressed" is an ordinary answer: nothing failed is logged for it.
    const watch = watchFailures(page);
    await lookup.getByRole('button', { name: 'Look up' }).click();
    await page.getByText('nobody@example.com is not suppressed.').waitFor();
    watch.stop();
    assert.deepEqual(watch.failures, []);
    await lookup.getByLabel('Address').fill('GONE@bouncy.test');
    await lookup.getByRole('button', { name: 'Look up' }).click();
    await page.getByRole('table', { name: 'Found gone@bouncy.test' }).waitFor();
    await assertAccessible(page, 'suppressions');
    await screenshot(page, 'suppressions-02-list');
  });

  it('removes an address after a confirmation, and the API agrees', async () => {
    const row = page
      .locator('table:not(:has(caption))')
      .getByRole('row')
      .filter({ has: page.getByRole('rowheader', { name: 'someone@example.com' }) });
    await row.getByRole('button', { name: 'Remove someone@example.com' }).click();
    const dialog = page.getByRole('dialog', { name: 'Remove someone@example.com?' });
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    assert.deepEqual(await listed(), ['gone@bouncy.test bounce', 'someone@example.com manual'], 'cancelled: nothing removed');
    await row.getByRole('button', { name: 'Remove someone@example.com' }).click();
    await dialog.getByRole('button', { name: 'Remove' }).click();
    await row.waitFor({ state: 'detached' });
    assert.deepEqual(await listed(), ['gone@bouncy.test bounce']);
  });

  it('reads at phone width', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.reload();
    await page.getByRole('rowheader', { name: 'gone@bouncy.test' }).waitFor();
    await screenshot(page, 'suppressions-03-phone');
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(overflow <= 0, `the page itself does not scroll sideways (${overflow}px)`);
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('finds a bad SDK request on the Logs page by its status, and shows its bodies', async () => {
    const bad = await t.resend.emails.send({ from: FROM, to: 'someone@example.org', subject: 'No body at all' } as never);
    assert.equal(bad.error?.statusCode, 422);
    await t.resend.domains.list();
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Logs' }).click();
    await page.getByRole('link', { name: 'GET /domains' }).first().waitFor();
    // The dashboard's own requests are not API requests: none of them is listed.
    assert.equal(await page.getByRole('link', { name: 'GET /logs' }).count(), 0);
    await page.getByLabel('Status').fill('422');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.getByRole('link', { name: 'GET /domains' }).waitFor({ state: 'detached' });
    await page.getByRole('link', { name: 'POST /emails' }).waitFor(); // the filtered list, not its loading state
    const rows = page.getByRole('table').getByRole('row');
    assert.equal(await rows.count(), 2, 'the header and the one 422');
    const row = rows.nth(1);
    assert.equal(await row.getByRole('rowheader').textContent(), 'POST /emails');
    assert.equal(await row.getByRole('cell').first().textContent(), '422');
    await assertAccessible(page, 'logs filtered');
    await screenshot(page, 'logs-01-filtered');

    await row.getByRole('link', { name: 'POST /emails' }).click();
    await page.getByRole('heading', { name: 'POST /emails' }).waitFor();
    const request = JSON.parse((await page.getByRole('region', { name: 'Request body' }).textContent())!);
    assert.deepEqual(request, { from: FROM, to: 'someone@example.org', subject: 'No body at all' });
    const response = JSON.parse((await page.getByRole('region', { name: 'Response body' }).textContent())!);
    assert.deepEqual(response, bad.error);
    await assertAccessible(page, 'log page');
    await screenshot(page, 'logs-02-log');
  });

  it('filters by path and by key, and says so when nothing matches', async () => {
    await page.goBack();
    await page.getByLabel('Status').fill('');
    await page.getByLabel('Path starts with').fill('/domains');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.getByRole('link', { name: 'POST /emails' }).waitFor({ state: 'detached' });
    await page.getByRole('link', { name: 'GET /domains' }).first().waitFor();
    const key = await t.resend.apiKeys.create({ name: 'Unused key' });
    assert.equal(key.error, null);
    await page.getByRole('button', { name: 'Clear' }).click();
    await page.reload();
    await page.getByLabel('API key').selectOption({ label: 'Unused key' });
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.getByText('No request matches these filters').waitFor();
  });

  it("lists what dashboard users changed, with who made the change, beside the API's requests", async () => {
    await page.getByRole('button', { name: 'Clear' }).click();
    await page.getByLabel('Made from').selectOption('dashboard');
    await page.getByRole('button', { name: 'Filter' }).click();
    // The address suppressed from the Suppressions page earlier, by this test's user.
    const row = page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: 'POST /suppressions' }) });
    await row.waitFor();
    assert.equal(await page.getByRole('link', { name: 'GET /domains' }).count(), 0, "the API's requests are filtered out");
    assert.match((await row.textContent())!, /ops@suppressions\.postline\.test \(dashboard\)/);
    await assertAccessible(page, 'logs: dashboard changes');
    await screenshot(page, 'logs-03-dashboard-changes');
  });
});
