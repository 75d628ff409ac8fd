// The Templates pages in a real browser: a template created from the UI, its HTML edited with
// a variable, the live preview (rendered by the server's renderer, in the sandboxed frame)
// following the fallback and then a typed sample value, an undefined placeholder refused in
// the preview as saving would refuse it; saved, published, sent with the resend SDK using the
// template, and the MX sink gets the rendered content; duplicated; deleted after a confirmation.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import PostalMime from 'postal-mime';
import { FROM, publishMx, startDeliveryTest } from '../delivery/support.js';
import type { TestPostline } from '../support/postline.js';
import { artifactsDir, assertAccessible, launchChromium, screenshot, signInNewUser } from './browser.js';
import { overflowing } from './phone-width.js';

describe('dashboard: templates, edited with a live preview, published and sent', () => {
  let t: TestPostline;
  let browser: Browser;
  let page: Page;
  let templateId: string;

  before(async () => {
    t = await startDeliveryTest();
    publishMx(t, 'example.test', [{ name: 'mx.example.test', priority: 10, address: '127.0.0.1' }]);
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await signInNewUser(context, { url: t.url, db: t.postline.db }, 'Default', 'designer@templates.postline.test');
    page = await context.newPage();
  });
  after(async () => {
    await browser?.close();
    await t?.stop();
  });

  const frame = () => page.frameLocator('iframe[title="Preview of the template\'s HTML"]');

  it('says what to do on an empty list; creates a template and opens its editor', async () => {
    await page.goto(`${t.url}/dashboard/templates`);
    await page.getByText('No templates yet').waitFor();
    await assertAccessible(page, 'templates, empty');
    await screenshot(page, 'templates-01-empty');
    await page.getByLabel('Name').fill('Welcome');
    await page.getByLabel('HTML').fill('<h1>Hello</h1>');
    await page.getByRole('button', { name: 'Create and edit' }).click();
    await page.getByRole('heading', { level: 1, name: 'Welcome' }).waitFor();
    templateId = page.url().split('/').at(-1)!;
    assert.equal((await t.resend.templates.get(templateId)).data!.status, 'draft');
    await page.locator('.status', { hasText: 'draft' }).waitFor();
    await frame().getByRole('heading', { name: 'Hello' }).waitFor();
  });

  it('previews the HTML with a variable: its fallback, then a typed sample value (escaped)', async () => {
    await page.getByRole('button', { name: 'Add variable' }).click();
    await page.getByLabel('Key of variable 1').fill('NAME');
    await page.getByLabel('Fallback of NAME').fill('there');
    await page.getByLabel('Subject').fill('Welcome, {{{NAME}}}');
    await page.getByLabel('From').fill(FROM);
    await page.getByLabel('HTML').fill('<h1 style="color: rgb(0, 90, 0)">Hello {{{NAME}}}</h1><p>Thanks for joining.</p>');
    await page.getByLabel('Text').fill('Hello {{{NAME}}}');
    await page.getByText('Unsaved changes').waitFor();
    await frame().getByRole('heading', { name: 'Hello there' }).waitFor();
    await frame().getByText('Thanks for joining.').waitFor();
    await page.getByTestId('preview-subject').getByText('Welcome, there').waitFor();
    assert.equal(
      await frame()
        .locator('h1')
        .evaluate((e) => getComputedStyle(e).color),
      'rgb(0, 90, 0)',
      "the mail's own styles apply",
    );

    await page.getByLabel('Sample value of NAME').fill('Ann <b>');
    await frame().getByRole('heading', { name: 'Hello Ann <b>' }).waitFor();
    assert.equal(await frame().locator('h1 b').count(), 0, 'a value is text, never markup');
    await page.getByTestId('preview-subject').getByText('Welcome, Ann <b>').waitFor();
    await page.locator('pre.mail-text', { hasText: 'Hello Ann <b>' }).waitFor();
    const iframe = page.locator('iframe.preview');
    assert.equal(await iframe.getAttribute('sandbox'), '', 'the sandboxed frame of the mail viewer');
    await assertAccessible(page, 'the template editor with a preview');
    await iframe.scrollIntoViewIfNeeded();
    await screenshot(page, 'templates-02-editor-preview');
    await page.screenshot({ path: `${artifactsDir}/templates-02b-editor-viewport.png` });
  });

  it('refuses an undefined placeholder in the preview with the message saving gives', async () => {
    const html = page.getByLabel('HTML');
    const before = await html.inputValue();
    await html.fill(`${before}<p>{{{COUPON}}}</p>`);
    await page.getByRole('alert').getByText("Variable 'COUPON' is used in the template but not defined in the variables list").waitFor();
    await page.getByText('Showing the last preview that rendered.').waitFor();
    await page.getByRole('button', { name: 'Save draft' }).click();
    await page.getByRole('alert').filter({ hasText: "Variable 'COUPON'" }).nth(1).waitFor();
    assert.equal((await t.resend.templates.get(templateId)).data!.html, '<h1>Hello</h1>', 'nothing saved');
    await html.fill(before);
    await frame().getByRole('heading', { name: 'Hello Ann <b>' }).waitFor();
    // Both messages go once the draft is right again: the preview's and the refused save's.
    await page.getByRole('alert').waitFor({ state: 'detached' });
  });

  it('saves the draft, then publishes it (status visible); a later edit shows unpublished changes', async () => {
    await page.getByRole('button', { name: 'Save draft' }).click();
    await page.getByText('All changes saved').waitFor();
    const saved = (await t.resend.templates.get(templateId)).data!;
    assert.equal(saved.subject, 'Welcome, {{{NAME}}}');
    assert.deepEqual(
      saved.variables!.map((v) => [v.key, v.type, v.fallback_value]),
      [['NAME', 'string', 'there']],
    );
    assert.equal(saved.status, 'draft');
    await page.getByRole('button', { name: 'Publish' }).click();
    await page.locator('.status', { hasText: 'published' }).waitFor();
    await page.getByText(/^Published /).waitFor();
    assert.equal((await t.resend.templates.get(templateId)).data!.status, 'published');
    // The sample value is the preview's alone, and stays after saving.
    assert.equal(await page.getByLabel('Sample value of NAME').inputValue(), 'Ann <b>');
  });

  it('sends with the SDK using the published template: the sink gets the rendered content', async () => {
    const { data, error } = await t.resend.emails.send({ to: 'zoe@example.test', template: { id: templateId, variables: { NAME: 'Zoë & co' } } } as any);
    assert.equal(error, null, JSON.stringify(error));
    await t.sink.waitFor(1);
    const mail = await PostalMime.parse(t.sink.messages[0]!.raw);
    assert.equal(mail.subject, 'Welcome, Zoë & co');
    assert.match(mail.html!, /<h1 style="color: rgb\(0, 90, 0\)">Hello Zoë &amp; co<\/h1><p>Thanks for joining.<\/p>/);
    assert.match(mail.text!, /^Hello Zoë & co/);
    assert.equal(mail.from?.address, 'hello@sender.test');
    assert.ok(data!.id);
  });

  it('duplicates it as a new draft and lists both; at phone width the editor still reads', async () => {
    await page.getByRole('button', { name: 'Duplicate' }).click();
    await page.getByRole('heading', { level: 1, name: 'Welcome (Copy)' }).waitFor();
    const copyId = page.url().split('/').at(-1)!;
    assert.notEqual(copyId, templateId);
    await page.locator('.status', { hasText: 'draft' }).waitFor();
    assert.equal(await page.getByLabel('Subject').inputValue(), 'Welcome, {{{NAME}}}');
    await frame().getByRole('heading', { name: 'Hello there' }).waitFor();

    await page.setViewportSize({ width: 390, height: 844 });
    assert.deepEqual(await overflowing(page), [], 'no sideways scrolling of the page');
    await assertAccessible(page, 'the template editor at phone width');
    await screenshot(page, 'templates-03-copy-phone');
    await page.setViewportSize({ width: 1280, height: 900 });

    await page.getByRole('link', { name: '← Templates' }).click();
    const rows = page.getByRole('row').filter({ has: page.getByRole('rowheader') });
    await rows.nth(1).waitFor();
    assert.deepEqual(await rows.getByRole('rowheader').allTextContents(), ['Welcome (Copy)', 'Welcome']);
    assert.deepEqual(await rows.locator('.status').allTextContents(), ['draft', 'published']);
    await assertAccessible(page, 'templates, two');
    await screenshot(page, 'templates-04-list');
  });

  it('deletes the copy after a confirmation', async () => {
    await page.getByRole('link', { name: 'Welcome (Copy)' }).click();
    await page.getByRole('button', { name: 'Delete' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete this template?' });
    await dialog.getByRole('button', { name: 'Delete template' }).click();
    await page.getByRole('heading', { level: 1, name: 'Templates' }).waitFor();
    await page.getByRole('link', { name: 'Welcome', exact: true }).waitFor();
    assert.equal(await page.getByRole('link', { name: 'Welcome (Copy)' }).count(), 0);
    assert.equal((await t.resend.templates.list()).data!.data.length, 1);
  });
});
