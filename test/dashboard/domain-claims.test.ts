// A domain claim in a real browser: adding a domain another account holds is refused, and the
// page offers to claim it; the claim's placeholder is marked in the list and on its page, with the
// TXT record to publish; "Verify claim" before the record is published says why it is still
// pending, and once the record is on the (loopback) DNS server the domain moves to this account.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { Resend } from 'resend';
import { createAccount } from '../../src/accounts/accounts.js';
import { createVerifiedDomain } from '../support/domains.js';
import { startTestPostline, type TestPostline } from '../support/postline.js';
import { assertAccessible, launchChromium, screenshot, signInNewUser } from './browser.js';

const NAME = 'claimed.postline.test';

describe('dashboard: claiming a domain another account holds', () => {
  let t: TestPostline;
  let holder: Resend;
  let heldId: string;
  let browser: Browser;
  let page: Page;
  let placeholderId: string;
  let txt: string;

  before(async () => {
    t = await startTestPostline();
    holder = new Resend((await createAccount(t.postline.db, 'Holder')).token, { baseUrl: t.url });
    heldId = (await createVerifiedDomain({ dns: t.dns, resend: holder }, NAME)).id;
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await signInNewUser(context, { url: t.url, db: t.postline.db }, 'Default', 'owner@claims.postline.test');
    page = await context.newPage();
  });
  after(async () => {
    await browser?.close();
    await t?.stop();
  });

  it("offers a claim where adding the domain is refused, and opens the claim's placeholder with its TXT record", async () => {
    await page.goto(`${t.url}/dashboard/domains`);
    await page.getByLabel('Domain name').fill(NAME);
    await page.getByRole('button', { name: 'Add domain' }).click();
    await page
      .getByRole('alert')
      .filter({ hasText: /registered already/ })
      .waitFor();
    await screenshot(page, 'domains-05-claim-offer');
    await page.getByRole('button', { name: `Claim ${NAME}` }).click();
    await page.getByRole('heading', { name: NAME }).waitFor();
    placeholderId = page.url().split('/').pop()!;
    const claim = (await t.resend.domains.claims.get(placeholderId)).data!;
    assert.equal(claim.status, 'pending');
    txt = (await page.getByTestId('claim-record').textContent())!;
    assert.equal(txt, claim.record.value);
    await page.getByText('claim pending').first().waitFor();
    assert.equal(await page.getByRole('button', { name: 'Verify now' }).count(), 0, 'a placeholder verifies through its claim');
    await assertAccessible(page, "a claim's placeholder domain");
  });

  it('marks the placeholder in the list', async () => {
    await page.getByRole('link', { name: '← Domains' }).click();
    const row = page.getByRole('row').filter({ has: page.getByRole('link', { name: NAME }) });
    await row.getByText('claim pending').waitFor();
    await page.getByRole('link', { name: NAME }).click();
    await page.getByRole('button', { name: 'Verify claim' }).waitFor();
  });

  it('verifying before the TXT record is published leaves the claim pending, saying why', async () => {
    await page.getByRole('button', { name: 'Verify claim' }).click();
    await page.getByRole('status').filter({ hasText: 'Checked: pending' }).waitFor();
    await page.getByText(`Last check: No TXT record \`${txt}\` was found at \`${NAME}\`.`).waitFor();
    assert.equal((await holder.domains.get(heldId)).data?.status, 'verified', "the holder's domain is untouched");
    await screenshot(page, 'domains-06-claim-pending');
  });

  it('moves the domain once the TXT record is published: the page becomes the domain of this account', async () => {
    t.dns.set(NAME, { TXT: [txt] });
    await page.getByRole('button', { name: 'Verify claim' }).click();
    await page.getByRole('button', { name: 'Verify now' }).waitFor();
    assert.equal(await page.getByText('claim pending').count(), 0);
    assert.equal((await t.resend.domains.claims.get(placeholderId)).data?.status, 'completed');
    assert.equal((await holder.domains.get(heldId)).error?.name, 'not_found');
    const { data } = await t.resend.domains.get(placeholderId);
    assert.equal((data as { placeholder?: true }).placeholder, undefined);
  });
});
