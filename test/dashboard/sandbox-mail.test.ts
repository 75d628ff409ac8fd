// Captured mail in a real browser (POSTLINE_SANDBOX=true), and mail as hostile content: an
// email whose subject, sender name, a header and HTML carry <script> and event-handler
// payloads is sent with the resend SDK; the list and the message page show it as text, nothing
// of it runs (no global set, no dialog), its HTML renders in a frame sandboxed without scripts
// or same-origin, remote images load only when asked, and the raw message downloads with the
// session cookie alone.
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startTestPostline, type TestPostline } from '../support/postline.js';
import { artifactsDir, assertAccessible, openWatchedPage, screenshot } from './browser.js';

// A 1×1 PNG, served by "another site" (another port) as a remote image in mail.
const PIXEL = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYPj/HwADAQH/2ZzJWQAAAABJRU5ErkJggg==', 'base64');

const SUBJECT = '<script>window.__pwned=1</script> Invoice';
const html = (remoteImage: string) =>
  [
    '<!doctype html><html><head><style>h1 { color: rgb(0, 128, 0) }</style></head><body>',
    '<h1>Visible heading</h1>',
    '<p id="styled" style="color: rgb(200, 0, 0)">Styled paragraph</p>',
    '<img src=x onerror="window.parent.__pwned=1; alert(1)">',
    '<script>parent.__pwned=1; window.__pwned=1; alert(2)</script>',
    '<a href="javascript:parent.__pwned=1">a link</a>',
    '<svg onload="parent.__pwned=1"></svg>',
    `<img id="remote" src="${remoteImage}" alt="pixel">`,
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

  before(async () => {
    await new Promise<void>((resolve) => imageServer.listen(0, '127.0.0.1', resolve));
    remoteImage = `http://127.0.0.1:${(imageServer.address() as AddressInfo).port}/pixel.png`;
    t = await startTestPostline({ env: { POSTLINE_SANDBOX: 'true' } });
    ({ browser, page, dialogs, pwned } = await openWatchedPage({ url: t.url, db: t.postline.db }, 'dev@sandbox.postline.test'));
  });
  after(async () => {
    await browser?.close();
    await t?.stop();
    imageServer.close();
  });

  it('lists captured mail, the hostile subject and sender as text, under a nav item only a sandbox has', async () => {
    const sent = await t.resend.emails.send({
      from: '"<img src=x onerror=window.__pwned=1> Mallory" <mallory@hostile.postline.test>',
      to: 'victim@example.com',
      subject: SUBJECT,
      html: html(remoteImage),
      text: 'The plain text part <script>window.__pwned=1</script>',
      headers: { 'X-Payload': '<script>window.__pwned=1</script><img src=x onerror="alert(3)">' },
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
    await page.getByText('The plain text part <script>window.__pwned=1</script>').waitFor();
    const payload = page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: 'X-Payload' }) });
    assert.match((await payload.getByRole('cell').textContent()) ?? '', /^<script>window\.__pwned=1<\/script><img src=x onerror="alert\(3\)">$/);
    await page.getByRole('heading', { name: 'DKIM results' }).waitFor();
    assert.ok((await page.locator('table').filter({ hasText: 'Selector' }).getByRole('cell', { name: 'hostile.postline.test' }).count()) >= 1);
    await frame.locator('a').click(); // a javascript: link in a frame without scripts does nothing
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
});

/** A Content-Security-Policy's directives by name. */
function policy(header: string): Record<string, string> {
  return Object.fromEntries(header.split(/;\s*/).map((d) => [d.split(' ')[0]!, d.split(' ').slice(1).join(' ')]));
}
