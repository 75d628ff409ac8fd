// Captured mail in a real browser (POSTLINE_SANDBOX=true), and mail as hostile content: an
// email whose subject, sender name, a header and HTML carry <script> and event-handler
// payloads is sent with the resend SDK; the list and the message page show it as text, nothing
// of it runs (no global set, no dialog), its HTML renders in a frame sandboxed without scripts
// or same-origin, remote images load only when asked, and the raw message downloads with the
// session cookie alone. Then what Mailpit does with it: the HTML's source as text, the
// attachments as downloads (an HTML one never rendered), a link check on request (links to a
// local server, which POSTLINE_SANDBOX_LINK_CHECK_ALLOW_PRIVATE opens), release to a real
// address through a relay (a real SMTP sink), delete one message, search as one types, and
// delete all; each new state and dialog screenshot and scanned by axe.
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { eventually } from '../support/eventually.js';
import { MxSink } from '../support/mx-sink.js';
import { startTestPostline, type TestPostline } from '../support/postline.js';
import { artifactsDir, assertAccessible, openWatchedPage, screenshot } from './browser.js';

// A 1×1 PNG, served by "another site" (another port) as a remote image in mail.
const PIXEL = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYPj/HwADAQH/2ZzJWQAAAABJRU5ErkJggg==', 'base64');

const SUBJECT = '<script>window.__pwned=1</script> Invoice';
const ATTACHED_PAGE = '<script>window.parent.__pwned=1; alert(4)</script><h1>An attached page</h1>';
const html = (remoteImage: string, links: string) =>
  [
    '<!doctype html><html><head><style>h1 { color: rgb(0, 128, 0) }</style></head><body>',
    '<h1>Visible heading</h1>',
    '<p id="styled" style="color: rgb(200, 0, 0)">Styled paragraph</p>',
    '<img src=x onerror="window.parent.__pwned=1; alert(1)">',
    '<script>parent.__pwned=1; window.__pwned=1; alert(2)</script>',
    '<a href="javascript:parent.__pwned=1">a link</a>',
    '<svg onload="parent.__pwned=1"></svg>',
    `<img id="remote" src="${remoteImage}" alt="pixel">`,
    `<a href="${links}/ok">a working link</a> <a href="${links}/missing">a broken link</a>`,
    '</body></html>',
  ].join('\n');

