// Issue 37 in a browser: the broadcast send confirmation says how many contacts the broadcast
// goes to and how many are left out (GET /broadcasts/:id/recipients-count); the broadcast and
// template editors ask before unsaved changes are lost (unsaved-changes.tsx), as the
// automation editor does: a link in the app, Back, and a reload.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { createContacts, createSegment, FROM, startBroadcastTest } from '../broadcasts/support.js';
import { rawRequest, type TestPostline } from '../support/postline.js';
import { assertAccessible, dismissReloadQuestion, launchChromium, screenshot, signInNewUser } from './browser.js';

describe('dashboard: broadcast audience count and unsaved changes', () => {
  let t: TestPostline;
  let browser: Browser;
  let page: Page;
  let broadcastId: string;
  let templateId: string;
  let bobId: string;

  before(async () => {
    t = await startBroadcastTest();
    const topic = (await t.resend.topics.create({ name: 'Product news', defaultSubscription: 'opt_in' })).data!.id;
    assert.equal((await rawRequest(t, 'POST', '/suppressions', { body: { email: 'blocked@example.org' } })).status, 201);
    const segmentId = await createSegment(t, 'Customers');
    const ids = await createContacts(t, segmentId, [
      ...['ann', 'bob', 'cy', 'dee'].map((n) => ({ email: `${n}@example.org` })),
      { email: 'carol@example.org', unsubscribed: true },
      { email: 'dave@example.org', unsubscribed: true },
      { email: 'eve@example.org', unsubscribed: true },
      { email: 'blocked@example.org' },
      { email: 'fay@example.org', topics: [{ id: topic, subscription: 'opt_out' as const }] },
    ]);
    bobId = ids[1]!;
    const created = await t.resend.broadcasts.create({
      name: 'Spring news',
      segmentId,
      topicId: topic,
      from: FROM,
      subject: 'Spring',
      html: '<p>Hi</p>',
    } as any);
    broadcastId = created.data!.id;
    templateId = (await t.resend.templates.create({ name: 'Receipt', subject: 'Your receipt', html: '<p>Thanks</p>' })).data!.id;
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    await signInNewUser(context, { url: t.url, db: t.postline.db }, 'Default', 'editor@audience-count.postline.test');
    page = await context.newPage();
  });
  after(async () => {
    await browser?.close();
    await t?.stop();
  });

  it('says in the send confirmation how many contacts it goes to, and who is left out', async () => {
    await page.goto(`${t.url}/dashboard/broadcasts/${broadcastId}`);
    await page.getByRole('heading', { name: 'Spring news' }).waitFor();
    await page.getByRole('button', { name: 'Send now…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Send this broadcast now?' });
    await dialog
      .getByText('It will go to 4 contacts (3 unsubscribed, 1 not subscribed to its topic and 1 suppressed are left out).', { exact: true })
      .waitFor();
    await assertAccessible(page, 'send confirmation');
    await screenshot(page, 'broadcast-send-confirm-count');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    assert.equal((await t.resend.broadcasts.get(broadcastId)).data!.status, 'draft', 'nothing sent');

    // Read afresh when it opens again: bob unsubscribes meanwhile.
    assert.equal((await rawRequest(t, 'PATCH', `/contacts/${bobId}`, { body: { unsubscribed: true } })).status, 200);
    await page.getByRole('button', { name: 'Send now…' }).click();
    await dialog.getByText('It will go to 3 contacts (4 unsubscribed,', { exact: false }).waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
  });

  it('asks before leaving the broadcast editor with unsaved changes', async () => {
    await page.getByRole('link', { name: 'Edit', exact: true }).click();
    await page.getByRole('heading', { name: 'Edit the broadcast' }).waitFor();
    const leaving = page.getByRole('dialog', { name: 'Leave without saving?' });
    // Unchanged, leaving does not ask.
    await page.getByRole('link', { name: '← Back to the broadcast' }).click();
    await page.getByRole('heading', { name: 'Spring news' }).waitFor();
    await page.getByRole('link', { name: 'Edit', exact: true }).click();
    await page.getByLabel('Subject', { exact: true }).fill('Spring is here');

    await page.getByRole('link', { name: '← Back to the broadcast' }).click();
    await leaving.waitFor();
    await assertAccessible(page, 'leave the broadcast editor');
    await screenshot(page, 'broadcast-compose-leave');
    await leaving.getByRole('button', { name: 'Cancel' }).click();
    assert.equal(await page.getByLabel('Subject', { exact: true }).inputValue(), 'Spring is here');

    await page.goBack();
    await leaving.waitFor();
    assert.match(page.url(), /\/edit$/, 'the address is put back while the dialog asks');
    await leaving.getByRole('button', { name: 'Cancel' }).click();

    await dismissReloadQuestion(page);

    // Saved, the editor leaves without asking.
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('heading', { name: 'Spring news' }).waitFor();
    assert.equal(await leaving.isVisible(), false);
    assert.equal((await t.resend.broadcasts.get(broadcastId)).data!.subject, 'Spring is here');
  });

  it('asks before leaving the template editor with unsaved changes', async () => {
    await page.goto(`${t.url}/dashboard/templates/${templateId}`);
    await page.getByRole('heading', { name: 'Receipt' }).waitFor();
    await page.getByLabel('Subject', { exact: true }).fill('Your receipt, again');
    const leaving = page.getByRole('dialog', { name: 'Leave without saving?' });

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Templates' }).click();
    await leaving.waitFor();
    await leaving.getByText('The changes to this template are not saved').waitFor();
    await assertAccessible(page, 'leave the template editor');
    await screenshot(page, 'template-editor-leave');
    await leaving.getByRole('button', { name: 'Cancel' }).click();
    assert.equal(await page.getByLabel('Subject', { exact: true }).inputValue(), 'Your receipt, again');

    // Saved, nothing to ask; changed again and left on purpose, the change is lost.
    await page.getByRole('button', { name: 'Save draft' }).click();
    await page.getByText('All changes saved').waitFor();
    await page.getByLabel('Subject', { exact: true }).fill('Not kept');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Templates' }).click();
    await leaving.getByRole('button', { name: 'Leave' }).click();
    await page.getByRole('heading', { name: 'Templates', exact: true }).waitFor();
    assert.equal((await t.resend.templates.get(templateId)).data!.subject, 'Your receipt, again');
  });
});
