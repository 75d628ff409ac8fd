// The Emails list and an email's page in a real browser (issue 37). The list: searched by an
// id, a subject or part of an address as one types, filtered by part of a recipient's address,
// its filters and page kept in the URL (Back from an email returns to the same page of the same
// list; Back from a filter to the one before), with how many emails match (1,000+ past the cap).
// An email's page: the message in accessible tabs (Preview, Plain text, Source, Headers; arrow
// keys), the preview at phone width and as tall as its content within bounds, the share link,
// and addresses, host names and IPs never broken mid-word, at desktop and phone width.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { eventually, publishMx, send, startDeliveryTest, waitForLastEvent } from '../delivery/support.js';
import type { TestPostline } from '../support/postline.js';
import { assertAccessible, openWatchedPage, screenshot } from './browser.js';
import { overflowing } from './phone-width.js';

const LONG_HTML = Array.from(
  { length: 60 },
  (_, i) => `<p>Paragraph ${i + 1} of a long newsletter, with enough words in it to fill a line or two of the preview.</p>`,
).join('\n');
const IPV4 = '[192.168.100.200]';
const IPV6 = '[2001:db8:85a3::8a2e:370:7334]';

describe('dashboard: the emails list (search, URL, count) and an email page (tabs, preview, share, addresses)', () => {
  let t: TestPostline;
  let browser: Browser;
  let page: Page;
  let accountId: string;
  const ids: Record<string, string> = {};

  before(async () => {
    t = await startDeliveryTest();
    publishMx(t, 'inbox.test', [{ name: 'mx.inbox.test', priority: 10, address: '127.0.0.1' }]);
    publishMx(t, 'a-rather-long-subdomain-name.inbox.test', [{ name: 'mx.a-rather-long-subdomain-name.inbox.test', priority: 10, address: '127.0.0.1' }]);
    ({ browser, page } = await openWatchedPage({ url: t.url, db: t.postline.db }, 'lister@emails.postline.test'));
    // 70 older emails, written as accept writes them, so the list has two pages of 50.
    [{ account_id: accountId }] = await t.sql(`SELECT account_id FROM api_keys LIMIT 1`);
    await t.sql(
      `INSERT INTO emails (id, account_id, from_address, to_addresses, subject, message_id, last_event, created_at)
       SELECT gen_random_uuid(), $1, 'Digest <digest@sender.test>', ARRAY['reader' || i || '@inbox.test'], 'Weekly digest ' || i,
              '<digest' || i || '@sender.test>', 'delivered', now() - interval '1 day' + i * interval '1 minute'
         FROM generate_series(1, 70) i`,
      [accountId],
    );
    ids.report = await send(t, {
      from: 'Reports <reports@sender.test>',
      to: 'alice.wonderland@inbox.test',
      cc: 'bob@inbox.test',
      subject: 'Quarterly report',
      html: '<h1>Figures</h1><p>All good.</p>',
      text: 'Figures\n\nAll good.',
      headers: { 'X-Originating-IP': IPV4, 'X-Relay-Path': `relay-one.mail-gateway.example.net ${IPV4}, relay-two.mail-gateway.example.net ${IPV6}` },
    });
    ids.long = await send(t, {
      to: [
        'first.recipient-with-a-long-name@a-rather-long-subdomain-name.inbox.test',
        'second.recipient-with-a-long-name@a-rather-long-subdomain-name.inbox.test',
      ],
      subject: 'A long newsletter',
      html: LONG_HTML,
    });
    await waitForLastEvent(t, ids.report, 'delivered');
    await waitForLastEvent(t, ids.long, 'delivered');
  });
  after(async () => {
    await browser?.close();
    await t?.stop();
  });

  const subjects = () => page.locator('table.emails tbody th').allTextContents();
  const countSays = (text: string | RegExp) => page.getByRole('status').filter({ hasText: text }).waitFor();
  /** Until the list follows the filters it shows the rows before; these are the ones it must come to. */
  const listShows = (expected: string[], what: string) =>
    eventually(async () => JSON.stringify(await subjects()) === JSON.stringify(expected), 10_000, `the list showing ${JSON.stringify(expected)} (${what})`);

  it('searches as one types: part of an address, a subject, an id; counts what matches', async () => {
    await page.goto(`${t.url}/dashboard/emails`);
    await page.getByRole('link', { name: 'A long newsletter' }).waitFor();
    await countSays('72 emails · page 1 of 2');
    assert.equal((await subjects()).length, 50);

    // Typed key by key: one request once typing rests, not one per key.
    const asked = new Set<string>();
    const onRequest = (r: { url: () => string }) => {
      const url = new URL(r.url());
      if (url.pathname === '/emails' && url.searchParams.has('search')) asked.add(url.searchParams.get('search')!);
    };
    page.on('request', onRequest);
    await page.getByLabel('Search').pressSequentially('ALICE.wonder', { delay: 30 });
    await listShows(['Quarterly report'], 'search by part of an address, any case');
    await countSays('1 matching email');
    page.off('request', onRequest);
    assert.equal(new URL(page.url()).search, '?search=ALICE.wonder');
    assert.deepEqual([...asked], ['ALICE.wonder']);
    await assertAccessible(page, 'emails list searched');
    await screenshot(page, 'emails-list-01-search-address');

    await page.getByLabel('Search').fill('newsletter');
    await listShows(['A long newsletter'], 'search by subject');
    await page.getByLabel('Search').fill(` ${ids.report} `);
    await listShows(['Quarterly report'], 'search by id');
    await page.getByLabel('Search').fill('digest 7');
    await listShows(['Weekly digest 70', 'Weekly digest 7'], 'search by subject, two matches');
    await countSays('2 matching emails');
    await page.getByLabel('Search').fill('');

    // The recipient filter takes part of an address too (cc included).
    await page.getByLabel('Recipient contains').fill('bob@');
    await listShows(['Quarterly report'], 'recipient filter, a cc recipient');
    await page.getByLabel('Recipient contains').fill('long-subdomain');
    await listShows(['A long newsletter'], 'recipient filter, part of a domain');
    await page.getByLabel('Recipient contains').fill('nobody');
    await page.getByText('No email matches these filters').waitFor();
    await countSays('0 matching emails');
    await assertAccessible(page, 'emails list, nothing matching');
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await countSays('72 emails');
    assert.equal(new URL(page.url()).search, '');
    assert.equal(await page.getByLabel('Recipient contains').inputValue(), '');
  });

  it('keeps the page and the filters in the URL: Back from an email returns to them', async () => {
    await page.getByLabel('Search').fill('digest');
    await countSays('70 matching emails · page 1 of 2');
    await page.getByRole('button', { name: 'Next page' }).click();
    await page.getByText('Page 2', { exact: true }).waitFor();
    await listShows(
      Array.from({ length: 20 }, (_, i) => `Weekly digest ${20 - i}`),
      'the second page of the search',
    );
    const url = new URL(page.url());
    assert.equal(url.searchParams.get('search'), 'digest');
    assert.equal(url.searchParams.get('page'), '2');
    assert.ok(url.searchParams.get('after'));
    await countSays('70 matching emails · page 2 of 2');
    await assertAccessible(page, 'emails list, page 2 of a search');
    await screenshot(page, 'emails-list-02-page-2');

    await page.getByRole('link', { name: 'Weekly digest 5', exact: true }).click();
    await page.getByRole('heading', { name: 'Weekly digest 5', level: 1 }).waitFor();
    await page.goBack();
    await page.getByText('Page 2', { exact: true }).waitFor();
    assert.equal(page.url(), url.href);
    assert.equal(await page.getByLabel('Search').inputValue(), 'digest');
    await listShows(
      Array.from({ length: 20 }, (_, i) => `Weekly digest ${20 - i}`),
      'Back: the same page of the same list',
    );
    // A reload reads the same place from the URL alone.
    await page.reload();
    await listShows(
      Array.from({ length: 20 }, (_, i) => `Weekly digest ${20 - i}`),
      'reloaded',
    );

    // Previous reads the page before this one (`before` its first row), then the first, which has no cursor.
    await page.getByRole('button', { name: 'Previous page' }).click();
    await listShows(
      Array.from({ length: 50 }, (_, i) => `Weekly digest ${70 - i}`),
      'the first page again',
    );
    assert.equal(new URL(page.url()).search, '?search=digest');
    await page.goBack();
    await page.getByText('Page 2', { exact: true }).waitFor();

    // Filters change from page 2: the list starts again at page 1. Typing on in one field is one
    // history entry; choosing in another is a new one, and Back returns to the one before.
    await page.getByLabel('Search').fill('digest 1');
    await listShows([...Array.from({ length: 10 }, (_, i) => `Weekly digest ${19 - i}`), 'Weekly digest 1'], 'a new search starts at page 1');
    await eventually(async () => new URL(page.url()).search === '?search=digest+1', 10_000, 'the URL following the search');
    await page.getByLabel('Search').pressSequentially('0', { delay: 400 });
    await listShows(['Weekly digest 10'], 'typing on');
    await page.getByLabel('Last event').selectOption('bounced');
    await page.getByText('No email matches these filters').waitFor();
    assert.equal(new URL(page.url()).search, '?search=digest+10&last_event=bounced');
    await page.goBack();
    await listShows(['Weekly digest 10'], 'Back: the filter before');
    assert.equal(await page.getByLabel('Last event').inputValue(), '');
    assert.equal(await page.getByLabel('Search').inputValue(), 'digest 10');
    await page.goBack();
    await page.getByText('Page 2', { exact: true }).waitFor();
    assert.equal(await page.getByLabel('Search').inputValue(), 'digest', 'typing "1", then "0", was one entry');
  });

  it('opens the message in tabs: Preview, Plain text, Source, Headers, moved between with the arrow keys', async () => {
    await page.goto(`${t.url}/dashboard/emails/${ids.report}`);
    await page.getByRole('heading', { name: 'Quarterly report', level: 1 }).waitFor();
    const tablist = page.getByRole('tablist', { name: 'The message' });
    const tab = (name: string) => tablist.getByRole('tab', { name });
    assert.deepEqual(await tablist.getByRole('tab').allTextContents(), ['Preview', 'Plain text', 'Source', 'Headers']);
    assert.equal(await tab('Preview').getAttribute('aria-selected'), 'true');
    await page.getByRole('tabpanel', { name: 'Preview' }).waitFor();
    await page.frameLocator('iframe.preview').getByRole('heading', { name: 'Figures' }).waitFor();

    await tab('Preview').focus();
    await page.keyboard.press('ArrowRight');
    assert.equal(await tab('Plain text').getAttribute('aria-selected'), 'true');
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Plain text');
    assert.equal(await tab('Preview').getAttribute('tabindex'), '-1', 'one keyboard stop: the selected tab');
    const text = page.getByRole('tabpanel', { name: 'Plain text' });
    assert.equal((await text.getByRole('region', { name: 'The plain text part' }).textContent())?.trim(), 'Figures\n\nAll good.');
    await assertAccessible(page, 'email page, plain text tab');
    await screenshot(page, 'emails-list-03-tab-text');

    await page.keyboard.press('ArrowRight');
    const source = page.getByRole('tabpanel', { name: 'Source' }).getByRole('region', { name: "The message's source" }).locator('pre');
    await source.waitFor();
    const raw = (await source.textContent()) ?? '';
    assert.match(raw, /^DKIM-Signature: /m);
    assert.match(raw, /^Subject: Quarterly report\r?$/m);
    assert.match(raw, /^X-Originating-IP: \[192\.168\.100\.200\]\r?$/im);
    await assertAccessible(page, 'email page, source tab');
    await screenshot(page, 'emails-list-04-tab-source');

    await page.keyboard.press('ArrowRight');
    const headers = page.getByRole('tabpanel', { name: 'Headers' });
    await headers.getByRole('rowheader', { name: 'DKIM-Signature' }).waitFor();
    const relay = headers.getByRole('row').filter({ has: page.getByRole('rowheader', { name: 'X-Relay-Path' }) });
    assert.match((await relay.getByRole('cell').textContent()) ?? '', /relay-one\.mail-gateway\.example\.net \[192\.168\.100\.200\]/);
    await assertAccessible(page, 'email page, headers tab');
    await screenshot(page, 'emails-list-05-tab-headers');

    // Round: → from the last is the first, ← from the first the last; Home and End.
    await page.keyboard.press('ArrowRight');
    assert.equal(await tab('Preview').getAttribute('aria-selected'), 'true');
    await page.keyboard.press('ArrowLeft');
    assert.equal(await tab('Headers').getAttribute('aria-selected'), 'true');
    await page.keyboard.press('Home');
    assert.equal(await tab('Preview').getAttribute('aria-selected'), 'true');
    await page.keyboard.press('End');
    assert.equal(await tab('Headers').getAttribute('aria-selected'), 'true');
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Headers');
    // Only the selected panel shows; the others are hidden, and empty.
    assert.equal(await page.getByRole('tabpanel').count(), 1);
  });

  it('sizes the preview to its message within bounds, and shows it at phone width', async () => {
    const frameBox = async () => (await page.locator('iframe.preview').boundingBox())!;
    await page.getByRole('tab', { name: 'Preview' }).click();
    await page.frameLocator('iframe.preview').getByRole('heading', { name: 'Figures' }).waitFor();
    const short = await frameBox();
    assert.ok(short.height >= 150 && short.height <= 260, `a short message's frame is short: ${short.height}px`);

    await page.goto(`${t.url}/dashboard/emails/${ids.long}`);
    await page.frameLocator('iframe.preview').getByText('Paragraph 60 of a long newsletter').waitFor();
    const long = await frameBox();
    const viewport = page.viewportSize()!;
    assert.ok(long.height > 500, `a long message's frame is tall: ${long.height}px`);
    assert.ok(long.height <= viewport.height * 0.75 + 1, `and stops within the window: ${long.height}px of ${viewport.height}px`);
    assert.ok(long.width > 700, `as wide as the page: ${long.width}px`);

    const phone = page.getByRole('button', { name: 'Phone width' });
    assert.equal(await phone.getAttribute('aria-pressed'), 'false');
    await phone.click();
    assert.equal(await phone.getAttribute('aria-pressed'), 'true');
    await eventually(async () => Math.round((await frameBox()).width) === 375, 5_000, 'the frame 375 px wide');
    assert.ok((await frameBox()).height >= long.height, 'narrower, it is as tall or taller');
    await assertAccessible(page, 'email page, phone-width preview');
    await screenshot(page, 'emails-list-06-preview-phone');
    await phone.click();
    await eventually(async () => (await frameBox()).width > 700, 5_000, 'the frame as wide as the page again');
  });

  it('creates a share link on request, shows it with its expiry, and copies it', async () => {
    await page.goto(`${t.url}/dashboard/emails/${ids.report}`);
    const share = page.getByRole('region', { name: 'Share' });
    await share.getByLabel('Link works for').selectOption('7 days');
    const made = page.waitForResponse((r) => r.url().endsWith(`/emails/${ids.report}/share`) && r.request().method() === 'POST');
    await share.getByRole('button', { name: 'Create share link' }).click();
    const answer = await made;
    assert.equal(answer.status(), 200);
    assert.deepEqual(answer.request().postDataJSON(), { expires_in: '7 days' });
    const link = share.getByRole('textbox', { name: 'Share link' });
    await link.waitFor();
    const url = await link.inputValue();
    assert.match(url, new RegExp(`/shared/emails/${ids.report}\\?expires=\\d+&signature=`));
    const expires = Number(new URL(url).searchParams.get('expires')) * 1000;
    assert.ok(Math.abs(expires - (Date.now() + 7 * 86_400_000)) < 120_000, 'seven days from now');
    await share.getByText(/^Works until /).waitFor();
    const shared = await page.request.get(`${t.url}${new URL(url).pathname}${new URL(url).search}`);
    assert.equal(shared.status(), 200);
    assert.match(await shared.text(), /<h1>Quarterly report<\/h1>/);
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: t.url });
    await share.getByRole('button', { name: 'Copy the share link' }).click();
    await share.getByText('Copied').waitFor();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), url);
    assert.equal(await share.getByRole('button', { name: 'Create another link' }).count(), 1);
    await assertAccessible(page, 'email page with a share link');
    await screenshot(page, 'emails-list-07-share');
  });

  /**
   * Where `selector`'s elements (each an address or host name) break across lines other than at
   * the places offered (after a space, a hyphen or the @): "alice.wonder|land@inbox.test".
   */
  const brokenAddresses = (selector: string) =>
    page.evaluate((sel) => {
      const broken: string[] = [];
      for (const element of document.querySelectorAll(sel)) {
        const text = element.textContent ?? '';
        const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
        let at = 0;
        let lastTop: number | undefined;
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
          for (let i = 0; i < (node.textContent ?? '').length; i++, at++) {
            const range = document.createRange();
            range.setStart(node, i);
            range.setEnd(node, i + 1);
            const rect = range.getClientRects()[0];
            if (!rect || rect.width === 0) continue;
            const top = Math.round(rect.top);
            const offered = ' -@'.includes(text[at - 1] ?? '');
            if (lastTop !== undefined && top > lastTop && !offered) broken.push(`${text.slice(0, at)}|${text.slice(at)}`);
            lastTop = top;
          }
        }
      }
      return broken;
    }, selector);
  /** The IPs of the headers table that run over more than one line. */
  const brokenIps = () =>
    page.evaluate(
      (ips) => {
        const broken: string[] = [];
        for (const code of document.querySelectorAll('table.headers td code')) {
          const node = code.firstChild;
          if (!node) continue;
          for (const ip of ips) {
            const at = (node.textContent ?? '').indexOf(ip);
            if (at < 0) continue;
            const range = document.createRange();
            range.setStart(node, at);
            range.setEnd(node, at + ip.length);
            const tops = new Set(Array.from(range.getClientRects(), (r) => Math.round(r.top)));
            if (tops.size > 1) broken.push(ip);
          }
        }
        return broken;
      },
      [IPV4, IPV6],
    );

  it('never breaks an address, a host name or an IP mid-word, at desktop or phone width', async () => {
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 });
      await page.goto(`${t.url}/dashboard/emails/${ids.long}`);
      await page.locator('table.attempts tbody tr').nth(1).waitFor();
      await page.locator('ol.timeline li').nth(1).waitFor();
      assert.ok((await page.locator('.address').count()) >= 6);
      assert.deepEqual(await brokenAddresses('.address'), [], `addresses at ${width} px`);
      assert.deepEqual(await overflowing(page), [], `nothing wider than the page at ${width} px`);
      await screenshot(page, `emails-list-08-addresses-${width}`);

      await page.goto(`${t.url}/dashboard/emails/${ids.report}`);
      await page.getByRole('tab', { name: 'Headers' }).click();
      await page.getByRole('rowheader', { name: 'X-Relay-Path' }).waitFor();
      assert.deepEqual(await brokenIps(), [], `IPs in the headers at ${width} px`);
      assert.deepEqual(await brokenAddresses('.address'), [], `the email's addresses at ${width} px`);
      assert.deepEqual(await overflowing(page), [], `the headers fit at ${width} px`);
      await assertAccessible(page, `email page headers at ${width} px`);
      await screenshot(page, `emails-list-09-headers-${width}`);

      await page.goto(`${t.url}/dashboard/emails?search=long`);
      await page.getByRole('link', { name: 'A long newsletter' }).waitFor();
      assert.deepEqual(await brokenAddresses('table.emails .address'), [], `the list's addresses at ${width} px`);
      assert.deepEqual(await overflowing(page), [], `the list fits at ${width} px`);
      await screenshot(page, `emails-list-10-list-${width}`);
    }
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('counts up to 1,000, then says 1,000+', async () => {
    await t.sql(
      `INSERT INTO emails (id, account_id, from_address, to_addresses, subject, message_id, last_event, created_at)
       SELECT gen_random_uuid(), $1, 'bulk@sender.test', ARRAY['bulk' || i || '@inbox.test'], 'Bulk ' || i,
              '<bulk' || i || '@sender.test>', 'delivered', now() - interval '2 days' + i * interval '1 second'
         FROM generate_series(1, 1000) i`,
      [accountId],
    );
    await page.goto(`${t.url}/dashboard/emails`);
    await countSays('1,000+ emails');
    assert.equal(await page.getByRole('status').textContent(), '1,000+ emails', 'no page count past the cap');
    await page.getByLabel('Search').fill('bulk 99');
    await countSays('11 matching emails');
    await assertAccessible(page, 'emails list past the cap');
    await page.getByLabel('Search').fill('');
    await countSays('1,000+ emails');
    await screenshot(page, 'emails-list-11-capped');
  });
});
