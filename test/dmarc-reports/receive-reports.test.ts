// DMARC aggregate and SMTP TLS reports mailed to Postline, end to end over loopback: the records
// a domain is asked to publish name report addresses at its return-path host; a remote MTA
// delivers reports there (and to a receiving domain's own address) over SMTP; the API lists
// them per domain, with a report's rows and the sources summed, and a webhook announces each.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Resend } from 'resend';
import { createAccount } from '../../src/accounts/accounts.js';
import { REPORTS_PER_HOUR } from '../../src/dmarc-reports/store-reports.js';
import type { TestPostline } from '../support/postline.js';
import {
  createVerifiedDomain,
  deliverInbound,
  dmarcReportMail,
  eventually,
  floodMail,
  googleAggregateReport,
  LOOPBACK_ENDPOINTS,
  publishRecords,
  rawRequest,
  startInboundTest,
  subscribe,
  tlsReportMail,
  WebhookReceiver,
} from './support.js';

const DAY_MS = 86_400_000;
const GOOGLE = { mailFrom: 'noreply-dmarc-support@google.com', helo: 'mail-sor-f41.google.com' };

describe('DMARC and TLS reports: pointed at Postline, received over SMTP, shown per domain', () => {
  let t: TestPostline;
  let stranger: Resend;
  let strangerKey: string;
  let brand: { id: string; name: string };
  let inbox: { id: string; name: string };
  let otherDomain: { id: string; name: string };
  let receiver: WebhookReceiver;
  const begin = new Date(Math.floor((Date.now() - 2 * DAY_MS) / DAY_MS) * DAY_MS);
  const end = new Date(begin.getTime() + DAY_MS - 1000);
  const rows = [
    { ip: '127.0.0.1', count: 40, dkim: 'pass', spf: 'pass' },
    { ip: '192.0.2.44', count: 7, dkim: 'pass', spf: 'fail' },
    { ip: '198.51.100.7', count: 3, dkim: 'fail', spf: 'fail', disposition: 'none' },
  ] as const;

  before(async () => {
    // Postline sends from 127.0.0.1 (POSTLINE_OUTBOUND_IPS) and its host name has 192.0.2.44 (what the recommended SPF authorizes).
    t = await startInboundTest({ ...LOOPBACK_ENDPOINTS, POSTLINE_OUTBOUND_IPS: '127.0.0.1' });
    t.dns.set('mta.postline.test', { A: ['192.0.2.44'] });
    brand = await createVerifiedDomain(t, 'brand.test');
    inbox = await createVerifiedDomain(t, 'inbox.test', { receiving: true });
    const other = await createAccount(t.postline.db, 'Other');
    strangerKey = other.token;
    stranger = new Resend(other.token, { baseUrl: t.url });
    otherDomain = await createVerifiedDomain({ dns: t.dns, resend: stranger }, 'other.test');
    receiver = await new WebhookReceiver(t.resend).start();
    await subscribe(t, receiver, ['domain.dmarc_report_received']);
  });
  after(async () => {
    await receiver?.stop();
    await t?.stop();
  });

  const get = (path: string, auth?: string) => rawRequest(t, 'GET', path, auth ? { auth } : {});
  const recommended = async (id: string) =>
    (await get(`/domains/${id}`)).body.recommended_records as { record: string; name: string; type: string; value: string; status: string }[];

  it('recommends a DMARC record whose rua is the return-path host, and TLS-RPT for a receiving domain', async () => {
    const brandRecords = await recommended(brand.id);
    const dmarc = brandRecords.find((r) => r.record === 'DMARC')!;
    assert.deepEqual([dmarc.name, dmarc.type, dmarc.value], ['_dmarc', 'TXT', 'v=DMARC1; p=none; rua=mailto:dmarc-reports@send.brand.test;']);
    // A sending-only domain receives no mail here, so no TLS reports are asked for it; the rua host is inside the domain: no authorization record.
    assert.deepEqual(
      brandRecords.map((r) => r.record),
      ['DMARC'],
    );
    const tls = (await recommended(inbox.id)).find((r) => r.record === 'TLS-RPT')!;
    assert.deepEqual([tls.name, tls.type, tls.value], ['_smtp._tls', 'TXT', 'v=TLSRPTv1; rua=mailto:tls-reports@send.inbox.test']);
    // The domain's own DMARC record verifies it, whatever its policy and addresses; so does the TLS-RPT record.
    t.dns.set('_dmarc.brand.test', { TXT: ['v=DMARC1; p=reject; rua=mailto:dmarc@brand.test'] });
    publishRecords(t, 'inbox.test', [tls]);
    for (const id of [brand.id, inbox.id]) assert.equal((await rawRequest(t, 'POST', `/domains/${id}/verify`)).status, 200);
    await eventually(
      async () => {
        assert.equal((await recommended(brand.id)).find((r) => r.record === 'DMARC')!.status, 'verified');
        assert.equal((await recommended(inbox.id)).find((r) => r.record === 'TLS-RPT')!.status, 'verified');
        return true;
      },
      15_000,
      'the recommended records verify',
    );
    assert.equal((await get(`/domains/${brand.id}`)).body.status, 'verified');
  });

  it('refuses report mail for an address that is no report mailbox of ours', async () => {
    const raw = await dmarcReportMail(googleAggregateReport({ domain: 'brand.test', reportId: 'r0', begin, end, rows: [...rows] }), {
      domain: 'brand.test',
      reportId: 'r0',
      to: 'dmarc-reports@elsewhere.brand.test',
      begin,
      end,
    });
    await assert.rejects(
      deliverInbound(t, raw, { ...GOOGLE, rcptTo: ['dmarc-reports@elsewhere.brand.test'] }),
      (err: { responseCode?: number }) => err.responseCode === 554,
    );
  });

  it('stores a gzipped Google aggregate report sent to the rua address: list, detail, sources, webhook', async () => {
    const xml = googleAggregateReport({ domain: 'brand.test', reportId: '17023311918372617', begin, end, rows: [...rows] });
    const raw = await dmarcReportMail(xml, { domain: 'brand.test', reportId: '17023311918372617', to: 'dmarc-reports@send.brand.test', begin, end });
    await deliverInbound(t, raw, { ...GOOGLE, rcptTo: ['dmarc-reports@send.brand.test'] });

    const list = await get(`/domains/${brand.id}/dmarc-reports`);
    assert.equal(list.status, 200, JSON.stringify(list.body));
    assert.equal(list.body.object, 'list');
    assert.equal(list.body.has_more, false);
    assert.equal(list.body.data.length, 1);
    const report = list.body.data[0];
    assert.deepEqual(
      { report_id: report.report_id, reporter: report.reporter, reporter_email: report.reporter_email, begin: report.begin, end: report.end },
      {
        report_id: '17023311918372617',
        reporter: 'google.com',
        reporter_email: 'noreply-dmarc-support@google.com',
        begin: begin.toISOString(),
        end: end.toISOString(),
      },
    );
    assert.deepEqual([report.messages, report.passing, report.policy_domain, report.policy.p], [50, 47, 'brand.test', 'none']);

    const detail = await get(`/domains/${brand.id}/dmarc-reports/${report.id}`);
    assert.equal(detail.status, 200, JSON.stringify(detail.body));
    assert.equal(detail.body.object, 'dmarc_report');
    assert.deepEqual(
      detail.body.rows.map((r: any) => [r.source_ip, r.count, r.disposition, r.dkim_aligned, r.spf_aligned, r.header_from]),
      rows.map((r) => [r.ip, r.count, 'none', r.dkim, r.spf, 'brand.test']),
    );
    assert.deepEqual(detail.body.rows[0].auth_results, {
      dkim: [{ domain: 'brand.test', selector: 'postline', result: 'pass' }],
      spf: [{ domain: 'send.brand.test', scope: null, result: 'pass' }],
    });

    const sources = await get(`/domains/${brand.id}/dmarc-sources`);
    assert.equal(sources.status, 200, JSON.stringify(sources.body));
    assert.deepEqual(
      sources.body.data.map((s: any) => [s.source_ip, s.messages, s.passing, s.postline]),
      [
        ['127.0.0.1', 40, 40, true],
        ['192.0.2.44', 7, 7, true],
        ['198.51.100.7', 3, 0, false],
      ],
    );
    assert.equal(sources.body.data[2].pass_rate, 0);
    // A period that starts after the report's counts nothing; a bad date is refused.
    const later = await get(`/domains/${brand.id}/dmarc-sources?since=${encodeURIComponent(new Date(end.getTime() + 1000).toISOString())}`);
    assert.deepEqual(later.body.data, []);
    assert.equal((await get(`/domains/${brand.id}/dmarc-sources?since=yesterday`)).status, 422);

    await receiver.waitUntil(() => receiver.payloads('domain.dmarc_report_received').length === 1, 15_000, 'domain.dmarc_report_received');
    assert.deepEqual(receiver.rejected, []);
    assert.deepEqual(receiver.payloads('domain.dmarc_report_received')[0].data, {
      domain_id: brand.id,
      domain: 'brand.test',
      report_id: '17023311918372617',
      reporter: 'google.com',
      begin: begin.toISOString(),
      end: end.toISOString(),
      messages: 50,
      passing: 47,
    });
  });

  it('stores the same report sent twice once, even through a receiving address, where it is also received mail', async () => {
    const xml = googleAggregateReport({ domain: 'brand.test', reportId: '17023311918372617', begin, end, rows: [...rows] });
    const raw = await dmarcReportMail(xml, { domain: 'brand.test', reportId: '17023311918372617', to: 'dmarc@inbox.test', begin, end });
    await deliverInbound(t, raw, { ...GOOGLE, rcptTo: ['dmarc-reports@send.brand.test'] });
    await deliverInbound(t, raw, { ...GOOGLE, rcptTo: ['dmarc@inbox.test'] });
    // The copy to a receiving domain's address is received mail as any other.
    const received = await t.resend.emails.receiving.list({ limit: 1 });
    const latest = received.data!.data[0]!;
    assert.match(latest.subject ?? '', /Report-ID: 17023311918372617/);
    assert.deepEqual(latest.to, ['dmarc@inbox.test']);
    assert.equal((await get(`/domains/${brand.id}/dmarc-reports`)).body.data.length, 1);
    // A report through a receiving address that is new is stored too.
    const other = googleAggregateReport({ domain: 'brand.test', reportId: 'second-day', begin: end, end: new Date(end.getTime() + DAY_MS), rows: [rows[2]] });
    await deliverInbound(t, await dmarcReportMail(other, { domain: 'brand.test', reportId: 'second-day', to: 'dmarc@inbox.test', begin, end }), {
      ...GOOGLE,
      rcptTo: ['dmarc@inbox.test'],
    });
    const list = (await get(`/domains/${brand.id}/dmarc-reports`)).body.data;
    assert.deepEqual(
      list.map((r: any) => r.report_id),
      ['second-day', '17023311918372617'],
    );
    await receiver.waitUntil(() => receiver.payloads('domain.dmarc_report_received').length === 2, 15_000, 'the second report');
    assert.deepEqual(
      receiver.payloads('domain.dmarc_report_received').map((p) => p.data.report_id),
      ['17023311918372617', 'second-day'],
    );
  });

  it("keeps a report about another account's domain as unrecognised, attached to nobody", async () => {
    const xml = googleAggregateReport({ domain: 'other.test', reportId: 'not-yours', begin, end, rows: [...rows] });
    const raw = await dmarcReportMail(xml, { domain: 'other.test', reportId: 'not-yours', to: 'dmarc-reports@send.brand.test', begin, end });
    await deliverInbound(t, raw, { ...GOOGLE, rcptTo: ['dmarc-reports@send.brand.test'] });
    const [kept] = await t.sql(`SELECT recipient, reason, kind, report_id, policy_domain FROM unrecognised_report_mail WHERE report_id = 'not-yours'`);
    assert.deepEqual(
      { ...kept, reason: undefined },
      { recipient: 'dmarc-reports@send.brand.test', reason: undefined, kind: 'dmarc', report_id: 'not-yours', policy_domain: 'other.test' },
    );
    assert.match(kept.reason, /other\.test, not a domain of this account/);
    // The owner of other.test sees nothing of it; the mailbox's account cannot read other.test's reports.
    const theirs = await get(`/domains/${otherDomain.id}/dmarc-reports`, strangerKey);
    assert.equal(theirs.status, 200);
    assert.deepEqual(theirs.body.data, []);
    assert.equal((await t.sql(`SELECT count(*)::int AS n FROM dmarc_reports WHERE report_id = 'not-yours'`))[0].n, 0);
  });

  it("answers 404 for another account's domain and for a report of another domain, 422 for a malformed id", async () => {
    for (const path of ['dmarc-reports', 'tls-reports', 'dmarc-sources']) {
      const res = await get(`/domains/${otherDomain.id}/${path}`);
      assert.equal(res.status, 404, path);
      assert.equal(res.body.name, 'not_found');
      assert.deepEqual((await get(`/domains/not-a-uuid/${path}`)).body, {
        statusCode: 422,
        message: 'The `id` must be a valid UUID.',
        name: 'validation_error',
      });
    }
    assert.equal((await get(`/domains/${brand.id}/dmarc-reports/not-a-uuid`)).status, 422);
    const report = (await get(`/domains/${brand.id}/dmarc-reports`)).body.data[0];
    assert.equal((await get(`/domains/${otherDomain.id}/dmarc-reports/${report.id}`)).status, 404);
    assert.equal((await get(`/domains/${inbox.id}/dmarc-reports/${report.id}`)).status, 404);
    assert.equal((await get(`/domains/${brand.id}/dmarc-reports/${report.id}`, strangerKey)).status, 404);
  });

  it('stores a TLS report sent to the TLS-RPT address, its failures by receiving MX and reason', async () => {
    const raw = await tlsReportMail({ domain: 'inbox.test', reportId: '2026-11-27T00:00:00Z_inbox.test', to: 'tls-reports@send.inbox.test', begin, end });
    await deliverInbound(t, raw, { mailFrom: 'tlsrpt@sender.example', rcptTo: ['tls-reports@send.inbox.test'] });
    await deliverInbound(t, raw, { mailFrom: 'tlsrpt@sender.example', rcptTo: ['tls-reports@send.inbox.test'] });
    const list = await get(`/domains/${inbox.id}/tls-reports`);
    assert.equal(list.status, 200, JSON.stringify(list.body));
    assert.equal(list.body.data.length, 1, 'the same report twice is one');
    const report = list.body.data[0];
    assert.deepEqual(
      [report.report_id, report.reporter, report.contact, report.begin, report.end, report.successful_sessions, report.failed_sessions],
      ['2026-11-27T00:00:00Z_inbox.test', 'Sender Org', 'tlsrpt@sender.example', begin.toISOString(), end.toISOString(), 120, 4],
    );
    assert.deepEqual(report.policies, [
      { policy_type: 'sts', policy_domain: 'inbox.test', mx_hosts: ['mx.inbox.test'], successful_sessions: 120, failed_sessions: 4 },
    ]);
    assert.deepEqual(
      report.failures.map((f: any) => [f.receiving_mx_hostname, f.result_type, f.failed_sessions, f.failure_reason]),
      [
        ['mx.inbox.test', 'certificate-expired', 3, 'X509_V_ERR_CERT_HAS_EXPIRED'],
        ['mx2.inbox.test', 'starttls-not-supported', 1, null],
      ],
    );
    assert.deepEqual((await get(`/domains/${brand.id}/tls-reports`)).body.data, []);
  });

  it("takes a flood of reports without losing the message, keeping those past the hour's limit as refused", async () => {
    // Another account's mailbox: the limit is per account and sender, and this flood uses up the hour of 127.0.0.1 there.
    const raw = await floodMail({ domain: 'other.test', to: 'dmarc-reports@send.other.test', count: REPORTS_PER_HOUR + 1, begin, end });
    await deliverInbound(t, raw, { ...GOOGLE, rcptTo: ['dmarc-reports@send.other.test'] });
    const [kept] = await t.sql(
      `SELECT count(*)::int AS n, min(reason) AS reason FROM unrecognised_report_mail WHERE recipient = 'dmarc-reports@send.other.test' AND report_id LIKE 'flood-%'`,
    );
    assert.equal(kept.n, REPORTS_PER_HOUR + 1);
    assert.match(kept.reason, new RegExp(`^refused: more than ${REPORTS_PER_HOUR} reports an hour from (127\\.0\\.0\\.1|google\\.com)$`));
    assert.deepEqual((await get(`/domains/${otherDomain.id}/dmarc-reports`, strangerKey)).body.data, []);
    // The next report from there this hour is refused too; the first account's intake is its own.
    const one = googleAggregateReport({ domain: 'other.test', reportId: 'after-the-flood', begin, end, rows: [rows[0]] });
    await deliverInbound(
      t,
      await dmarcReportMail(one, { domain: 'other.test', reportId: 'after-the-flood', to: 'dmarc-reports@send.other.test', begin, end }),
      {
        ...GOOGLE,
        rcptTo: ['dmarc-reports@send.other.test'],
      },
    );
    assert.deepEqual((await get(`/domains/${otherDomain.id}/dmarc-reports`, strangerKey)).body.data, []);
    assert.equal((await t.sql(`SELECT count(*)::int AS n FROM unrecognised_report_mail WHERE report_id = 'after-the-flood'`))[0].n, 1);
  });

  it('counts reports in /metrics by outcome and domain, and failing messages by domain', async () => {
    const res = await fetch(`${t.url}/metrics`);
    assert.equal(res.status, 200);
    const text = await res.text();
    const value = (series: string) => Number(new RegExp(`^${series.replace(/[{}"]/g, '\\$&')} (\\S+)$`, 'm').exec(text)?.[1]);
    assert.equal(value('postline_dmarc_reports_total{outcome="stored",domain="brand.test"}'), 2);
    assert.equal(value('postline_dmarc_reports_total{outcome="duplicate",domain="brand.test"}'), 2);
    // Reports about names no account's domain has are counted under no domain: a reporter never adds a series.
    assert.equal(value('postline_dmarc_reports_total{outcome="unrecognised",domain=""}'), 1);
    assert.equal(value('postline_dmarc_reports_total{outcome="refused",domain=""}'), REPORTS_PER_HOUR + 2);
    assert.doesNotMatch(text, /domain="other\.test"/);
    assert.equal(value('postline_tls_reports_received_total{outcome="stored",domain="inbox.test"}'), 1);
    assert.equal(value('postline_tls_reports_received_total{outcome="duplicate",domain="inbox.test"}'), 1);
    assert.equal(value('postline_dmarc_failing_messages_total{domain="brand.test"}'), 3 + 3);
  });

  it('lists the routes in /openapi.json as Postline additions', async () => {
    const document = (await rawRequest(t, 'GET', '/openapi.json', { auth: null })).body;
    for (const path of ['/domains/{id}/dmarc-reports', '/domains/{id}/dmarc-reports/{reportId}', '/domains/{id}/tls-reports', '/domains/{id}/dmarc-sources']) {
      assert.equal(document.paths[path]?.get?.['x-postline-addition'], true, path);
    }
  });

  it('deletes reports older than POSTLINE_REPORT_RETENTION in the housekeeping', async () => {
    await t.restart({ POSTLINE_REPORT_RETENTION: '1ms' });
    await eventually(
      async () => {
        assert.deepEqual((await get(`/domains/${brand.id}/dmarc-reports`)).body.data, []);
        assert.deepEqual((await get(`/domains/${inbox.id}/tls-reports`)).body.data, []);
        assert.equal((await t.sql('SELECT count(*)::int AS n FROM unrecognised_report_mail'))[0].n, 0);
        assert.equal((await t.sql('SELECT count(*)::int AS n FROM dmarc_report_rows'))[0].n, 0);
        return true;
      },
      15_000,
      'the reports purged',
    );
  });
});
