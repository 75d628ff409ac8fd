// TLS reports (RFC 8460) of what Postline sends: sessions to recipients with an MTA-STS policy
// are counted per policy domain and UTC day, and each finished day is reported once, for the
// whole cluster, to the addresses the domain's `_smtp._tls` TXT record names: `mailto:` as mail
// through Postline's own sending (DKIM-signed by POSTLINE_TLS_REPORTS_FROM's domain, delivered
// to a real SMTP server), `https:` by POST to a real HTTPS server. Two report senders (two
// nodes' worker roles, as the worker role builds them) run at once with tomorrow's date.
import assert from 'node:assert/strict';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import PostalMime from 'postal-mime';
import { DnsResolver } from '../../src/dns/resolver.js';
import { acceptDeps } from '../../src/emails/routes.js';
import { createLogger } from '../../src/logger.js';
import { purgeOldTlsReportCounts } from '../../src/tls-policy/tls-report-counts.js';
import { purgeOldTlsReports, TlsReportSender } from '../../src/tls-reports/send-reports.js';
import { verifyDkim } from '../support/dkim.js';
import { createVerifiedDomain, publishMx } from '../support/domains.js';
import { closeServer, eventually } from '../support/eventually.js';
import { MxSink } from '../support/mx-sink.js';
import { PolicyHost } from '../support/policy-host.js';
import { startTestPostline, type TestPostline } from '../support/postline.js';
import { issueCertificate } from '../support/test-ca.js';
import { waitForLastEvent } from '../delivery/support.js';

const GOOD = 'good.test'; // enforce, a valid certificate: successes; reports by mail and HTTPS
const BAD = 'selfsigned.test'; // enforce, a self-signed certificate: failures; reports by mail
const REFUSING = 'refusing.test'; // its HTTPS collector answers 503
const QUIET = 'quiet.test'; // a policy, but no _smtp._tls record
const DOMAINS = [GOOD, BAD, REFUSING, QUIET];
const REPORTS_FROM = 'tls-reports@reports.test';

