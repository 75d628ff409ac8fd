// A domain's reports on its page, in a real browser (issue 36): a DMARC aggregate report (gzipped
// XML, Google's layout) and an SMTP TLS report (gzipped JSON) mailed over SMTP to the addresses
// of the domain's recommended records, as receivers send them; the page then shows who sent in
// the domain's name (chart, sources table: Postline's own address, another sender that passed,
// an unknown one that failed), the pass rate, the policy advice and the TLS failures by MX host
// and reason, with the numbers of the reports. A domain all of whose mail passes is told it can
// move to p=quarantine; one without reports is told to publish the record. Blocklists: none
// configured, then (restarted with lists on the loopback DNS server) the outbound address listed
// on one list, refused by another, on the domain page and the Queue page.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { createVerifiedDomain, deliverInbound, dmarcReportMail, googleAggregateReport, startInboundTest, tlsReportMail } from '../dmarc-reports/support.js';
import { eventually } from '../support/eventually.js';
import { rawRequest, type TestPostline } from '../support/postline.js';
import { assertAccessible, launchChromium, screenshot, signInNewUser } from './browser.js';
import { overflowing } from './phone-width.js';

const DAY_MS = 86_400_000;
const GOOGLE = { mailFrom: 'noreply-dmarc-support@google.com', helo: 'mail-sor-f41.google.com' };
/** Postline's outbound address (POSTLINE_OUTBOUND_IPS), RFC 5782's test entry on the lists. */
const OUTBOUND_IP = '127.0.0.2';
const LISTED_REASON = 'Listed by bl.test: see https://bl.test/lookup?ip=127.0.0.2';

