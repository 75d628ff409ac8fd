// The Overview page in a real browser: first steps while nothing was sent; then, after mail to
// resend.dev's test addresses, to a real MX (the sink) and to one that answers 451, the totals
// match GET /emails/metrics and what was sent, the chart is drawn with its table for screen
// readers, the queue box shows the deferred email and recent failures the bounce. At 1280 px
// and at phone width, with an axe-core scan.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { publishMx, send, startDeliveryTest, waitForLastEvent } from '../delivery/support.js';
import type { TestPostline } from '../support/postline.js';
import { assertAccessible, launchChromium, screenshot, signInNewUser } from './browser.js';

describe('dashboard: the overview of figures, queue and failures', () => {
  let t: TestPostline;
  let browser: Browser;
  let page: Page;
  let bouncedId: string;

  before(async () => {
    // Retries an hour apart: the deferred email stays deferred while the page is checked.
    t = await startDeliveryTest({ POSTLINE_RETRY_DELAYS: '1h' });
    publishMx(t, 'busy.test', [{ name: 'mx.busy.test', priority: 10, address: '127.0.0.1' }]);
    publishMx(t, 'example.org', [{ name: 'mx.example.org', priority: 10, address: '127.0.0.1' }]);
    t.sink.onRecipient = (rcpt: string) => (rcpt.endsWith('@busy.test') ? { code: 451, message: '4.3.0 Mail server temporarily rejected message' } : undefined);
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await signInNewUser(context, { url: t.url, db: t.postline.db }, 'Default', 'operator@overview.postline.test');
    page = await context.newPage();
  });
  after(async () => {
    await browser?.close();
    await t?.stop();
  });

  const total = (label: string) => page.locator('.total').filter({ has: page.getByRole('term').filter({ hasText: new RegExp(`^${label}$`) }) });

  it('says what to do first while nothing was sent', async () => {
    await page.goto(`${t.url}/dashboard/`);
    await page.getByRole('heading', { name: 'Nothing sent yet' }).waitFor();
    await page.getByRole('link', { name: 'Add your domain' }).waitFor();
    await page.getByRole('link', { name: 'Create an API key' }).waitFor();
    await page.getByText('POSTLINE_SANDBOX=true').waitFor();
    await screenshot(page, 'overview-01-empty');
    await assertAccessible(page, 'overview, empty');
  });

  it('shows the totals of what was sent, the chart, the deferred email and the bounce', async () => {
    const outcomes: [string, string, string][] = [
      ['delivered@resend.dev', 'delivered', 'Welcome'],
      ['bounced@resend.dev', 'bounced', 'Bounce me'],
      ['complained@resend.dev', 'complained', 'Newsletter'],
      ['ann@example.org', 'delivered', 'Hello Ann'],
      ['bob@busy.test', 'delivery_delayed', 'Deferred one'],
    ];
    const ids: string[] = [];
    for (const [to, , subject] of outcomes) ids.push(await send(t, { to, subject }));
    for (const [i, [, last]] of outcomes.entries()) await waitForLastEvent(t, ids[i]!, last);
    bouncedId = ids[1]!;

    await page.reload();
    await page.getByRole('heading', { name: 'Emails over the last 24 hours' }).waitFor();
    const expected = { Sent: '5', Delivered: '3', Bounced: '1', Complained: '1', Opened: '0', Clicked: '0' };
    for (const [label, value] of Object.entries(expected)) {
      assert.equal(await total(label).locator('.total-count').textContent(), value, label);
    }
    assert.equal(await total('Delivered').locator('.total-rate').textContent(), '60% of sent');
    assert.equal(await total('Bounced').locator('.total-rate').textContent(), '20% of sent');
    // The page's figures are the API's.
    const api = await page.evaluate(async () =>
      (await fetch(`/emails/metrics?metrics=sent,delivered,bounced,complained&start_date=${new Date(Date.now() - 864e5).toISOString()}`)).json(),
    );
    assert.deepEqual(api.totals, { sent: 5, delivered: 3, bounced: 1, complained: 1 });

    // The chart: a canvas drawn by uPlot, and the same figures in a table for screen readers.
    const chart = page.locator('figure.time-chart');
    await chart.locator('canvas').waitFor();
    const box = (await chart.locator('canvas').boundingBox())!;
    assert.ok(box.width > 600 && box.height > 150, JSON.stringify(box));
    const table = chart.getByRole('table', { name: 'Emails per hour over the last 24 hours' });
    const rows = await table.getByRole('row').count();
    assert.ok(rows === 25 || rows === 26, `${rows} rows`); // a header and 24 or 25 hours
    const lastHour = await table.getByRole('row').last().getByRole('cell').allTextContents();
    assert.deepEqual(lastHour, ['5', '3', '1', '1', '0', '0']);
    // Counts are bars, not lines (a line between two hours would draw sending that did not
    // happen): the pixels in the "sent" colour fill their bounding box, as one bar does, where a
    // line's would be mostly empty.
    const sent = await chart.locator('canvas').evaluate((canvas: HTMLCanvasElement) => {
      const { width, height } = canvas;
      const pixels = canvas.getContext('2d')!.getImageData(0, 0, width, height).data;
      let [left, right, top, bottom, count] = [width, -1, height, -1, 0];
      for (let y = 0; y < height; y++) {
        for (let x = 0; x < width; x++) {
          const i = (y * width + x) * 4;
          if (pixels[i] !== 0x00 || pixels[i + 1] !== 0x72 || pixels[i + 2] !== 0xb2) continue;
          count++;
          [left, right, top, bottom] = [Math.min(left, x), Math.max(right, x), Math.min(top, y), Math.max(bottom, y)];
        }
      }
      return { count, box: (right - left + 1) * (bottom - top + 1), height: bottom - top + 1 };
    });
    assert.ok(sent.count > 0 && sent.count / sent.box > 0.9 && sent.height > 20, `the sent bar: ${JSON.stringify(sent)}`);

    // The queue now: one deferred, linking to the Queue page.
    const queue = page.getByRole('region', { name: 'Queue now' });
    await queue.getByText('1 waiting in all.').waitFor();
    const facts = await queue.locator('dd').allTextContents();
    assert.deepEqual(facts.slice(0, 2), ['0', '1']);
    assert.match(facts[2]!, /^\d+ s$/);

    // Recent failures: the bounce, linking to its email's page.
    const failures = page.getByRole('region', { name: 'Recent failures' });
    const link = failures.getByRole('link', { name: 'Bounce me' });
    await link.waitFor();
    assert.equal(await failures.getByRole('listitem').count(), 1);
    assert.equal(await link.getAttribute('href'), `/dashboard/emails/${bouncedId}`);
    await screenshot(page, 'overview-02-figures');
    await assertAccessible(page, 'overview with figures');
  });

  it('switches to 7 and 30 days, one row per day', async () => {
    await page.getByRole('button', { name: '7 days' }).click();
    await page.getByRole('heading', { name: 'Emails over the last 7 days' }).waitFor();
    const week = page.getByRole('table', { name: 'Emails per day over the last 7 days' });
    await week.waitFor({ state: 'attached' });
    assert.equal(await week.getByRole('row').count(), 8);
    assert.deepEqual(await week.getByRole('row').last().getByRole('cell').allTextContents(), ['5', '3', '1', '1', '0', '0']);
    assert.equal(await page.getByRole('button', { name: '7 days' }).getAttribute('aria-pressed'), 'true');
    await screenshot(page, 'overview-03-7-days');
    await page.getByRole('button', { name: '30 days' }).click();
    const month = page.getByRole('table', { name: 'Emails per day over the last 30 days' });
    await month.waitFor({ state: 'attached' });
    assert.equal(await month.getByRole('row').count(), 31);
    assert.equal(await total('Sent').locator('.total-count').textContent(), '5');
  });

  it('reads at phone width, and the queue link and a failure open their pages', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByRole('button', { name: '24 hours' }).click();
    await page.getByRole('heading', { name: 'Emails over the last 24 hours' }).waitFor();
    await page.locator('figure.time-chart canvas').waitFor();
    // The chart follows its box's new width: waited for (bounded), then measured and asserted.
    await page
      .waitForFunction(() => document.querySelector('figure.time-chart canvas')!.getBoundingClientRect().width <= 360, undefined, { timeout: 5_000 })
      .catch(() => {});
    const widths = await page.evaluate(() => ({
      page: document.documentElement.scrollWidth,
      canvas: document.querySelector('figure.time-chart canvas')!.getBoundingClientRect().width,
      wide: [...document.querySelectorAll('main *')]
        .filter((el) => el.getBoundingClientRect().right > 390)
        .slice(0, 5)
        .map((el) => `${el.tagName}.${el.className}`),
    }));
    assert.ok(widths.page <= 390, `the page scrolls sideways: ${widths.page}px (${widths.wide.join(', ')})`);
    assert.ok(widths.canvas <= 360, `the chart is ${widths.canvas}px wide`);
    await screenshot(page, 'overview-04-phone');
    await assertAccessible(page, 'overview at phone width');

    await page.setViewportSize({ width: 1280, height: 900 });
    await page.getByRole('region', { name: 'Queue now' }).getByRole('link', { name: 'Open the queue' }).click();
    await page.getByRole('heading', { name: 'Queue', exact: true }).waitFor();
    await page.goBack();
    await page.getByRole('region', { name: 'Recent failures' }).getByRole('link', { name: 'Bounce me' }).click();
    assert.equal(new URL(page.url()).pathname, `/dashboard/emails/${bouncedId}`);
  });
});