describe('TLS reports (RFC 8460) of the sessions Postline opened', () => {
  let t: TestPostline;
  let mx: MxSink;
  let policyHost: PolicyHost;
  let collector: https.Server;
  let mxAddress: string;
  const posted: { url: string; type: string; body: Buffer }[] = [];

  const send = async (to: string) => {
    const { data, error } = await t.resend.emails.send({ from: 'Ops <ops@sender.test>', to, subject: 'Hello', text: 'Hi' });
    assert.equal(error, null, JSON.stringify(error));
    return data!.id;
  };
  const senderNode = () =>
    new TlsReportSender({
      db: t.postline.db,
      resolver: new DnsResolver([t.dns.address]),
      accept: acceptDeps(t.postline.db, t.postline.config, new DnsResolver([t.dns.address])),
      from: REPORTS_FROM,
      submitter: 'mta.postline.test',
      logger: createLogger('silent'),
    });

  before(async () => {
    t = await startTestPostline({ env: { POSTLINE_TLS_REPORTS_FROM: REPORTS_FROM, POSTLINE_RETRY_DELAYS: '1h' } });
    await createVerifiedDomain(t, 'sender.test');
    await createVerifiedDomain(t, 'reports.test');

    const loopback = () => `127.0.${1 + Math.floor(Math.random() * 200)}.${2 + Math.floor(Math.random() * 200)}`;
    const issued = issueCertificate(DOMAINS.filter((d) => d !== BAD).map((d) => `mx.${d}`));
    const selfSigned = issueCertificate([`mx.${BAD}`], { selfSigned: true });
    mxAddress = loopback();
    mx = await new MxSink(mxAddress, { tls: { ...issued, byName: { [`mx.${BAD}`]: selfSigned } } }).start(t.sink.port);
    policyHost = await new PolicyHost(DOMAINS).start();
    for (const domain of DOMAINS) {
      publishMx(t, domain, [{ name: `mx.${domain}`, priority: 10, address: mxAddress }]);
      t.dns.set(`mta-sts.${domain}`, { A: [policyHost.address] });
      t.dns.set(`_mta-sts.${domain}`, { TXT: ['v=STSv1; id=1'] });
      policyHost.policy(domain, { mode: 'enforce', mx: [`mx.${domain}`] });
    }
    // Where reports go: mail for rua.test to the test's default sink, HTTPS to a collector.
    publishMx(t, 'rua.test');
    const { key, cert } = issueCertificate(['collector.rua.test']);
    collector = https.createServer({ key, cert }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        posted.push({ url: req.url!, type: req.headers['content-type'] ?? '', body: Buffer.concat(chunks) });
        res.writeHead(req.url === '/refuse' ? 503 : 201).end();
      });
    });
    await new Promise<void>((resolve) => collector.listen(443, loopback(), resolve));
    t.dns.set('collector.rua.test', { A: [(collector.address() as AddressInfo).address] });
    t.dns.set(`_smtp._tls.${GOOD}`, { TXT: ['v=TLSRPTv1; rua=mailto:tlsrpt@rua.test,https://collector.rua.test/v1/tlsrpt'] });
    t.dns.set(`_smtp._tls.${BAD}`, { TXT: ['v=TLSRPTv1;rua=mailto:tlsrpt@rua.test'] });
    t.dns.set(`_smtp._tls.${REFUSING}`, { TXT: ['v=TLSRPTv1; rua=https://collector.rua.test/refuse'] });
  });
  after(async () => {
    await t?.stop();
    collector?.closeAllConnections();
    await Promise.all([mx?.stop(), policyHost?.stop(), collector && closeServer(collector)]);
  });

  it('counts sessions under each policy, successes and failures with where they happened', async () => {
    for (const domain of [GOOD, REFUSING, QUIET]) await waitForLastEvent(t, await send(`someone@${domain}`), 'delivered');
    await waitForLastEvent(t, await send(`someone@${BAD}`), 'delivery_delayed');
    await eventually(
      async () => (await t.sql('SELECT DISTINCT policy_domain FROM tls_report_counts')).length === DOMAINS.length,
      15_000,
      'the counts written (every 5 s)',
    );
    const failures = await t.sql(`SELECT result, receiving_mx, receiving_ip, sessions FROM tls_report_counts WHERE policy_domain = $1`, [BAD]);
    assert.deepEqual(
      failures.map((r) => [r.result, r.receiving_mx, Number(r.sessions)]),
      [['certificate-not-trusted', `mx.${BAD}`, 1]],
    );
    assert.equal(failures[0].receiving_ip, mxAddress);
    const [good] = await t.sql(`SELECT result, sessions FROM tls_report_counts WHERE policy_domain = $1`, [GOOD]);
    assert.deepEqual([good.result, Number(good.sessions)], ['success', 1]);
  });

  it("sends each finished day's report once across nodes, by mail and by HTTPS, where each domain asks", async () => {
    const tomorrow = new Date(Date.now() + 86_400_000);
    const [first, second] = await Promise.all([senderNode().sendDue(tomorrow), senderNode().sendDue(tomorrow)]);
    const sent = [...first, ...second].sort((a, b) => a.domain.localeCompare(b.domain));
    assert.deepEqual(
      sent.map((s) => s.domain),
      [GOOD, QUIET, REFUSING, BAD],
      'every domain once, whichever node took it',
    );
    const byDomain = Object.fromEntries(sent.map((s) => [s.domain, s]));
    assert.equal(byDomain[QUIET]!.skipped, `${QUIET} publishes no _smtp._tls record`);
    assert.deepEqual(
      byDomain[REFUSING]!.destinations.map((d) => [d.rua, d.ok, d.detail]),
      [['https://collector.rua.test/refuse', false, 'answered 503']],
    );
    assert.deepEqual(
      byDomain[GOOD]!.destinations.map((d) => d.ok),
      [true, true],
    );
    assert.deepEqual(await senderNode().sendDue(tomorrow), [], 'nothing is sent twice');
    // Housekeeping keeps today's counts and reports (30 and 90 days).
    await Promise.all([purgeOldTlsReportCounts(t.postline.db), purgeOldTlsReports(t.postline.db)]);
    assert.equal((await t.sql('SELECT count(*)::int AS n FROM tls_reports'))[0].n, 4);
    assert.ok((await t.sql('SELECT count(*)::int AS n FROM tls_report_counts'))[0].n >= 4);

    // By HTTPS: the gzipped JSON of §4.
    const post = posted.find((p) => p.url === '/v1/tlsrpt')!;
    assert.equal(post.type, 'application/tlsrpt+gzip');
    const report = JSON.parse(zlib.gunzipSync(post.body).toString());
    const today = new Date().toISOString().slice(0, 10);
    assert.deepEqual(report['date-range'], { 'start-datetime': `${today}T00:00:00Z`, 'end-datetime': `${today}T23:59:59Z` });
    assert.equal(report['organization-name'], 'mta.postline.test');
    assert.deepEqual(report.policies, [
      {
        policy: {
          'policy-type': 'sts',
          'policy-string': ['version: STSv1', 'mode: enforce', `mx: mx.${GOOD}`, 'max_age: 86400'],
          'policy-domain': GOOD,
          'mx-host': [`mx.${GOOD}`],
        },
        summary: { 'total-successful-session-count': 1, 'total-failure-session-count': 0 },
      },
    ]);
  });

  it('mails reports as Postline mail: DKIM-signed by the reporting domain, with the report attached', async () => {
    await mailFor('tlsrpt@rua.test', 2);
    const reports = t.sink.messages.filter((m) => m.to.includes('tlsrpt@rua.test'));
    const bad = await findReport(reports, BAD);
    assert.match(bad.subject ?? '', new RegExp(`^Report Domain: ${BAD.replace('.', '\\.')} Submitter: mta\\.postline\\.test Report-ID: <.+>$`));
    assert.equal(bad.headers.find((h) => h.key === 'tls-report-domain')?.value, BAD);
    assert.equal(bad.headers.find((h) => h.key === 'tls-report-submitter')?.value, 'mta.postline.test');
    const [attachment] = bad.attachments;
    assert.equal(attachment!.mimeType, 'application/tlsrpt+gzip');
    assert.match(attachment!.filename!, new RegExp(`^mta\\.postline\\.test!${BAD.replace('.', '\\.')}!\\d+!\\d+!\\w+\\.json\\.gz$`));
    const report = JSON.parse(zlib.gunzipSync(Buffer.from(attachment!.content as ArrayBuffer)).toString());
    assert.equal(report.policies[0].summary['total-failure-session-count'], 1);
    assert.deepEqual(
      report.policies[0]['failure-details'].map((d: any) => [d['result-type'], d['receiving-mx-hostname'], d['failed-session-count']]),
      [['certificate-not-trusted', `mx.${BAD}`, 1]],
    );
    const dkim = await verifyDkim(t, bad.raw);
    assert.ok(
      dkim.some((d) => d.result === 'pass' && d.domain === 'reports.test'),
      JSON.stringify(dkim),
    );
  });

  async function mailFor(to: string, count: number): Promise<void> {
    await eventually(async () => t.sink.messages.filter((m) => m.to.includes(to)).length >= count, 15_000, `${count} reports mailed to ${to}`);
  }

  async function findReport(messages: { raw: Buffer }[], domain: string) {
    for (const message of messages) {
      const parsed = await PostalMime.parse(message.raw);
      if (parsed.headers.find((h) => h.key === 'tls-report-domain')?.value === domain) return { ...parsed, raw: message.raw };
    }
    throw new Error(`no report for ${domain}`);
  }
});