describe('dashboard: captured mail in sandbox mode, and mail content never runs', () => {
  let t: TestPostline;
  let browser: Browser;
  let page: Page;
  let dialogs: string[];
  let pwned: () => Promise<unknown>;
  // Requests the "remote" image server received: the tracking a remote image does.
  const remoteRequests: string[] = [];
  const imageServer = http.createServer((req, res) => {
    remoteRequests.push(req.url!);
    res.writeHead(200, { 'content-type': 'image/png' }).end(PIXEL);
  });
  let remoteImage: string;
  // The web the mail's links point at (another server than the image's: its requests are its own).
  const linkServer = http.createServer((req, res) => res.writeHead(req.url === '/ok' ? 200 : 404).end());
  let links: string;
  // The relay POSTLINE_SANDBOX_RELEASE_URL names: released mail arrives here.
  const relay = new MxSink('127.0.0.1');

  before(async () => {
    await new Promise<void>((resolve) => imageServer.listen(0, '127.0.0.1', resolve));
    remoteImage = `http://127.0.0.1:${(imageServer.address() as AddressInfo).port}/pixel.png`;
    await new Promise<void>((resolve) => linkServer.listen(0, '127.0.0.1', resolve));
    links = `http://127.0.0.1:${(linkServer.address() as AddressInfo).port}`;
    await relay.start();
    t = await startTestPostline({
      env: {
        POSTLINE_SANDBOX: 'true',
        POSTLINE_SANDBOX_RELEASE_URL: `smtp://127.0.0.1:${relay.port}`,
        POSTLINE_SANDBOX_LINK_CHECK_ALLOW_PRIVATE: '127.0.0.1',
      },
    });
    ({ browser, page, dialogs, pwned } = await openWatchedPage({ url: t.url, db: t.postline.db }, 'dev@sandbox.postline.test'));
  });
  after(async () => {
    await browser?.close();
    await t?.stop();
    await relay.stop();
    imageServer.close();
    linkServer.close();
  });

  it('lists captured mail, the hostile subject and sender as text, under a nav item only a sandbox has', async () => {
    const sent = await t.resend.emails.send({
      from: '"<img src=x onerror=window.__pwned=1> Mallory" <mallory@hostile.postline.test>',
      to: 'victim@example.com',
      subject: SUBJECT,
      html: html(remoteImage, links),
      text: 'The plain text part <script>window.__pwned=1</script>',
      headers: { 'X-Payload': '<script>window.__pwned=1</script><img src=x onerror="alert(3)">' },
      attachments: [{ filename: 'invoice".html', content: Buffer.from(ATTACHED_PAGE).toString('base64'), contentType: 'text/html' }],
    });
    assert.equal(sent.error, null, JSON.stringify(sent.error));
    await page.goto(`${t.url}/dashboard/`);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Captured mail' }).click();
    const link = page.getByRole('link', { name: SUBJECT });
    await link.waitFor();
    await page.getByRole('cell', { name: /Mallory/ }).waitFor();
    assert.match((await page.getByRole('cell', { name: /Mallory/ }).textContent()) ?? '', /<img src=x onerror=window.__pwned=1> Mallory/);
    await page.getByRole('cell', { name: 'victim@example.com' }).waitFor();
    await page.getByRole('cell', { name: 'pass' }).waitFor();
    assert.equal(await pwned(), undefined);
    assert.deepEqual(dialogs, []);
    await screenshot(page, 'sandbox-01-captured-list');
    await assertAccessible(page, 'captured mail');
  });

  it('shows the message: HTML in a sandboxed frame without scripts, text, headers, DKIM; nothing runs', async () => {
    await page.getByRole('link', { name: SUBJECT }).click();
    await page.getByRole('heading', { name: SUBJECT }).waitFor();
    const iframe = page.locator('iframe.preview');
    assert.equal(await iframe.getAttribute('sandbox'), '', 'sandboxed with no allowance at all (no allow-scripts, no allow-same-origin)');
    const frame = page.frameLocator('iframe.preview');
    await frame.getByRole('heading', { name: 'Visible heading' }).waitFor();
    await frame.getByText('Styled paragraph').waitFor();
    // The mail's own styles apply: inline and <style>.
    assert.equal(await frame.locator('#styled').evaluate((e) => getComputedStyle(e).color), 'rgb(200, 0, 0)');
    assert.equal(await frame.locator('h1').evaluate((e) => getComputedStyle(e).color), 'rgb(0, 128, 0)');
    // The text part, in its tab; then back to the HTML.
    await page.getByRole('tab', { name: 'Text' }).click();
    await page.getByText('The plain text part <script>window.__pwned=1</script>').waitFor();
    await page.getByRole('tab', { name: 'HTML', exact: true }).click();
    await frame.getByRole('heading', { name: 'Visible heading' }).waitFor();
    const payload = page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: 'X-Payload' }) });
    assert.match((await payload.getByRole('cell').textContent()) ?? '', /^<script>window\.__pwned=1<\/script><img src=x onerror="alert\(3\)">$/);
    await page.getByRole('heading', { name: 'DKIM results' }).waitFor();
    assert.ok((await page.locator('table').filter({ hasText: 'Selector' }).getByRole('cell', { name: 'hostile.postline.test' }).count()) >= 1);
    await frame.locator('a[href^="javascript:"]').click(); // a javascript: link in a frame without scripts does nothing
    assert.equal(await pwned(), undefined);
    const frameHandle = page.frames().find((f) => f !== page.mainFrame())!;
    assert.equal(await frameHandle.evaluate(() => (window as { __pwned?: unknown }).__pwned), undefined);
    assert.deepEqual(dialogs, []);
    assert.deepEqual(remoteRequests, [], 'no remote image before asking');
    await screenshot(page, 'sandbox-02-message');
    await assertAccessible(page, 'a captured message');
    // A full-page capture leaves the frame blank in Chromium: the frame as a person sees it too.
    await page.locator('iframe.preview').scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(artifactsDir, 'sandbox-02-message-frame.png') });
  });

  it('loads remote images only when asked', async () => {
    await page.getByRole('button', { name: 'Load remote images' }).click();
    const frame = page.frameLocator('iframe.preview');
    await frame.getByText('Styled paragraph').waitFor();
    await frame.locator('#remote').evaluate((img: HTMLImageElement) => img.decode());
    assert.equal(await frame.locator('#remote').evaluate((img: HTMLImageElement) => img.naturalWidth), 1);
    assert.deepEqual(remoteRequests, ['/pixel.png']);
    await page.locator('iframe.preview').scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(artifactsDir, 'sandbox-03-remote-images.png') });
    assert.equal(await page.locator('iframe.preview').getAttribute('sandbox'), '');
    assert.equal(await pwned(), undefined);
    assert.deepEqual(dialogs, []);
  });

  it('downloads the raw message with a plain link (the session cookie is enough for a GET)', async () => {
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: /Download the raw message/ }).click()]);
    const raw = await fs.readFile((await download.path())!, 'utf8');
    assert.match(raw, /^DKIM-Signature: /m);
    assert.match(raw, /^X-Payload: /m);
    assert.match(raw, /Visible heading/);
    assert.match(download.suggestedFilename(), /^[0-9a-f-]{36}\.eml$/);
  });

  it('sends a Content-Security-Policy that allows scripts, styles and images from the dashboard only', async () => {
    const directives = policy((await page.request.get(`${t.url}/dashboard/captured`)).headers()['content-security-policy']!);
    assert.equal(directives['script-src'], "'self'");
    assert.equal(directives['style-src'], "'self'", 'no inline styles: the mail preview is a document of its own');
    assert.equal(directives['img-src'], "'self' data:", 'no remote images in the dashboard itself');
    assert.equal(directives['frame-src'], "'self'");
    assert.equal(directives['frame-ancestors'], "'none'");
    assert.equal(directives['default-src'], "'none'");
  });

  it('serves the preview under a sandboxing policy of its own, only to the session with its anti-forgery token', async () => {
    // The message's page again (still open from the tests above): its frame's document.
    const [response] = await Promise.all([page.waitForResponse((r) => r.url().endsWith('/dashboard/preview')), page.reload()]);
    assert.equal(response.status(), 200);
    const directives = policy(response.headers()['content-security-policy']!);
    assert.equal(directives.sandbox, '', 'no origin, no scripts, even when opened outside the frame');
    assert.equal(directives['script-src'], undefined);
    assert.equal(directives['default-src'], "'none'");
    assert.equal(directives['style-src'], "'unsafe-inline'");
    assert.equal(directives['img-src'], 'data: cid:');
    assert.equal(directives['frame-ancestors'], "'self'");

    const html = '<h1 style="color:red">Hi</h1><script>window.__pwned=1</script>';
    const csrf = (await (await page.request.get(`${t.url}/dashboard/api/session`)).json()).csrf_token as string;
    const post = (form: Record<string, string>, headers: Record<string, string> = {}) => page.request.post(`${t.url}/dashboard/preview`, { form, headers });
    const forged = await post({ html });
    assert.equal(forged.status(), 403);
    assert.deepEqual(await forged.json(), { statusCode: 403, name: 'invalid_csrf_token', message: "This preview needs your session's anti-forgery token." });
    const remote = await post({ html, csrf_token: csrf, remote: 'true' });
    assert.equal(remote.status(), 200);
    assert.equal(await remote.text(), html, 'the HTML as given: the policy, not rewriting, keeps it harmless');
    assert.match(policy(remote.headers()['content-security-policy']!)['img-src']!, /https: http:/);
    const anonymous = await fetch(`${t.url}/dashboard/preview`, { method: 'POST', body: new URLSearchParams({ html, csrf_token: csrf }) });
    assert.equal(anonymous.status, 401);
    assert.equal(((await anonymous.json()) as { name: string }).name, 'invalid_session');
  });
  /** The hostile message's page, opened from the list. */
  async function openHostileMessage(): Promise<void> {
    await page.goto(`${t.url}/dashboard/captured`);
    await page.getByRole('link', { name: SUBJECT }).click();
    await page.getByRole('heading', { name: SUBJECT }).waitFor();
  }

  it('shows the HTML source as text in its own tab: every payload visible, nothing runs', async () => {
    await openHostileMessage();
    await page.getByRole('tab', { name: 'HTML source' }).click();
    const source = page.getByRole('region', { name: 'The HTML source' });
    await source.waitFor();
    const text = (await source.textContent()) ?? '';
    assert.match(text, /<script>parent\.__pwned=1; window\.__pwned=1; alert\(2\)<\/script>/);
    assert.match(text, /<img src=x onerror="window\.parent\.__pwned=1; alert\(1\)">/);
    assert.equal(await source.locator('script, img, svg, a').count(), 0, 'text, not markup');
    assert.equal(await pwned(), undefined);
    assert.deepEqual(dialogs, []);
    await source.scrollIntoViewIfNeeded();
    await screenshot(page, 'sandbox-04-html-source');
    await assertAccessible(page, 'the HTML source tab');
  });

  it('lists the attachments with type and size, and downloads an HTML one without rendering it', async () => {
    const table = page.getByRole('table', { name: "The message's attachments" });
    const row = table.getByRole('row').filter({ hasText: 'invoice".html' });
    await row.getByRole('cell', { name: 'text/html' }).waitFor();
    await row.getByRole('cell', { name: `${Buffer.byteLength(ATTACHED_PAGE)} bytes` }).waitFor();
    const [download] = await Promise.all([page.waitForEvent('download'), row.getByRole('link', { name: 'invoice".html' }).click()]);
    assert.equal(await fs.readFile((await download.path())!, 'utf8'), ATTACHED_PAGE);
    assert.match(download.suggestedFilename(), /^invoice.\.html$/);
    assert.equal(page.url().includes('/attachments/'), false, 'the page stays: a download, not a navigation');
    assert.equal(await pwned(), undefined);
    assert.deepEqual(dialogs, []);
    await table.scrollIntoViewIfNeeded();
    await screenshot(page, 'sandbox-05-attachments');
    await assertAccessible(page, 'the attachments');
  });

  it('checks the links on request, each with its status', async () => {
    const section = page.getByRole('region', { name: 'Links' });
    assert.equal(await section.getByRole('table').count(), 0, 'nothing checked before asking');
    await section.getByRole('button', { name: 'Check links' }).click();
    await section.getByRole('status').filter({ hasText: '2 links checked: 1 with a problem.' }).waitFor();
    const rowOf = (path: string) => section.getByRole('row').filter({ has: page.getByRole('rowheader', { name: `${links}${path}` }) });
    await rowOf('/ok').getByRole('cell', { name: '200' }).waitFor();
    await rowOf('/missing').getByRole('cell', { name: '404' }).waitFor();
    assert.equal(await section.getByText('javascript:').count(), 0, 'only http(s) links are checked');
    await section.scrollIntoViewIfNeeded();
    await screenshot(page, 'sandbox-06-link-check');
    await assertAccessible(page, 'the link check');
  });

  it('releases the message to a real address through the relay, after asking', async () => {
    const panel = page.getByRole('region', { name: 'Release' });
    await panel.getByText(`127.0.0.1:${relay.port}`).first().waitFor();
    await panel.getByLabel('Release to').fill('Real Person <real@inbox.example.net>');
    await panel.getByRole('button', { name: 'Release…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Release this message?' });
    await dialog.waitFor();
    assert.match((await dialog.textContent()) ?? '', /Real Person <real@inbox\.example\.net>/);
    assert.equal(relay.messages.length, 0, 'nothing sent before the answer');
    await screenshot(page, 'sandbox-07-release-dialog');
    await assertAccessible(page, 'the release dialog');
    await dialog.getByRole('button', { name: 'Release' }).click();
    await panel.getByRole('status').filter({ hasText: 'Released to real@inbox.example.net as a new email.' }).waitFor();
    await relay.waitFor(1);
    assert.deepEqual(relay.messages[0]!.to, ['real@inbox.example.net']);
    assert.match(relay.messages[0]!.raw.toString('latin1'), /An attached page|invoice/);
    // Its row: the email's last event, delivered once the relay took it (read again on reload).
    const href = (await panel.getByRole('status').getByRole('link', { name: 'a new email' }).getAttribute('href'))!;
    const emailId = href.split('/').pop()!;
    await eventually(async () => (await t.resend.emails.get(emailId)).data?.last_event === 'delivered', 15_000, 'the release delivered');
    await page.reload();
    const row = page.getByRole('region', { name: 'Release' }).getByRole('row').filter({ hasText: 'real@inbox.example.net' });
    await row.getByRole('link', { name: 'delivered' }).waitFor();
    assert.equal(await row.getByRole('link', { name: 'delivered' }).getAttribute('href'), `/dashboard/emails/${emailId}`);
    await page.getByRole('region', { name: 'Release' }).scrollIntoViewIfNeeded();
    await screenshot(page, 'sandbox-08-released');
    await assertAccessible(page, 'a released message');
  });

  it('deletes the message after asking, back to the list without it', async () => {
    await page.getByRole('button', { name: 'Delete…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete this captured message?' });
    await dialog.waitFor();
    await screenshot(page, 'sandbox-09-delete-dialog');
    await assertAccessible(page, 'the delete dialog');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await page.getByRole('heading', { name: SUBJECT }).waitFor();
    await page.getByRole('button', { name: 'Delete…' }).click();
    await dialog.getByRole('button', { name: 'Delete', exact: true }).click();
    await page.getByRole('heading', { name: 'Captured mail', level: 1 }).waitFor();
    assert.ok(page.url().endsWith('/dashboard/captured'));
    await page.getByText('Nothing captured yet').waitFor();
    assert.equal(await page.getByRole('link', { name: SUBJECT }).count(), 0);
  });

  it('searches as one types, once the typing pauses', async () => {
    for (const [subject, to] of [
      ['Weekly digest', 'ann@example.com'],
      ['Password reset for Ann', 'ann@example.com'],
      ['Your receipt', 'bob@example.org'],
    ]) {
      const sent = await t.resend.emails.send({ from: 'App <app@shop.test>', to: to!, subject: subject!, html: `<p>${subject}</p>` });
      assert.equal(sent.error, null, JSON.stringify(sent.error));
    }
    await page.reload();
    for (const subject of ['Weekly digest', 'Password reset for Ann', 'Your receipt']) await page.getByRole('link', { name: subject }).waitFor();
    const searched: string[] = [];
    page.on('request', (request) => {
      const search = new URL(request.url()).searchParams.get('search');
      if (request.url().includes('/sandbox/messages?') && search && searched.at(-1) !== search) searched.push(search);
    });
    const box = page.getByRole('searchbox', { name: 'Search captured mail' });
    await box.pressSequentially('RESET', { delay: 20 });
    await eventually(async () => (await page.getByRole('link', { name: 'Weekly digest' }).count()) === 0, 10_000, 'the list searched');
    await page.getByRole('link', { name: 'Password reset for Ann' }).waitFor();
    assert.equal(await page.getByRole('link', { name: 'Your receipt' }).count(), 0);
    assert.equal(searched.at(-1), 'RESET');
    assert.ok(searched.length < 5, `one search per pause in typing, not one per key: ${JSON.stringify(searched)}`);
    await screenshot(page, 'sandbox-10-search');
    await assertAccessible(page, 'a search of captured mail');
    await box.fill('example.org');
    await page.getByRole('link', { name: 'Your receipt' }).waitFor();
    await eventually(async () => (await page.getByRole('link', { name: 'Password reset for Ann' }).count()) === 0, 10_000, 'a recipient searched');
    await box.fill('nothing like this');
    await page.getByText('No captured mail matches “nothing like this”.').waitFor();
    await screenshot(page, 'sandbox-11-search-empty');
    await assertAccessible(page, 'a search that finds nothing');
    await box.fill('');
    await page.getByRole('link', { name: 'Weekly digest' }).waitFor();
  });

  it('deletes all captured mail after asking', async () => {
    await page.getByRole('button', { name: 'Delete all…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete all captured mail?' });
    await dialog.waitFor();
    await screenshot(page, 'sandbox-12-delete-all-dialog');
    await assertAccessible(page, 'the delete-all dialog');
    await dialog.getByRole('button', { name: 'Delete all' }).click();
    await page.getByRole('status').filter({ hasText: 'Deleted 3 captured messages.' }).waitFor();
    await page.getByText('Nothing captured yet').waitFor();
    assert.deepEqual((await t.sql('SELECT count(*)::int AS n FROM sandbox_messages'))[0].n, 0);
    await screenshot(page, 'sandbox-13-deleted-all');
    await assertAccessible(page, 'captured mail, all deleted');
  });
});

/** A Content-Security-Policy's directives by name. */
function policy(header: string): Record<string, string> {
  return Object.fromEntries(header.split(/;\s*/).map((d) => [d.split(' ')[0]!, d.split(' ').slice(1).join(' ')]));
}
