// Received mail in a real browser, as hostile content: a remote MTA delivers to a receiving
// domain over SMTP (nodemailer, unauthenticated, STARTTLS) a DKIM-signed message whose
// subject, sender name, a header and HTML carry <script> and event-handler payloads, with an
// inline image and a PDF attached. The list and the message page show it as text and nothing
// of it runs; the HTML renders in the shared viewer's frame sandboxed without scripts or
// same-origin; SPF, DKIM and DMARC verdicts are Postline's; the attachment and the raw
// message download through the signed URLs the API gives.
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { composeMessage, deliverInbound, publishDkimKey, startInboundTest } from '../inbound/support.js';
import { createVerifiedDomain } from '../support/domains.js';
import { eventually } from '../support/eventually.js';
import type { TestPostline } from '../support/postline.js';
import { assertAccessible, openWatchedPage, screenshot } from './browser.js';

const SUBJECT = '<script>window.__pwned=1</script> Invoice';
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYPj/HwADAQH/2ZzJWQAAAABJRU5ErkJggg==', 'base64');
const PDF = Buffer.from('%PDF-1.4 an invoice\n%%EOF\n');
const HTML = [
  '<!doctype html><html><body>',
  '<h1>Visible heading</h1>',
  '<p><img id="logo" src="cid:logo@remote" alt="logo"></p>',
  '<img src=x onerror="window.parent.__pwned=1; alert(1)">',
  '<script>parent.__pwned=1; window.__pwned=1; alert(2)</script>',
  '<a href="javascript:parent.__pwned=1">a link</a>',
  '<svg onload="parent.__pwned=1"></svg>',
  '</body></html>',
].join('\n');

describe('dashboard: received mail, shown safely with its attachments', () => {
  let t: TestPostline;
  let browser: Browser;
  let page: Page;
  let emailId: string;
  let dialogs: string[];
  let pwned: () => Promise<unknown>;

  before(async () => {
    t = await startInboundTest();
    await createVerifiedDomain(t, 'inbox.test', { receiving: true });
    t.dns.set('remote.test', { TXT: ['v=spf1 ip4:127.0.0.1 -all'] });
    t.dns.set('_dmarc.remote.test', { TXT: ['v=DMARC1; p=reject'] });
    const privateKey = publishDkimKey(t, 'remote.test');
    const raw = await composeMessage(
      {
        from: '"<img src=x onerror=window.__pwned=1> Mallory" <mallory@remote.test>',
        to: 'Support <support@inbox.test>',
        subject: SUBJECT,
        // Prepared: as a hostile sender writes it, not as RFC 2047 encoded words.
        headers: { 'X-Payload': { prepared: true, value: '<script>window.__pwned=1</script><img src=x onerror="alert(3)">' } },
        text: 'The plain text part <script>window.__pwned=1</script>',
        html: HTML,
        attachments: [
          { filename: 'logo.png', content: PNG, contentType: 'image/png', cid: 'logo@remote' },
          { filename: 'invoice.pdf', content: PDF, contentType: 'application/pdf' },
        ],
      },
      { domain: 'remote.test', privateKey },
    );
    await deliverInbound(t, raw, { mailFrom: 'mallory@remote.test', rcptTo: ['support@inbox.test'] });
    emailId = await eventually(async () => (await t.resend.emails.receiving.list()).data?.data[0]?.id, 15_000, 'the received email');
    ({ browser, page, dialogs, pwned } = await openWatchedPage({ url: t.url, db: t.postline.db }, 'support@received.postline.test'));
  });
  after(async () => {
    await browser?.close();
    await t?.stop();
  });

  it('lists received mail: the hostile subject as text, sender, recipient, attachments', async () => {
    await page.goto(`${t.url}/dashboard/`);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Received' }).click();
    const row = page.getByRole('row').filter({ has: page.getByRole('link', { name: SUBJECT }) });
    await row.waitFor();
    const cells = await row.getByRole('cell').allTextContents();
    assert.deepEqual(cells.slice(0, 3), ['mallory@remote.test', 'support@inbox.test', '2']);
    assert.equal(await pwned(), undefined);
    assert.deepEqual(dialogs, []);
    await assertAccessible(page, 'received list');
    await screenshot(page, 'received-01-list');
  });

  it("shows the message in the shared viewer: HTML sandboxed, text, headers, Postline's verdicts; nothing runs", async () => {
    await page.getByRole('link', { name: SUBJECT }).click();
    await page.getByRole('heading', { name: SUBJECT }).waitFor();
    const iframe = page.locator('iframe.preview');
    assert.equal(await iframe.getAttribute('sandbox'), '', 'no allow-scripts, no allow-same-origin');
    const frame = page.frameLocator('iframe.preview');
    await frame.getByRole('heading', { name: 'Visible heading' }).waitFor();
    // The inline image comes as a data: URI (html_format=data_uri), which the frame's CSP allows.
    await frame.locator('#logo').evaluate((img: HTMLImageElement) => img.decode());
    assert.equal(await frame.locator('#logo').evaluate((img: HTMLImageElement) => img.naturalWidth), 1);
    await page.getByText('The plain text part <script>window.__pwned=1</script>').waitFor();
    const header = (name: string) =>
      page
        .getByRole('row')
        .filter({ has: page.getByRole('rowheader', { name, exact: true }) })
        .getByRole('cell');
    assert.equal(await header('X-Payload').textContent(), '<script>window.__pwned=1</script><img src=x onerror="alert(3)">');
    assert.match((await header('From').textContent())!, /<img src=x onerror=window.__pwned=1> Mallory/);
    const facts = page.locator('.facts');
    for (const method of ['SPF', 'DKIM', 'DMARC']) {
      assert.equal(await facts.locator('dt', { hasText: method }).locator('xpath=following-sibling::dd[1]').textContent(), 'pass', method);
    }
    await frame.locator('a').click();
    assert.equal(await pwned(), undefined);
    const frameHandle = page.frames().find((f) => f !== page.mainFrame())!;
    assert.equal(await frameHandle.evaluate(() => (window as { __pwned?: unknown }).__pwned), undefined);
    assert.deepEqual(dialogs, []);
    await assertAccessible(page, 'received message');
    await screenshot(page, 'received-02-message');
  });

  it('downloads the attachment and the raw message through the signed URLs the API gives', async () => {
    const link = page.getByRole('link', { name: 'invoice.pdf' });
    assert.match((await link.getAttribute('href'))!, new RegExp(`^${t.url}/downloads/received-attachments/[0-9a-f-]{36}\\?expires=\\d+&signature=`));
    const [pdf] = await Promise.all([page.waitForEvent('download'), link.click()]);
    assert.deepEqual(await fs.readFile((await pdf.path())!), PDF);
    assert.equal(pdf.suggestedFilename(), 'invoice.pdf');
    const [raw] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: /Download the raw message/ }).click()]);
    const message = await fs.readFile((await raw.path())!, 'utf8');
    assert.match(message, /^Authentication-Results: /m);
    assert.match(message, /^X-Payload: /m);
    assert.equal(raw.suggestedFilename(), `${emailId}.eml`);
    assert.equal(await pwned(), undefined);
  });

  it('reads at phone width', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.reload();
    await page.getByRole('heading', { name: SUBJECT }).waitFor();
    await page.frameLocator('iframe.preview').getByRole('heading', { name: 'Visible heading' }).waitFor();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(overflow <= 0, `the page itself does not scroll sideways (${overflow}px)`);
    await screenshot(page, 'received-03-phone');
  });
});