describe("dashboard: a domain's DMARC and TLS reports and blocklists", () => {
  let t: TestPostline;
  let browser: Browser;
  let page: Page;
  let mixed: { id: string; name: string };
  let clean: { id: string; name: string };
  let quiet: { id: string; name: string };
  const begin = new Date(Math.floor((Date.now() - 2 * DAY_MS) / DAY_MS) * DAY_MS);
  const end = new Date(begin.getTime() + DAY_MS - 1000);

  before(async () => {
    t = await startInboundTest({ POSTLINE_OUTBOUND_IPS: OUTBOUND_IP });
    mixed = await createVerifiedDomain(t, 'reports.test', { receiving: true });
    clean = await createVerifiedDomain(t, 'clean-reports.test');
    quiet = await createVerifiedDomain(t, 'quiet-reports.test');
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await signInNewUser(context, { url: t.url, db: t.postline.db }, 'Default', 'owner@reports.test');
    page = await context.newPage();
  });
  after(async () => {
    await browser?.close();
    await t?.stop();
  });

  /** The address a recommended record's rua names (mailto:…). */
  const ruaOf = async (id: string, record: 'DMARC' | 'TLS-RPT') => {
    const recommended = (await rawRequest(t, 'GET', `/domains/${id}`)).body.recommended_records as { record: string; value: string }[];
    const value = recommended.find((r) => r.record === record)?.value ?? '';
    const rua = /rua=mailto:([^;\s]+)/.exec(value)?.[1];
    assert.ok(rua, `${record} of ${id} names a rua: ${value}`);
    return rua;
  };

  const sendDmarcReport = async (domain: string, id: string, reportId: string, rows: Parameters<typeof googleAggregateReport>[0]['rows']) => {
    const to = await ruaOf(id, 'DMARC');
    const xml = googleAggregateReport({ domain, reportId, begin, end, rows });
    await deliverInbound(t, await dmarcReportMail(xml, { domain, reportId, to, begin, end }), { ...GOOGLE, rcptTo: [to] });
  };

  const section = (name: string) => page.getByRole('region', { name, exact: true });
  // As the page reads: innerText keeps the breaks between blocks that textContent runs together.
  const text = async (locator: ReturnType<Page['locator']>) => {
    await locator.first().waitFor();
    return (await locator.allInnerTexts()).join(' ').replace(/\s+/g, ' ').trim();
  };
  const literally = (value: string) => value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const figure = (name: string) => text(page.locator(`[data-figure="${name}"]`));
  const tableRows = async (selector: string) => {
    await page.locator(`${selector} tbody tr`).first().waitFor();
    return (await page
      .locator(`${selector} tbody tr`)
      .evaluateAll((rows) => rows.map((r) => [...r.children].map((c) => (c.textContent ?? '').trim())))) as string[][];
  };

  it('says a domain without reports has none yet, and that no blocklists are configured', async () => {
    await page.goto(`${t.url}/dashboard/domains/${quiet.id}`);
    const dmarc = section('DMARC');
    await dmarc.locator('[data-advice="empty"]').waitFor();
    assert.match(await text(dmarc.locator('[data-advice="empty"]')), /^No reports yet: publish the DMARC record above \(its rua sends reports to Postline\)\./);
    assert.equal(await dmarc.locator('canvas').count(), 0, 'no chart without figures');
    await dmarc.getByText('None yet.').waitFor();
    // A sending-only domain: no TLS-RPT record is asked of it.
    assert.match(
      await text(section('TLS reports').locator('[data-advice="no-tls-reports"]')),
      /^No TLS reports over the last 30 days\. They are about mail delivered/,
    );
    assert.match(await text(section('Blocklists')), /No blocklist checks yet: no blocklists configured/);
    await assertAccessible(page, 'a domain without reports');
    await screenshot(page, 'domain-reports-01-none-yet');
    await page.goto(`${t.url}/dashboard/queue`);
    assert.match(await text(section('Blocklists')), /No blocklist checks yet: no blocklists configured \(POSTLINE_DNSBLS\)/);
  });

  it('shows the sources, pass rate, advice and reports of a DMARC report mailed to the recommended rua', async () => {
    await sendDmarcReport('reports.test', mixed.id, 'mixed-1', [
      { ip: OUTBOUND_IP, count: 40, dkim: 'pass', spf: 'pass' },
      { ip: '192.0.2.44', count: 7, dkim: 'pass', spf: 'fail' },
      { ip: '198.51.100.7', count: 3, dkim: 'fail', spf: 'fail' },
    ]);
    const to = await ruaOf(mixed.id, 'TLS-RPT');
    await deliverInbound(t, await tlsReportMail({ domain: 'reports.test', reportId: 'tls-1', to, begin, end }), {
      mailFrom: 'tlsrpt@sender.example',
      rcptTo: [to],
    });

    await page.goto(`${t.url}/dashboard/domains/${mixed.id}`);
    const dmarc = section('DMARC');
    await dmarc.locator('[data-advice]').waitFor();
    assert.equal(await dmarc.locator('[data-advice]').getAttribute('data-advice'), 'fix-sources');
    assert.match(await text(dmarc.locator('[data-advice]')), /^6 % of messages fail DMARC: find those sources before tightening the policy\./);
    assert.deepEqual([await figure('messages'), await figure('pass-rate'), await figure('sources'), await figure('policy')], ['50', '94 %', '3', 'p=none']);
    // The sources, most messages first: Postline's own address, a sender that passed, one that failed.
    assert.deepEqual(await tableRows('table.dmarc-sources'), [
      [OUTBOUND_IP, '40', '100 %', 'Postline'],
      ['192.0.2.44', '7', '100 %', 'other known sender'],
      ['198.51.100.7', '3', '0 %', 'unknown sender'],
    ]);
    // The chart's legend says what each kind means, with its messages; the canvas has a bar of each colour.
    const legend = await text(dmarc.locator('figure .legend'));
    assert.match(legend, /Postline: 40 messages sent by Postline itself/);
    assert.match(legend, /Other known senders: 7 messages from other servers that passed DMARC/);
    assert.match(legend, /Unknown senders: 3 messages from other servers that failed DMARC/);
    const painted = await dmarc.locator('figure canvas').evaluate((canvas: HTMLCanvasElement) => {
      const { data } = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height);
      const count: Record<string, number> = {};
      for (let i = 0; i < data.length; i += 4) {
        const hex = `#${[data[i], data[i + 1], data[i + 2]].map((v) => v!.toString(16).padStart(2, '0')).join('')}`;
        count[hex] = (count[hex] ?? 0) + 1;
      }
      return { postline: count['#2b50c8'] ?? 0, known: count['#1a7f37'] ?? 0, unknown: count['#c2410c'] ?? 0 };
    });
    assert.ok(
      painted.postline > painted.known && painted.known > painted.unknown && painted.unknown > 0,
      `bars as wide as their counts: ${JSON.stringify(painted)}`,
    );

    // The report, opened to its rows.
    assert.deepEqual(
      (await tableRows('table.dmarc-reports')).map((r) => [r[0], r[2], r[3]]),
      [['google.com', '50', '47 (94 %)']],
    );
    await dmarc.getByRole('button', { name: /^Show rows of the report from google\.com/ }).click();
    const detail = dmarc.getByRole('region', { name: 'Report mixed-1 from google.com' });
    await detail.locator('table.report-rows tbody tr').first().waitFor();
    assert.deepEqual(
      (await tableRows('table.report-rows')).map((r) => r.slice(0, 6)),
      [
        [OUTBOUND_IP, '40', 'pass', 'pass', 'pass', 'none'],
        ['192.0.2.44', '7', 'pass', 'pass', 'fail', 'none'],
        ['198.51.100.7', '3', 'fail', 'fail', 'fail', 'none'],
      ],
    );
    assert.equal(await dmarc.getByRole('button', { name: /^Hide rows/ }).getAttribute('aria-expanded'), 'true');

    // TLS: the totals, and the failures by receiving MX host and reason.
    const tls = section('TLS reports');
    assert.deepEqual([await figure('tls-successful'), await figure('tls-failed'), await figure('tls-failing')], ['120', '4', '3.2 %']);
    assert.deepEqual(await tableRows('table.tls-failures'), [
      ['mx.reports.test', 'certificate-expired', 'X509_V_ERR_CERT_HAS_EXPIRED', '3', 'Sender Org'],
      ['mx2.reports.test', 'starttls-not-supported', 'none given', '1', 'Sender Org'],
    ]);
    assert.match(await text(tls), /From 1 report over the last 30 days, by Sender Org/);
    await assertAccessible(page, "a domain's DMARC and TLS reports, a report opened");
    await screenshot(page, 'domain-reports-02-dmarc-and-tls');
  });

  it('reads at phone width', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      await page.reload();
      await section('DMARC').locator('figure canvas').waitFor();
      await section('DMARC')
        .getByRole('button', { name: /^Show rows/ })
        .click();
      await page.locator('table.report-rows tbody tr').first().waitFor();
      assert.deepEqual(await overflowing(page), []);
      await screenshot(page, 'domain-reports-03-phone');
    } finally {
      await page.setViewportSize({ width: 1280, height: 900 });
    }
  });

  it('tells a domain all of whose mail passes that it can move to p=quarantine, with the record to publish', async () => {
    await sendDmarcReport('clean-reports.test', clean.id, 'clean-1', [{ ip: OUTBOUND_IP, count: 120, dkim: 'pass', spf: 'pass' }]);
    await page.goto(`${t.url}/dashboard/domains/${clean.id}`);
    const advice = section('DMARC').locator('[data-advice]');
    await advice.waitFor();
    assert.equal(await advice.getAttribute('data-advice'), 'move-to-quarantine');
    assert.match(await text(advice), /^All your mail passes DMARC: you can move to p=quarantine\./);
    assert.match(await text(advice), /Publish v=DMARC1; p=quarantine; rua=mailto:dmarc-reports@send\.clean-reports\.test; as the TXT record _dmarc/);
    assert.deepEqual([await figure('messages'), await figure('pass-rate')], ['120', '100 %']);
    await screenshot(page, 'domain-reports-04-can-quarantine');
  });

  it('shows blocklist listings of the outbound address on the domain page and the Queue page', async () => {
    await t.restart({
      POSTLINE_DNSBLS: 'bl.test,refusing.test',
      POSTLINE_DOMAIN_BLOCKLISTS: 'dbl.test',
      POSTLINE_DNSBL_INTERVAL: '1s',
    });
    t.dns.set(`2.0.0.127.bl.test`, { A: ['127.0.0.2'], TXT: [LISTED_REASON] });
    // Spamhaus' answer to a public resolver: the check was not possible, which is no listing.
    t.dns.set(`2.0.0.127.refusing.test`, { A: ['127.255.255.254'] });
    await eventually(
      async () => {
        const checks = (await rawRequest(t, 'GET', `/domains/${mixed.id}`)).body.blocklists as { target: string; zone: string; result: string }[];
        const result = (target: string, zone: string) => checks.find((c) => c.target === target && c.zone === zone)?.result;
        return result(OUTBOUND_IP, 'bl.test') === 'listed' && result(OUTBOUND_IP, 'refusing.test') === 'not_possible' && result('reports.test', 'dbl.test');
      },
      30_000,
      'a round finding the address listed',
    );
    await page.goto(`${t.url}/dashboard/domains/${mixed.id}`);
    const blocklists = section('Blocklists');
    const address = blocklists.locator(`[data-target="${OUTBOUND_IP}"]`);
    await address.waitFor();
    assert.match(await text(address), /^Address 127\.0\.0\.2 listed on 1 list/);
    assert.match(await text(address), new RegExp(`Listed on bl\\.test since .+ ${literally(LISTED_REASON)}`));
    // A refusal is said as such, with the list's answer, and is no listing.
    assert.match(await text(address), /Check not possible on refusing\.test: the list answered 127\.255\.255\.254: .+\. This is not a listing\./);
    const domain = blocklists.locator('[data-target="reports.test"]');
    assert.match(await text(domain), /^Domain reports\.test not listed Not listed on 1 list checked dbl\.test/);
    await assertAccessible(page, 'blocklist listings on a domain page');
    await screenshot(page, 'domain-reports-05-blocklists');

    await page.goto(`${t.url}/dashboard/queue`);
    const panel = section('Blocklists');
    await panel.locator(`[data-target="${OUTBOUND_IP}"]`).waitFor();
    assert.match(await text(panel), /Listed on bl\.test since/);
    assert.equal(await panel.locator('[data-target="reports.test"]').count(), 0, 'the queue shows the addresses only');
    await assertAccessible(page, 'blocklist listings on the Queue page');
    await screenshot(page, 'domain-reports-06-queue-blocklists');
  });
});
