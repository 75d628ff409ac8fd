// OAuth grants on the API keys page, in a real browser: a grant issued in the UI shows its token
// once, and that token works as the app's credential through the SDK; the list shows the app,
// scope, domain, created and last used (its newest request in the logs); revoking asks first,
// and the token is refused from then on.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { Resend } from 'resend';
import { createVerifiedDomain } from '../support/domains.js';
import { startTestPostline, type TestPostline } from '../support/postline.js';
import { assertAccessible, launchChromium, screenshot, signInNewUser } from './browser.js';

describe('dashboard: OAuth grants issued, listed and revoked on the API keys page', () => {
  let t: TestPostline;
  let browser: Browser;
  let page: Page;
  let token: string;

  const grantRow = (app: string) => page.getByRole('row').filter({ has: page.getByRole('cell', { name: app, exact: true }) });

  before(async () => {
    t = await startTestPostline();
    await createVerifiedDomain(t, 'grants.test');
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await signInNewUser(context, { url: t.url, db: t.postline.db }, 'Default', 'owner@grants.postline.test');
    page = await context.newPage();
  });
  after(async () => {
    await browser?.close();
    await t?.stop();
  });

  it('issues a sending-only grant narrowed to one domain: its token is shown once', async () => {
    await page.goto(`${t.url}/dashboard/api-keys`);
    await page.getByRole('heading', { name: 'OAuth grants' }).waitFor();
    await page.getByLabel('Application').fill('Newsletter tool');
    await page.getByLabel('Sending only (emails:send)').check();
    await page.getByLabel('Domain', { exact: true }).selectOption({ label: 'grants.test' });
    await page.getByRole('button', { name: 'Issue grant' }).click();
    await page.getByRole('heading', { name: 'The token for “Newsletter tool”' }).waitFor();
    await grantRow('Newsletter tool').waitFor();
    const cells = await grantRow('Newsletter tool').getByRole('cell').allTextContents();
    assert.deepEqual(cells.slice(0, 3), ['Newsletter tool', 'Sending only', 'grants.test']);
    assert.equal(cells[4], 'never');
    const { data } = await t.resend.oauthGrants.list();
    const grant = data!.data.find((g) => g.client.name === 'Newsletter tool')!;
    assert.deepEqual(grant.scopes, ['emails:send']);
    await page.getByRole('button', { name: 'Done' }).last().click();
    assert.equal(await page.getByTestId('new-grant-token').count(), 0, 'not shown again');
  });

  it("issues a full-access grant whose token is the app's credential; the list says when it was last used", async () => {
    await page.getByLabel('Application').fill('Reporting app');
    await page.getByLabel('All of the API (full_access)').check();
    await page.getByRole('button', { name: 'Issue grant' }).click();
    await page.getByRole('heading', { name: 'The token for “Reporting app”' }).waitFor();
    token = (await page.getByTestId('new-grant-token').textContent())!;
    assert.match(token, /^re_/);
    const app = new Resend(token, { baseUrl: t.url });
    const listed = await app.domains.list();
    assert.equal(listed.error, null, JSON.stringify(listed.error));
    await page.reload();
    await grantRow('Reporting app').waitFor();
    const cells = await grantRow('Reporting app').getByRole('cell').allTextContents();
    assert.deepEqual(cells.slice(0, 3), ['Reporting app', 'Full access', 'Any']);
    assert.notEqual(cells[4], 'never', 'its request is in the logs');
    await assertAccessible(page, 'API keys with OAuth grants');
    await screenshot(page, 'api-keys-02-oauth-grants');
  });

  it('revokes a grant only after the confirmation; its token is refused from then on', async () => {
    await page.getByRole('button', { name: 'Revoke the grant of Reporting app' }).click();
    const dialog = page.getByRole('dialog', { name: 'Revoke this grant?' });
    await dialog.waitFor();
    await screenshot(page, 'api-keys-03-revoke-grant');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    assert.equal((await new Resend(token, { baseUrl: t.url }).domains.list()).error, null, 'cancel keeps the grant');
    await page.getByRole('button', { name: 'Revoke the grant of Reporting app' }).click();
    await dialog.getByRole('button', { name: 'Revoke grant' }).click();
    await grantRow('Reporting app')
      .getByText(/^Revoked /)
      .waitFor();
    const refused = await new Resend(token, { baseUrl: t.url }).domains.list();
    assert.equal(refused.error?.name, 'invalid_api_key');
    assert.ok((await t.resend.oauthGrants.list()).data!.data.find((g) => g.client.name === 'Reporting app')!.revoked_at);
  });
});
