// The Domains page in a real browser: a domain added in the UI is not verified until its
// records are on the (loopback) DNS server; "Verify now" then shows each record verified. Its
// settings saved in the UI are what the API reads back. Its DKIM key is rotated through a
// confirmation: the new key waits, pending, until its record is published and verified, then
// signs, and the old one is retiring until its time. It is deleted only after the confirmation.
// Another account's domain is not found.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { type PublishedRecord, publishRecords } from '../support/domains.js';
import { eventually } from '../support/eventually.js';
import { startTestPostline, type TestPostline } from '../support/postline.js';
import { assertAccessible, launchChromium, screenshot, signInNewUser } from './browser.js';

const NAME = 'pages.postline.test';

interface DkimKey {
  selector: string;
  status: string;
  record: { name: string; type: string; value: string };
  record_status: string;
  created_at: string;
  activated_at: string | null;
  retire_at: string | null;
}

const literally = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('dashboard: a domain added, verified, set up and deleted in a browser', () => {
  let t: TestPostline;
  let browser: Browser;
  let page: Page;
  let id: string;

  before(async () => {
    t = await startTestPostline();
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    await signInNewUser(context, { url: t.url, db: t.postline.db }, 'Default', 'owner@pages.postline.test');
    page = await context.newPage();
  });
  after(async () => {
    await browser?.close();
    await t?.stop();
  });

  const statuses = () => page.locator('table.records tbody tr td:last-child').allTextContents();

  it('adds the domain; verifying before the records exist leaves them not found', async () => {
    await page.goto(`${t.url}/dashboard/domains`);
    await page.getByLabel('Domain name').fill(NAME);
    await page.getByRole('button', { name: 'Add domain' }).click();
    await page.getByRole('heading', { name: NAME }).waitFor();
    id = page.url().split('/').pop()!;
    assert.deepEqual(new Set(await statuses()), new Set(['not started']));
    await page.getByRole('button', { name: 'Verify now' }).click();
    await page.getByRole('status').filter({ hasText: 'Checked' }).waitFor();
    const after = await statuses();
    assert.ok(!after.includes('verified'), `nothing is published yet: ${after}`);
    assert.notEqual((await t.resend.domains.get(id)).data?.status, 'verified');
  });

  it('verifies it once the records are published: every record verified', async () => {
    const { data } = await t.resend.domains.get(id);
    // DMARC, recommended rather than needed, is listed apart (Postline's recommended_records); the page shows both.
    const recommended = (data as unknown as { recommended_records: PublishedRecord[] }).recommended_records;
    publishRecords(t, NAME, [...(data!.records as PublishedRecord[]), ...recommended]);
    await page.getByRole('button', { name: 'Verify now' }).click();
    await page.getByText('Status: verified').waitFor();
    assert.deepEqual(new Set(await statuses()), new Set(['verified']));
    assert.equal((await t.resend.domains.get(id)).data?.status, 'verified');
    await screenshot(page, 'domains-01-verified');
    await assertAccessible(page, 'a verified domain with its settings');
  });

  it('shows where the new domain is in its warm-up: day 1 of 14, and what went to each provider today', async () => {
    await page.getByText('Day 1 of 14: up to 50 messages to each mailbox provider today').waitFor();
    // A domain hosted by Google (its MX host names the provider), on loopback like every host here.
    t.dns.set('gmail-hosted.test', { MX: [{ exchange: 'aspmx.l.google.com', priority: 1 }] });
    t.dns.set('aspmx.l.google.com', { A: ['127.0.0.1'] });
    for (const n of [1, 2]) {
      const { error } = await t.resend.emails.send({ from: `hi@${NAME}`, to: `r${n}@gmail-hosted.test`, subject: 'Hi', text: 'Hi' });
      assert.equal(error, null, JSON.stringify(error));
    }
    await t.sink.waitFor(2);
    await eventually(async () => {
      await page.reload();
      // The page (loaded on demand) and its domain drawn, then its warm-up table read.
      await page.getByText('Day 1 of 14: up to 50 messages to each mailbox provider today').waitFor();
      const row = page.locator('section[aria-labelledby="domain-warmup-title"] tbody tr');
      return (await row.count()) === 1 && (await row.allInnerTexts())[0]!.replace(/\s+/g, ' ').trim() === 'google 2 48';
    }, 10_000);
    await screenshot(page, 'domains-02-warm-up');
  });

  it('saves tracking, TLS and receiving settings, which the API reads back', async () => {
    await page.getByLabel('Track opens').check();
    await page.getByLabel('Track clicks').check();
    await page.getByLabel("TLS to recipients' servers").selectOption('enforced');
    await page.getByLabel('Receive mail at this domain').check();
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    const { data } = await t.resend.domains.get(id);
    assert.equal(data?.open_tracking, true);
    assert.equal(data?.click_tracking, true);
    assert.equal((data as any)?.tls, 'enforced');
    assert.equal(data?.capabilities.receiving, 'enabled');
    // Receiving adds its MX record to the table.
    await page
      .locator('table.records tbody tr')
      .filter({ hasText: 'MX' })
      .filter({ hasText: NAME.split('.')[0]! })
      .first()
      .waitFor();
    // A reload shows what was saved.
    await page.reload();
    assert.equal(await page.getByLabel('Track opens').isChecked(), true);
    assert.equal(await page.getByLabel("TLS to recipients' servers").inputValue(), 'enforced');
    await screenshot(page, 'domains-02-settings-saved');
  });

  // Postline's DKIM keys on the domain (GET /domains/:id dkim_keys), as the API lists them.
  const apiKeys = async () => ((await t.resend.domains.get(id)).data as unknown as { dkim_keys: DkimKey[] }).dkim_keys;
  const keysSection = () => page.getByRole('region', { name: 'DKIM keys' });
  const keyRow = (selector: string) => keysSection().locator(`tbody tr[data-selector="${selector}"]`);
  const rowText = async (selector: string) => (await keyRow(selector).locator('td').allTextContents()).join(' ').replace(/\s+/g, ' ');
  // The page's formatTime, in the browser's locale.
  const shownTime = (value: string) => page.evaluate((v) => new Date(v.replace(' ', 'T').replace(/\+00$/, 'Z')).toLocaleString(), value);
  let pendingValue: string;

  it('rotates the DKIM key after a confirmation: the new key waits, pending, with its record to publish', async () => {
    // Receiving, enabled above, added its MX record: published too, so the domain stays verified throughout.
    publishRecords(t, NAME, (await t.resend.domains.get(id)).data!.records as PublishedRecord[]);
    await page.goto(`${t.url}/dashboard/domains/${id}`);
    await keyRow('postline').waitFor();
    assert.equal(await keysSection().locator('tbody tr').count(), 1);
    // The signing key's record is the domain's DKIM record, verified with it.
    assert.match(await rowText('postline'), /active .*verified Active since /);
    // Cancelled: nothing changes.
    await page.getByRole('button', { name: 'Rotate DKIM key' }).click();
    const dialog = page.getByRole('dialog', { name: `Rotate the DKIM key of ${NAME}?` });
    await dialog.waitFor();
    assert.match(
      (await dialog.textContent()) ?? '',
      /new TXT record to publish[\s\S]*current signature \(postline\) until the new record is found[\s\S]*Keep the current key's record published until its retire time/,
    );
    await screenshot(page, 'domains-05-dkim-rotate-confirmation');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    assert.equal((await apiKeys()).length, 1, 'cancel starts no rotation');

    await page.getByRole('button', { name: 'Rotate DKIM key' }).click();
    await dialog.getByRole('button', { name: 'Rotate key' }).click();
    await keyRow('postline2').waitFor();
    assert.equal(await dialog.isVisible(), false);
    const keys = await apiKeys();
    assert.deepEqual(
      keys.map((k) => [k.selector, k.status]),
      [
        ['postline2', 'pending'],
        ['postline', 'active'],
      ],
    );
    pendingValue = keys[0]!.record.value;
    assert.match(pendingValue, /^p=[A-Za-z0-9+/=]{300,}$/);
    // The new key first, with its record and a copy button; the current one still signs.
    assert.equal(await keysSection().locator('tbody tr').first().getAttribute('data-selector'), 'postline2');
    assert.equal(await keyRow('postline2').locator('code.value').textContent(), pendingValue);
    assert.equal(await keyRow('postline2').locator('td[data-label="Name"]').textContent(), 'postline2._domainkey');
    await keyRow('postline2').getByRole('button', { name: 'Copy TXT value of DKIM key postline2' }).waitFor();
    assert.match(await rowText('postline2'), new RegExp(`pending .*not started Created ${literally(await shownTime(keys[0]!.created_at))}`));
    assert.match(await rowText('postline'), /active .*verified Active since /);
    // The record is also among the domain's records to publish.
    await page.locator('table.records tbody tr').filter({ hasText: 'postline2._domainkey' }).waitFor();
    // Another rotation is not offered while this one is under way.
    assert.equal(await page.getByRole('button', { name: 'Rotate DKIM key' }).count(), 0);
    assert.equal(await page.getByRole('button', { name: 'Rotation under way' }).isDisabled(), true);
    await keysSection().getByText('Rotation under way: publish the TXT record of the new key, postline2').waitFor();
    // Verified before it is published: not found, still pending.
    await page.getByRole('button', { name: 'Verify the new record' }).click();
    await keysSection().getByText('Last check: not found yet.').waitFor();
    assert.match(await rowText('postline2'), /pending .* failed Created/);
    assert.equal((await apiKeys())[0]!.status, 'pending');
    await assertAccessible(page, 'a DKIM rotation under way');
    await screenshot(page, 'domains-06-dkim-pending');
  });

  it('signs with the new key once its record is published and verified; the old one retires, its record kept until its time', async () => {
    t.dns.set(`postline2._domainkey.${NAME}`, { TXT: [`v=DKIM1; k=rsa; ${pendingValue}`] });
    await page.getByRole('button', { name: 'Verify the new record' }).click();
    await page.getByRole('status').filter({ hasText: 'Found: postline2 signs mail from now on.' }).waitFor();
    const keys = await apiKeys();
    assert.deepEqual(
      keys.map((k) => [k.selector, k.status]),
      [
        ['postline2', 'active'],
        ['postline', 'retiring'],
      ],
    );
    assert.equal(keys[0]!.record_status, 'verified');
    const [added, replaced] = keys as [DkimKey, DkimKey];
    assert.ok(replaced.retire_at && new Date(replaced.retire_at.replace(' ', 'T').replace(/\+00$/, 'Z')) > new Date(), 'retires later');
    assert.match(await rowText('postline2'), new RegExp(`active .*verified Active since ${literally(await shownTime(added.activated_at!))}`));
    assert.match(
      await rowText('postline'),
      new RegExp(`retiring .*not looked up Keep its record published until ${literally(await shownTime(replaced.retire_at!))}`),
    );
    assert.equal(await keyRow('postline').locator('code.value').textContent(), replaced.record.value, "the old key's record is still shown");
    // Signing moved: the domain's DKIM record is the new key's; the domain stays verified.
    const { data } = await t.resend.domains.get(id);
    assert.equal(data?.status, 'verified');
    assert.deepEqual(
      data?.records.filter((r) => r.record === 'DKIM').map((r) => r.name),
      ['postline2._domainkey'],
    );
    await page.getByRole('button', { name: 'Rotate DKIM key' }).waitFor();
    await assertAccessible(page, 'a DKIM key rotated, the old one retiring');
    await screenshot(page, 'domains-07-dkim-rotated');
  });

  it("answers not found for another account's domain", async () => {
    const other = await t.sql(`INSERT INTO accounts (id, name) VALUES (gen_random_uuid(), 'Other') RETURNING id`);
    await signInNewUser(page.context(), { url: t.url, db: t.postline.db }, other[0]!.id, 'other@pages.postline.test');
    await page.goto(`${t.url}/dashboard/domains/${id}`);
    await page.getByRole('heading', { level: 1, name: 'Domain not found' }).waitFor();
    await signInNewUser(page.context(), { url: t.url, db: t.postline.db }, 'Default', 'owner2@pages.postline.test');
  });

  it('deletes the domain only after the confirmation', async () => {
    await page.goto(`${t.url}/dashboard/domains/${id}`);
    await page.getByRole('button', { name: `Delete ${NAME}` }).click();
    const dialog = page.getByRole('dialog', { name: `Delete ${NAME}?` });
    await dialog.waitFor();
    await screenshot(page, 'domains-03-delete-confirmation');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    assert.equal((await t.resend.domains.get(id)).error, null, 'cancel keeps the domain');
    await page.getByRole('button', { name: `Delete ${NAME}` }).click();
    await dialog.getByRole('button', { name: 'Delete domain' }).click();
    await page.getByRole('heading', { name: 'Domains', exact: true }).waitFor();
    assert.equal((await t.resend.domains.get(id)).error?.name, 'not_found');
    assert.equal(await page.getByRole('link', { name: NAME }).count(), 0);
  });

  it('sends the app gzipped to a browser that takes it, and plain to one that does not', async () => {
    const html = await (await fetch(`${t.url}/dashboard/`)).text();
    const script = /src="(\/dashboard\/assets\/index-[\w-]+\.js)"/.exec(html)![1]!;
    const zipped = await fetch(t.url + script, { headers: { 'accept-encoding': 'gzip' } });
    assert.equal(zipped.headers.get('content-encoding'), 'gzip');
    assert.equal(zipped.headers.get('vary'), 'accept-encoding');
    const plain = await fetch(t.url + script, { headers: { 'accept-encoding': 'identity' } });
    assert.equal(plain.headers.get('content-encoding'), null);
    assert.equal(await zipped.text(), await plain.text());
  });

  it('reads at phone width', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByLabel('Domain name').fill('phone.postline.test');
    await page.getByRole('button', { name: 'Add domain' }).click();
    await page.getByRole('heading', { name: 'phone.postline.test' }).waitFor();
    await screenshot(page, 'domains-04-phone');
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(overflow <= 0, `the page scrolls sideways by ${overflow}px`);
  });
});
